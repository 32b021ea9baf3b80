"""The campaign's LLM page (organizers): the endpoint, the mode, the prompts with a form that makes a new version,
what is graded, and the form that starts a judging job (posted to workflow's llm_judge_start)."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.forms import form_values
from core.permissions import organizer_required
from ir.problems import InputError
from llm import services
from llm.forms import EndpointForm, JudgeForm, PromptEditForm
from llm.models import Endpoint
from llm.pages import grade_counts
from pooling.models import Campaign, Job


@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_llm(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    prompts = services.prompts_of_campaign(campaign=campaign)
    endpoint = Endpoint.objects.filter(campaign=campaign).first()
    form = EndpointForm(campaign=campaign, instance=endpoint or Endpoint(campaign=campaign))
    edit_forms = {p.name: PromptEditForm(initial={"prompt": p.pk, "text": p.text}) for p in prompts}
    if request.method == "POST" and request.POST.get("action") == "prompt":
        edit = PromptEditForm(request.POST)
        try:
            values = form_values(edit)
            made = services.prompt_edit(prompt=values["prompt"], text=values["text"], campaign=campaign)
        except InputError as exc:
            exc.add_to_form(edit)
            if edit.is_bound and "prompt" in edit.cleaned_data:
                edit_forms[edit.cleaned_data["prompt"].name] = edit
        else:
            messages.info(request, f"Saved as {made}; grades made with earlier versions keep naming theirs.")
            return redirect("llm:campaign_llm", pk=campaign.pk)
    elif request.method == "POST":
        form = EndpointForm(request.POST, campaign=campaign, instance=endpoint or Endpoint(campaign=campaign))
        if form.is_valid():
            services.endpoint_update(campaign=campaign, values=form.cleaned_data)
            messages.info(request, "The LLM endpoint is saved.")
            return redirect("llm:campaign_llm", pk=campaign.pk)
    jobs = Job.objects.filter(campaign=campaign, kind=Job.Kind.LLM_JUDGE).select_related("created_by")[:5]
    return render(request, "llm/campaign_llm.html", {
        "campaign": campaign, "form": form, "endpoint": endpoint, "prompts": [(p, edit_forms[p.name]) for p in prompts],
        "judge_form": JudgeForm(), "counts": grade_counts(campaign=campaign), "jobs": jobs})

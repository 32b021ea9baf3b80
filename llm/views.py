"""The campaign's LLM page (organizers): the endpoint, the mode, the prompts with a form that makes a new version,
what is graded and the commonest failures, the recent judging jobs, and the form that starts a judging job (the same
job as POST /api/campaigns/<id>/llm/judge/, llm/apis.py, and the `llm_judge` command)."""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.forms import form_values
from core.permissions import organizer_required
from ir.problems import InputError
from jobs.models import Job
from jobs.pages import job_view
from jobs.runner import job_create
from llm import services as llm_services
from llm.forms import EndpointForm, JudgeForm, PromptEditForm
from llm.models import Endpoint
from llm.pages import failure_reasons, grade_counts, prompt_users
from llm.tasks import LlmJudgeParams
from pooling.models import Campaign


def _page(request: HttpRequest, campaign: Campaign, *, form: EndpointForm | None = None,
          edited: PromptEditForm | None = None, judge_form: JudgeForm | None = None) -> HttpResponse:
    """The page, with the form that was posted and refused (its errors by field, what was typed kept)."""
    prompts = llm_services.prompts_of_campaign(campaign=campaign)
    endpoint = Endpoint.objects.filter(campaign=campaign).select_related("prompt").first()
    form = form or EndpointForm(campaign=campaign, instance=endpoint or Endpoint(campaign=campaign))
    edit_forms = {p.name: PromptEditForm(initial={"prompt": p.pk, "text": p.text}) for p in prompts}
    if edited is not None and "prompt" in edited.cleaned_data:
        edit_forms[edited.cleaned_data["prompt"].name] = edited
    users = prompt_users(prompts=prompts)
    jobs = Job.objects.filter(campaign=campaign, kind=Job.Kind.LLM_JUDGE).select_related(
        "created_by", "campaign", "collection").order_by("-created_at")[:5]
    return render(request, "llm/campaign_llm.html", {
        "campaign": campaign, "form": form, "endpoint": endpoint,
        "prompts": [(p, edit_forms[p.name], users[p.name]) for p in prompts],
        "judge_form": judge_form or JudgeForm(campaign=campaign), "counts": grade_counts(campaign=campaign),
        "failures": failure_reasons(campaign=campaign), "jobs": [job_view(job=job) for job in jobs],
        # The demo and a single process without Redis run jobs in the request (config/settings/base.py).
        "in_process": settings.CELERY_TASK_ALWAYS_EAGER, "give_up": llm_services.GIVE_UP})


@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_llm(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    if request.method == "GET":
        return _page(request, campaign)
    if request.POST.get("action") == "prompt":
        edit = PromptEditForm(request.POST)
        try:
            values = form_values(edit)
            made = llm_services.prompt_edit(prompt=values["prompt"], text=values["text"], campaign=campaign)
        except InputError as exc:
            if edit.is_valid():  # the service's refusal; the form's own are on their fields already
                exc.add_to_form(edit, "text")
            return _page(request, campaign, edited=edit)
        messages.info(request, f"Saved as {made}, which this campaign uses now; other campaigns keep the version "
                               "they were saved with. Grades made with earlier versions keep naming theirs.")
        return redirect("llm:campaign_llm", pk=campaign.pk)
    endpoint = Endpoint.objects.filter(campaign=campaign).first()
    form = EndpointForm(request.POST, campaign=campaign, instance=endpoint or Endpoint(campaign=campaign))
    if not form.is_valid():
        return _page(request, campaign, form=form)
    llm_services.endpoint_update(campaign=campaign, values=form.cleaned_data)
    messages.info(request, "The LLM endpoint is saved.")
    return redirect("llm:campaign_llm", pk=campaign.pk)


def llm_judge_job(*, campaign: Campaign, params: LlmJudgeParams, user) -> Job:
    """Queues a judging job once what it needs is there: an endpoint (with the overrides) and the prompt named."""
    llm_services.endpoint_settings(campaign=campaign, overrides={"base_url": params.base_url, "model": params.model})
    llm_services.topics_chosen(campaign=campaign, topic_ids=params.topics)
    if params.prompt:
        llm_services.prompt_named(name=params.prompt)
    with transaction.atomic():
        return job_create(params=params, user=user, campaign=campaign)


@organizer_required
@require_POST
def llm_judge_start(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    form = JudgeForm(request.POST, campaign=campaign)
    if not form.is_valid():
        return _page(request, campaign, judge_form=form)
    values = form.cleaned_data
    try:
        job = llm_judge_job(campaign=campaign, user=request.user, params=LlmJudgeParams(
            topics=values["topics"], limit_per_topic=values["limit_per_topic"], canaries=values["canaries"] or 0))
    except InputError as exc:
        exc.add_to_form(form)
        return _page(request, campaign, judge_form=form)
    return redirect("jobs:job", pk=job.pk)

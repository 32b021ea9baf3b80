"""Organizer pages of what the overview paper needs besides scores: a run's facts and a campaign's topic
information."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.permissions import organizer_required
from evaluation.forms import TopicInfoForm
from evaluation.models import CampaignTopicInfo
from evaluation.topic_info import topic_info_ingest
from ir.formats.topic_info import TOPIC_COLUMN
from ir.prime import natural_key
from ir.problems import InputError
from pooling import services as pooling_services
from pooling.forms import RunFactsForm
from pooling.models import Campaign, Run


@organizer_required
@require_http_methods(["GET", "POST"])
def run_facts(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    """A run's facts (team, primary/alternate, manual, baseline, data used, extracted/generated), edited."""
    run = get_object_or_404(Run.objects.select_related("campaign"), pk=run_pk, campaign_id=pk)
    # The form validates a copy: the service changes the run itself.
    form = RunFactsForm(request.POST or None, instance=Run.objects.get(pk=run.pk))
    if request.method == "POST" and form.is_valid():
        was_alternate = run.alternate
        try:
            pooling_services.run_facts_set(run=run, **{fact: form.cleaned_data[fact] for fact in Run.FACTS})
        except InputError as exc:
            exc.add_to_form(form)
        else:
            messages.success(request, f"The facts of run {run.name} were saved.")
            if run.alternate != was_alternate and pooling_services.pools_built(campaign=run.campaign):
                messages.info(request, f"Run {run.name} is now {run.kind}: rebuild the pools to pool it so.")
            return redirect("workflow:campaign", pk=pk)
    return render(request, "evaluation/run_facts.html", {"campaign": run.campaign, "run": run, "form": form},
                  status=400 if form.errors else 200)


@organizer_required
@require_http_methods(["GET", "POST"])
def topic_info(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's topic information, and a form to upload a new file (read at once: the files are small)."""
    campaign = get_object_or_404(Campaign, pk=pk)
    form = TopicInfoForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            _stored, warnings = topic_info_ingest(campaign=campaign, data=upload.read(), filename=upload.name or "",
                                                  user=request.user if request.user.is_authenticated else None)
        except InputError as exc:
            exc.add_to_form(form)
        else:
            messages.success(request, f"The topic information of {campaign.name} was read from {upload.name}.")
            for warning in warnings:
                messages.warning(request, warning)
            return redirect("evaluation:topic_info", pk=pk)
    stored = CampaignTopicInfo.objects.filter(campaign=campaign).select_related("uploaded_by").first()
    columns = [c for c in stored.columns if c != TOPIC_COLUMN] if stored else []
    topics = sorted(stored.rows, key=natural_key) if stored else []
    rows = [(topic, [stored.rows[topic].get(c, "") for c in columns]) for topic in topics] if stored else []
    return render(request, "evaluation/topic_info.html", {
        "campaign": campaign, "stored": stored, "columns": columns, "rows": rows, "form": form},
        status=400 if form.errors else 200)

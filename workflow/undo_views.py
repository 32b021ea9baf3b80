"""Organizer pages for undoing a mistake (docs/pooling.md, "Undoing a mistake"): deleting or replacing a run,
editing a campaign's settings, deleting a campaign. Each destructive action is a page that says what it will do
(GET) and a form that does it (POST), so that it works without JavaScript."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from core.api import flag
from core.permissions import organizer_required
from ir.grades import MARK_DEFINITIONS, MARK_KEYS, MARK_LABELS, preset
from ir.problems import InputError
from jobs.models import Job
from judging import budgets
from judging import services as assessor_services
from judging.selectors import judged_items_count, judged_topics_count
from judging.tasks import campaign_delete_job
from pooling import services
from pooling.forms import CampaignSettingsForm, RunReplaceForm
from pooling.models import Campaign, Run
from workflow.uploads import run_replace_upload


def _pools_message(request: HttpRequest, after: services.PoolsAfter) -> None:
    if after.rebuilt is None:
        return
    messages.info(request, f"The pools were rebuilt: {after.rebuilt.items} items.")
    if after.unpooled:
        shown = ", ".join(f"{topic} {item}" for topic, item in after.unpooled[:10])
        more = f" and {len(after.unpooled) - 10} more" if len(after.unpooled) > 10 else ""
        messages.warning(request, f"{len(after.unpooled)} judged items are no longer in the pools ({shown}{more}); "
                                  "their judgments are kept.")


def _undo_context(campaign: Campaign, *, topics: bool = False) -> dict:
    """The confirmation pages' counts: judged items (and with `topics`, the topics holding one), counted by the
    database; the services read every judged item again when they act."""
    return {"campaign": campaign, "judged": judged_items_count(campaign),
            "judged_topics": judged_topics_count(campaign) if topics else None,
            "built": services.pools_built(campaign=campaign)}


@organizer_required
@require_http_methods(["GET", "POST"])
def run_delete(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.select_related("campaign"), pk=run_pk, campaign_id=pk)
    problems: list[str] = []
    if request.method == "POST":
        try:
            after = assessor_services.run_delete(run=run, force=flag(request.POST.get("force")))
        except InputError as exc:
            problems = exc.messages()
        else:
            messages.success(request, f"Run {run.name} was deleted ({run.row_count} rows).")
            _pools_message(request, after)
            return redirect("workflow:campaign", pk=pk)
    return render(request, "workflow/run_delete.html", {**_undo_context(run.campaign, topics=True), "run": run,
                                                       "problems": problems}, status=400 if problems else 200)


@organizer_required
@require_http_methods(["GET", "POST"])
def run_replace(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    """A new file for a run, checked and stored by a job that keeps the old run if the file is rejected."""
    run = get_object_or_404(Run.objects.select_related("campaign"), pk=run_pk, campaign_id=pk)
    context = _undo_context(run.campaign, topics=True)
    form = RunReplaceForm(request.POST or None, request.FILES or None)
    if not context["judged"]:
        del form.fields["force"]
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            job = run_replace_upload(run=run, upload=data["file"], force=bool(data.get("force")), user=request.user)
        except InputError as exc:
            exc.add_to_form(form)
        else:
            return redirect("jobs:job", pk=job.pk)
    return render(request, "workflow/run_replace.html", {**context, "run": run, "form": form})


@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_settings(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), pk=pk)
    context = {**_undo_context(campaign), "has_runs": campaign.runs.exists()}
    # The form validates a copy: the service reads the campaign again under its lock.
    form = CampaignSettingsForm(request.POST or None, instance=Campaign.objects.select_related("collection").get(pk=pk),
                                pools_built=context["built"], has_runs=context["has_runs"])
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            campaign, after = assessor_services.campaign_update(
                campaign=campaign, name=data["name"], collection_name=data["collection"],
                force=bool(data.get("force")),
                scheme=preset(data["scheme"], campaign.task) if data["scheme"] else None,
                **form.settings())
        except InputError as exc:
            exc.add_to_form(form)
        else:
            messages.success(request, f"The settings of {campaign.name} were saved.")
            _pools_message(request, after)
            return redirect("workflow:campaign", pk=pk)
    scheme = campaign.judging_scheme
    marks = [{"value": m, "label": MARK_LABELS[m], "key": MARK_KEYS[m], "definition": MARK_DEFINITIONS[m]}
             for m in scheme.marks]
    return render(request, "workflow/campaign_settings.html", {**context, "form": form, "marks": marks,
                                                              "table": list(scheme.table.items()),
                                                              "hours": budgets.hours_spread(campaign)})


@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign is marked as being deleted at once and a job deletes it (docs/pooling.md, "Deleting a
    campaign"): the POST lands on the job's page."""
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), pk=pk)
    problems: list[str] = []
    if request.method == "POST":
        try:
            job = campaign_delete_job(campaign=campaign, user=request.user)
        except InputError as exc:
            problems = exc.messages()
        else:
            messages.info(request, f"Deleting campaign {campaign.name}: job #{job.pk}.")
            return redirect("jobs:job", pk=job.pk)
    context = _undo_context(campaign)
    return render(request, "workflow/campaign_delete.html", {
        **context, "problems": problems,
        "job": campaign.jobs.filter(kind=Job.Kind.CAMPAIGN_DELETE).first() if campaign.deleting else None,
        "contents": services.campaign_contents(campaign=campaign, judged=context["judged"])},
        status=400 if problems else 200)

"""Organizer pages: campaigns, collections, uploads with their validation report (the jobs pages: jobs/views.py)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.api import flag
from core.forms import form_values
from core.permissions import is_organizer, organizer_required
from ir.charts import plan_bars
from ir.grades import preset
from ir.problems import InputError
from jobs import selectors as job_selectors
from jobs.pages import job_view
from jobs.runner import job_create
from judging.progress import judging_time
from judging.selectors import judged_items_count
from judging.tasks import PoolBuildParams
from pooling import selectors, services
from pooling.forms import (
    CampaignForm,
    CollectionUploadForm,
    PoolPlanForm,
    RunDepthForm,
    RunUploadForm,
    TopicsUploadForm,
)
from pooling.models import Campaign, Collection, Run
from workflow import uploads


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness for load balancers and compose health checks (and the benchmarks' wait for gunicorn): no database, no
    session."""
    return HttpResponse("ok", content_type="text/plain")


@login_required
def home(request: HttpRequest) -> HttpResponse:
    if is_organizer(request.user):
        return redirect("workflow:campaigns")
    return redirect("judging:home")


@organizer_required
@require_http_methods(["GET", "POST"])
def campaign_list(request: HttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        assert request.user.is_authenticated  # organizer_required let only a signed-in organizer in
        try:
            campaign = services.campaign_create(
                name=data["name"], task=data["task"], collection_name=data["collection"] or None, user=request.user,
                scheme=preset(data["scheme"] or "arqmath", data["task"]), **services.campaign_settings(data))
        except InputError as exc:
            exc.add_to_form(form)
        else:
            return redirect("workflow:campaign", pk=campaign.pk)
    return render(request, "workflow/campaign_list.html",
                  {"campaigns": selectors.campaign_list(), "form": form})


@organizer_required
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), pk=pk)
    return render(request, "workflow/campaign_detail.html", {
        "campaign": campaign,
        "topics": campaign.topics.all(),
        "runs": campaign.runs.all(),
        "jobs": [job_view(job=job) for job in job_selectors.job_list(campaign=campaign, limit=10)],
    })


def upload_view(request: HttpRequest, pk: int, *, form_class, template: str, start) -> HttpResponse:
    """A campaign's upload page: the form, and on a valid POST the job `start(campaign, cleaned_data)` queues (the
    job page next), or the problems."""
    campaign = get_object_or_404(Campaign, pk=pk)
    form = form_class(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            job = start(campaign, form.cleaned_data)
        except InputError as exc:
            exc.add_to_form(form)
        else:
            return redirect("jobs:job", pk=job.pk)
    return render(request, template, {"campaign": campaign, "form": form})


@organizer_required
@require_http_methods(["GET", "POST"])
def run_upload(request: HttpRequest, pk: int) -> HttpResponse:
    return upload_view(request, pk, form_class=RunUploadForm, template="workflow/run_upload.html",
                       start=lambda campaign, data: uploads.run_upload(
                           campaign=campaign, upload=data["file"], options=services.run_options(data),
                           user=request.user))


@organizer_required
@require_http_methods(["GET", "POST"])
def topics_upload(request: HttpRequest, pk: int) -> HttpResponse:
    return upload_view(request, pk, form_class=TopicsUploadForm, template="workflow/topics_upload.html",
                       start=lambda campaign, data: uploads.topics_upload(
                           campaign=campaign, upload=data["file"], user=request.user))


@organizer_required
@require_http_methods(["GET", "POST"])
def collection_list(request: HttpRequest) -> HttpResponse:
    form = CollectionUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            job = uploads.collection_upload(name=data["collection"].strip(), uploads=data["files"], user=request.user,
                                            replace=data["replace"])
        except InputError as exc:
            exc.add_to_form(form)
        else:
            return redirect("jobs:job", pk=job.pk)
    return render(request, "workflow/collection_list.html",
                  {"collections": selectors.collection_list(), "form": form})


@organizer_required
@require_POST
def collection_delete(request: HttpRequest, pk: int) -> HttpResponse:
    collection = get_object_or_404(Collection, pk=pk)
    try:
        detached = services.collection_delete(collection=collection)
    except InputError as exc:
        messages.error(request, "; ".join(exc.messages()))
    else:
        left = f" Campaigns now without a collection: {', '.join(detached)}." if detached else ""
        messages.info(request, f"Collection {collection.name} is deleted.{left}")
    return redirect("workflow:collections")


def _plan_params(request: HttpRequest, campaign: Campaign, default_seconds: float
                 ) -> tuple[list[int], float, list[str], dict[str, str]]:
    """The planner's depths and seconds per judgment; the defaults for those refused, why, and the fields as typed
    where refused (kept in the form, to correct)."""
    form = PoolPlanForm(request.GET, max_depth=campaign.max_depth)
    form.is_valid()
    values = form.cleaned_data
    typed = {name: request.GET.get(name, "")[:200] for name in form.errors}
    return (values.get("depths") or selectors.PLAN_DEPTHS[campaign.task], values.get("seconds") or default_seconds,
            form.problems(), typed)


@organizer_required
def pool_detail(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), pk=pk)
    # Reads the judging app's timing data: once per request.
    plan_time = selectors.plan_seconds_per_judgment(measured=judging_time(campaign))
    default_seconds = plan_time.seconds
    depths, seconds, errors, typed = _plan_params(request, campaign, default_seconds)
    plan = selectors.pool_plan(campaign=campaign, depths=depths, seconds_per_judgment=seconds)
    pool_rows = selectors.pool_stamp(campaign)  # what the stored contributions and the cached count were read from
    stats = selectors.pool_statistics(campaign=campaign, pool_rows=pool_rows)
    # campaign_id too: the related manager reads it on every topic (a deferred field: a query each).
    topics = {t.topic_id: t for t in campaign.topics.only("pk", "campaign_id", "topic_id", "title")}
    # Built pools hold an item of every run they were built from: a run with none was added since (docs/pooling.md).
    # Pooled units whose post the collection lacks: judged only as System failure or Do not know (docs/judging.md).
    unjudgeable = selectors.unjudgeable_items_total(campaign=campaign, pool_rows=pool_rows)
    unpooled_runs = [r["name"] for r in stats["runs"] if r["pk"] and not r["contributed"]] if stats["built"] else []
    return render(request, "workflow/pool_detail.html", {
        "campaign": campaign,
        "stats": stats,
        "topic_rows": [{**row, "topic": topics[row["topic_id"]]} for row in stats["topics"]],
        "plan": plan,
        "chart": plan_bars(plan),
        "depths": ", ".join(map(str, depths)),
        "seconds": f"{seconds:g}",
        "plan_typed": typed,
        "default_seconds": f"{default_seconds:g}",
        "plan_time": plan_time,
        "plan_min_judgments": selectors.PLAN_MIN_JUDGMENTS,
        "plan_errors": errors,
        "formulas": campaign.task == Campaign.Task.FORMULAS,
        "judged": judged_items_count(campaign),
        "unpooled_runs": unpooled_runs,
        "unjudgeable": unjudgeable,
        "mostly_missing_runs": campaign.runs.filter(mostly_missing=True),
    })


@organizer_required
def pool_topic(request: HttpRequest, pk: int, topic_pk: int) -> HttpResponse:
    """One topic's pool items, in the order assessors see them, with the runs that pooled each."""
    campaign = get_object_or_404(Campaign, pk=pk)
    topic = get_object_or_404(campaign.topics, pk=topic_pk)
    return render(request, "workflow/pool_topic.html", {
        "campaign": campaign, "topic": topic, "items": selectors.pool_topic_items(topic=topic),
        "formulas": campaign.task == Campaign.Task.FORMULAS,
    })


@organizer_required
@require_POST
def pool_build(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    try:
        job = job_create(campaign=campaign, user=request.user,
                         params=PoolBuildParams(force=flag(request.POST.get("force"))))
    except InputError as exc:  # the campaign is being deleted
        for message in exc.messages():
            messages.error(request, message)
        return redirect("workflow:campaign", pk=pk)
    messages.info(request, f"Building pools: job #{job.pk}.")
    return redirect("jobs:job", pk=job.pk)


@organizer_required
@require_POST
def run_matches(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    """Confirms (or takes back) the ids a mostly missing run shares with the collection; the pools must then be
    rebuilt (docs/pooling.md, "Suspect matches")."""
    run = get_object_or_404(Run, pk=run_pk, campaign_id=pk)
    confirmed = request.POST.get("confirmed") != "0"
    try:
        services.run_matches_confirm(run=run, confirmed=confirmed)
    except InputError as exc:
        messages.error(request, "; ".join(exc.messages()))
    else:
        said = "confirmed: they are pooled" if confirmed else "left out of the pools again"
        messages.info(request, f"The ids run {run.name} shares with the collection are {said}. "
                               "Rebuild the pools to apply it.")
    return redirect("workflow:pools", pk=pk)


@organizer_required
@require_http_methods(["POST"])
def run_depth(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    """Sets or clears a run's own pool depth from the pools page; the pools must then be rebuilt."""
    run = get_object_or_404(Run, pk=run_pk, campaign_id=pk)
    try:
        services.run_depth_set(run=run, depth=form_values(RunDepthForm(request.POST))["depth"])
    except InputError as exc:
        messages.error(request, "; ".join(exc.messages()))
    else:
        depth = f"depth {run.depth}" if run.depth else "the campaign's depth"
        messages.info(request, f"Run {run.name} is now pooled to {depth}. Rebuild the pools to apply it.")
    return redirect("workflow:pools", pk=pk)

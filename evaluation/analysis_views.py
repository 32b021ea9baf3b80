"""Organizer pages of the analyses for the overview paper: reusability (leave-one-team-out) of a campaign's
judgments."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from core.api import flag
from core.downloads import attachment, spreadsheet_safe
from core.errors import bad_request_page
from core.forms import form_values
from core.permissions import organizer_required
from evaluation import report
from evaluation.forms import DepthForm
from evaluation.snapshots import reusability_ask, reusability_scores
from evaluation.views import analyses_minutes, computing_response
from ir.problems import InputError
from ir.statistics import reusability_lines
from pooling.models import Campaign


@organizer_required
def reusability_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Leave-one-team-out over the campaign's runs (at its primary depth, or `?depth=K`); `?format=tsv` downloads
    the table as the `reusability` command writes it. A POST (the page's button) asks for the table with the newest
    judgments now rather than on its schedule (docs/evaluation.md)."""
    campaign = get_object_or_404(Campaign, pk=pk)
    if request.method == "POST":
        depth = DepthForm(request.POST)
        if depth.is_valid():
            reusability_ask(campaign=campaign, depth=depth.cleaned_data["depth"])
        query = f"?depth={depth.cleaned_data['depth']}" if depth.is_valid() and depth.cleaned_data["depth"] else ""
        return redirect(reverse("evaluation:reusability", args=[campaign.pk]) + query)
    result, problem, snapshot = None, "", None
    depth_text = request.GET.get("depth", "")
    try:
        snapshot = reusability_scores(campaign=campaign, depth=form_values(DepthForm(request.GET))["depth"])
    except InputError as exc:
        problem = "; ".join(exc.messages())
    else:
        result, problem = snapshot.value, snapshot.problem
    if request.GET.get("format") == "tsv" and snapshot is not None and snapshot.computing:
        return computing_response()
    idle = snapshot is not None and snapshot.idle  # nothing to score yet: the table's header, the page's sentence
    if (result is not None or idle) and request.GET.get("format") == "tsv":
        rows, agreements = (result.rows, result.agreements) if result is not None else ([], [])
        response = HttpResponse("".join(reusability_lines(rows, agreements, cell=spreadsheet_safe)),
                                content_type="text/tab-separated-values; charset=utf-8")
        response["Content-Disposition"] = attachment(campaign.name, "reusability", extension="tsv")
        return response
    measures = list(dict.fromkeys(row.measure for row in result.rows)) if result else []
    table: dict[str, dict] = {}
    if result:
        for row in result.rows:
            table.setdefault(row.run, {"run": row.run, "team": row.team, "unique": row.unique_relevant,
                                       "measures": []})["measures"].append(row)
    return render(request, "evaluation/reusability.html", {
        "campaign": campaign, "result": result, "problem": problem, "measures": measures,
        "table": list(table.values()), "depth": depth_text, "snapshot": snapshot,
        "analyses_minutes": analyses_minutes()},
        status=400 if problem and depth_text else 200)


@organizer_required
def report_download(request: HttpRequest, pk: int) -> HttpResponse | StreamingHttpResponse:
    """The tables for the paper (`report`): `?format=latex|csv`, `?table=results|assessment|both`, `all_topics`."""
    campaign = get_object_or_404(Campaign, pk=pk)
    fmt, table = request.GET.get("format", "latex"), request.GET.get("table", "both")
    try:
        parts = report.report_parts(campaign=campaign, fmt=fmt, table=table,
                                    all_topics=flag(request.GET.get("all_topics")))
    except InputError as exc:
        return bad_request_page(request, exc.messages(), back=reverse("evaluation:leaderboard", args=[campaign.pk]),
                                back_label=f"the leaderboard of {campaign.name}")
    extension = "tex" if fmt == "latex" else "csv"
    response = StreamingHttpResponse(parts, content_type=("text/x-tex" if fmt == "latex" else "text/csv")
                                     + "; charset=utf-8")
    response["Content-Disposition"] = attachment(campaign.name, f"report-{table}", extension=extension)
    return response

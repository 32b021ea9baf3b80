"""Organizer pages: the leaderboard of a campaign's runs, a run's per-topic scores, CSV and qrels downloads."""
from __future__ import annotations

import csv
from dataclasses import dataclass, field

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from characterisation.selectors import characterisation_report
from core.api import flag
from core.downloads import attachment, spreadsheet_safe
from core.errors import bad_request_page
from core.forms import form_values
from core.permissions import organizer_required
from evaluation import board, editions, hybrid_board, llm_board, selectors, services, snapshots, topic_info
from evaluation.forms import QrelsQueryForm
from evaluation.services import Evaluation
from ir.charts import difference_bars, sweep_line
from ir.formats.topic_info import TOPIC_COLUMN
from ir.prime import AR, MEASURES, REPORTED, UNJUDGED, RunScores, finite, format_value
from ir.problems import InputError
from ir.statistics import ranks
from ir.task3_measures import TASK3_REPORTED
from llm import selectors as llm_selectors
from nuggets.scores import nugget_columns
from pooling.models import Campaign, Run


@dataclass
class Row:
    """A run's line of the leaderboard: NaN (a mean over no topic) becomes None, shown as n/a."""

    name: str
    run: Run | None
    kind: str
    means: dict[str, float | None]
    topics: int
    per_topic: dict[str, dict[str, float | None]]
    characterised: list[float | None] = field(default_factory=list)  # the leaderboard's MG, UI, ... columns


def _finite(values: dict[str, float]) -> dict[str, float | None]:
    return {key: finite(value) for key, value in values.items()}


def scores_table(*, campaign: Campaign, evaluation: Evaluation, task3: bool = False) -> list[Row]:
    """The evaluation's runs with their Run rows, best nDCG' first (runs without a mean last); with `task3`, its
    ARQMath-3 Task 3 runs, best AR first."""
    runs = {run.name: run for run in Run.objects.filter(campaign=campaign)}

    def row(scores: RunScores) -> Row:
        run = runs.get(scores.name)
        return Row(name=scores.name, run=run, kind=run.kind if run else "", means=_finite(scores.means),
                   topics=scores.topics, per_topic={t: _finite(v) for t, v in scores.per_topic.items()})

    first = AR if task3 else MEASURES[0]
    rows = [row(scores) for scores in (evaluation.answer_runs if task3 else evaluation.runs)]
    rows.sort(key=lambda r: (r.means.get(first) is None, -(r.means.get(first) or 0.0), r.name))
    return rows


def analyses_minutes() -> int:
    """How often, in minutes, reusability and the sweep follow the judgments (`SCORES_ANALYSES_SECONDS`)."""
    return max(1, round(settings.SCORES_ANALYSES_SECONDS / 60))


def _all_topics(request: HttpRequest) -> bool:
    return flag(request.GET.get("all_topics"))


PAGE_HEADINGS = {"ndcg_prime": "nDCG′", "map_prime": "MAP′", "p10_prime": "P′@10"}
COMPUTING = "The scores are being computed: try again in a moment."
RETRY_SECONDS = 10
SUGGESTED = ("nDCG@10", "P@10", "AP(rel=1)", "Bpref", "RR", "Judged@10")


@organizer_required
def leaderboard(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), pk=pk)
    if request.method == "POST" and request.GET.get("sweep") in ("1", "on"):
        snapshots.fusion_ask(campaign=campaign)  # the sweep's button: with the newest judgments now
        return redirect(request.get_full_path())
    all_topics = _all_topics(request)
    measure = typed = request.GET.get("measure", "").strip() or MEASURES[0]
    extra = [] if measure in REPORTED else [measure]
    problems: list[str] = []
    try:
        snapshot = snapshots.leaderboard(campaign=campaign, all_topics=all_topics, measures=extra)
    except InputError as exc:  # an unknown measure: the prime scores, and why
        problems += exc.messages()
        measure, extra = MEASURES[0], []
        snapshot = snapshots.leaderboard(campaign=campaign, all_topics=all_topics)
    evaluation = snapshot.value
    counts = evaluation.topic_counts if evaluation else []
    rows = scores_table(campaign=campaign, evaluation=evaluation) if evaluation else []
    answer_rows = scores_table(campaign=campaign, evaluation=evaluation, task3=True) if evaluation else []
    characterised = characterisation_report(campaign=campaign)
    for row in rows + answer_rows:
        row.characterised = list(characterised.fractions_of(row.name).values())
    context = {
        "campaign": campaign,
        "all_topics": all_topics,
        "evaluation": evaluation,
        "rows": rows,
        "answer_rows": answer_rows,
        "characterised": characterised,
        "judgments": evaluation.judgments if evaluation else 0,
        "version": evaluation.version if evaluation else "",
        "snapshot": snapshot,
        "topic_counts": counts,
        "few_relevant": [topic for topic, _judged, relevant in counts if relevant < 2],
        "llm_models": llm_selectors.llm_models(campaign=campaign),  # the qrels download's LLM sources
        "formulas": campaign.task == Campaign.Task.FORMULAS,
        "measure": measure,
        "measure_typed": typed,  # the field keeps what was typed, even a measure refused
        "suggested": [*REPORTED, *SUGGESTED],
    }
    if snapshot.editions:  # the campaign's earlier editions: each one's columns, computed with the scores
        found = [*([editions.Edition(campaign.name, evaluation)] if evaluation else []), *snapshot.editions]
        context.update(editions=found, edition_rows=editions.editions_rows(found, order=[r.name for r in rows]),
                       edition_columns=[(label, PAGE_HEADINGS[m]) for label, m in editions.edition_columns(found)])
    if evaluation:
        context.update(_analysis(request, campaign, evaluation, measure, problems))
        context.update(_llm(request, snapshot.llm, rows))
    context.update(_hybrid(request, campaign, problems))  # asked with the scores, so that one job computes both
    if flag(request.GET.get("sweep")):  # the sweep of RRF's k (docs/evaluation.md), from its snapshot
        sweep = snapshots.fusion_sweep(campaign=campaign)
        context.update(sweep=sweep, analyses_minutes=analyses_minutes(),
                       sweep_chart=sweep_line([(row.k, row.value) for row in sweep.value]) if sweep.value else None)
    context["problems"] = problems
    return render(request, "evaluation/leaderboard.html", context, status=400 if problems else 200)


def _analysis(request: HttpRequest, campaign: Campaign, evaluation: Evaluation, measure: str,
              problems: list[str]) -> dict:
    """The analysis part of the leaderboard: intervals and significance marks of `measure`, the category
    breakdown (`?by=COLUMN`) and the per-topic difference of two runs (`?a=RUN&b=RUN`). A bad choice is left out
    and said why in `problems`."""
    names = [run.name for run in evaluation.runs]
    if "baseline" in request.GET:
        baseline = request.GET["baseline"].strip() or None
    else:  # the first run marked as a baseline, if any
        baseline = next(iter(Run.objects.filter(campaign=campaign, baseline=True, name__in=names)
                             .order_by("name").values_list("name", flat=True)), None)
    info = topic_info.campaign_topic_info(campaign=campaign)
    column = request.GET.get("by", "").strip() or None
    found: dict = {"info_columns": [c for c in (info.columns if info else []) if c != TOPIC_COLUMN]}
    wrong_baseline, wrong_column = board.baseline_problem(evaluation, baseline), board.column_problem(info, column)
    problems += [problem for problem in (wrong_baseline, wrong_column) if problem]
    baseline, column = (None if wrong_baseline else baseline), (None if wrong_column else column)
    found.update(baseline=baseline, by=column)
    found["analysis"] = board.cached_board_analysis(evaluation, campaign_pk=campaign.pk, measure=measure,
                                                    baseline=baseline, info=info, column=column)
    # A campaign with micro-topics: their means per parent topic too, when asked (`?parents=1`).
    parents = selectors.topic_parents(campaign=campaign)
    found.update(has_parents=bool(parents), parents=bool(parents) and flag(request.GET.get("parents")))
    if found["parents"]:
        found["parent_means"] = board.parent_means(evaluation, measure, parents)
    run_a, run_b = request.GET.get("a", "").strip(), request.GET.get("b", "").strip()
    if run_a or run_b:
        try:
            differences = board.topic_differences(evaluation, measure, run_a, run_b)
        except InputError as exc:
            problems += exc.messages()
        else:
            found.update(chart=difference_bars(differences), run_a=run_a, run_b=run_b,
                         wins=sum(1 for _t, d in differences if d > 0), losses=sum(1 for _t, d in differences if d < 0))
    return found


@dataclass
class LlmRow:
    """A run's line of the leaderboard's LLM part: its prime means under the people's qrels and under the judge's,
    its rank by nDCG' under each (among the runs shown), the LLM it declares, and whether that is the judge's."""

    name: str
    run: Run | None
    declared: str
    flagged: bool
    people: list[float | None]
    llm: list[float | None]
    people_rank: int | None = None
    llm_rank: int | None = None

    @property
    def pairs(self) -> list[tuple[float | None, float | None]]:
        """(people's, LLM's) of each prime measure: the table's column pairs."""
        return list(zip(self.people, self.llm, strict=True))


def llm_rows(found: llm_board.LlmBoard, rows: list[Row], *, without: bool = False) -> list[LlmRow]:
    """The leaderboard's runs (in its order) with their scores under the judge's qrels; `without`: the runs that
    declare no LLM only. Ranked by nDCG' under each qrels, a run without a mean unranked."""
    shown = [row for row in rows if not (without and row.name in found.declared)]
    result = []
    for row in shown:
        scores = found.scores_of(row.name)
        result.append(LlmRow(name=row.name, run=row.run, declared=found.declared.get(row.name, ""),
                             flagged=found.flagged(row.name), people=[row.means.get(m) for m in MEASURES],
                             llm=[finite(scores.means.get(m, float("nan"))) if scores else None for m in MEASURES]))
    for slot, source in (("people_rank", "people"), ("llm_rank", "llm")):
        ranked = ranks({line.name: getattr(line, source)[0] for line in result if getattr(line, source)[0] is not None})
        for line in result:
            setattr(line, slot, ranked.get(line.name))
    return result


def _llm(request: HttpRequest, found: llm_board.LlmBoard | None, rows: list[Row]) -> dict:
    """The LLM part of the leaderboard (`?llm_runs=without`: without the runs that declare an LLM)."""
    if found is None:
        return {}
    without = request.GET.get("llm_runs") == "without"
    return {"llm": found, "llm_without": without,
            "llm_rows": llm_rows(found, rows, without=without) if not found.problem else [],
            "llm_correlations": found.without if without else found.correlations,
            "llm_flagged": [name for name in found.declared if found.flagged(name)]}


def _hybrid(request: HttpRequest, campaign: Campaign, problems: list[str]) -> dict:
    """The runs under hybrid qrels (`?model=`: of that model's calibration, else the latest); a model without one is
    said in `problems` and the latest shown instead."""
    try:
        found = snapshots.hybrid(campaign=campaign, model=request.GET.get("model", "").strip() or None)
    except InputError as exc:
        problems += exc.messages()
        found = snapshots.hybrid(campaign=campaign)
    if found is None:
        return {}
    return {"hybrid": found, "hybrid_models": hybrid_board.calibrated_models(campaign=campaign)}


def computing_response() -> HttpResponse:
    """Before the first scores of what was asked are computed: try again in a moment."""
    response = HttpResponse(COMPUTING, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(RETRY_SECONDS)
    return response


@organizer_required
def run_scores(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    run = get_object_or_404(Run, pk=run_pk, campaign=campaign)
    all_topics = _all_topics(request)
    snapshot = snapshots.leaderboard(campaign=campaign, all_topics=all_topics)
    if snapshot.computing:
        return computing_response()
    evaluation = snapshot.value
    task3 = run.format == Run.Format.ARQMATH_TASK3
    row = next((r for r in scores_table(campaign=campaign, evaluation=evaluation, task3=task3) if r.run == run),
               None) if evaluation else None
    if row is None and evaluation:
        raise Http404("This run has no scores")
    titles = dict(campaign.topics.values_list("topic_id", "title"))
    per_topic = [(topic, titles.get(topic, ""), values) for topic, values in row.per_topic.items()] if row else []
    # Unjudged@10's mean is over every topic the run retrieved, which can be more or fewer than the prime means'.
    unjudged = sum(1 for _topic, _title, values in per_topic if values.get(UNJUDGED) is not None)
    return render(request, "evaluation/run_scores.html", {
        "campaign": campaign, "run": run, "row": row, "per_topic": per_topic, "all_topics": all_topics,
        "table": "task3" if task3 else "", "unjudged_topics": unjudged})


@organizer_required
def leaderboard_csv(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    all_topics = _all_topics(request)
    snapshot = snapshots.leaderboard(campaign=campaign, all_topics=all_topics)
    if snapshot.computing:
        return computing_response()
    evaluation = snapshots.scores_or_empty(snapshot, campaign=campaign, all_topics=all_topics)  # no run: headers only
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = attachment(campaign.name, "leaderboard", extension="csv")
    writer = csv.writer(response)
    tables: list[tuple[str, tuple[str, ...], list[Row]]] = [
        ("run", (*REPORTED, *nugget_columns(evaluation.measures)),
         scores_table(campaign=campaign, evaluation=evaluation))]
    answer_rows = scores_table(campaign=campaign, evaluation=evaluation, task3=True)
    characterised = characterisation_report(campaign=campaign)  # MG, UI, ...: every question, after topics
    if answer_rows:  # an answers campaign's ARQMath-3 Task 3 runs: a second table below the first
        tables.append(("task3_run", TASK3_REPORTED, answer_rows))
    for n, (first, measures, rows) in enumerate(tables):
        if n:
            writer.writerow([])
        writer.writerow([first, "kind", "manual", "baseline", *measures, "topics",
                         *map(spreadsheet_safe, characterised.labels)])
        for row in rows:
            writer.writerow([spreadsheet_safe(row.name), row.kind, int(bool(row.run and row.run.manual)),
                             int(bool(row.run and row.run.baseline)),
                             *[format_value(row.means.get(c)) for c in measures], row.topics,
                             *map(format_value, characterised.fractions_of(row.name).values())])
    parents = selectors.topic_parents(campaign=campaign)
    if parents:  # micro-topics (docs/analysis.md): each run's means over parent topics, a table of their own at the end
        means = board.parent_table(evaluation, parents, MEASURES)
        writer.writerow([])
        writer.writerow(["parents_run", *MEASURES])
        for scores in evaluation.runs:
            writer.writerow([spreadsheet_safe(scores.name),
                             *(format_value(means.get(scores.name, {}).get(m)) for m in MEASURES)])
    if snapshot.editions:  # the campaign's earlier editions: the report's editions table, from the same scores
        writer.writerow([])
        writer.writerows(editions.editions_csv_rows([editions.Edition(campaign.name, evaluation), *snapshot.editions],
                                                    first="edition_run"))
    found = snapshot.llm
    if found is not None and found.runs:  # the campaign's LLM judge (docs/evaluation.md): the runs under its qrels,
        # and how that ranking agrees with the people's; the same values as the page and the API's `llm`
        writer.writerow([])
        writer.writerow(["llm_run", "model", "declared_llm", "flagged", *REPORTED, "topics"])
        for scores in found.runs:
            writer.writerow([spreadsheet_safe(scores.name), spreadsheet_safe(found.model),
                             spreadsheet_safe(found.declared.get(scores.name, "")), int(found.flagged(scores.name)),
                             *(format_value(scores.means.get(m)) for m in REPORTED), scores.topics])
        writer.writerow([])
        writer.writerow(["llm_correlation", "runs_compared", "runs", "topics", "kendall_tau", "tau_low", "tau_high",
                         "tau_ap", "tau_ap_low", "tau_ap_high"])
        for compared, correlations in (("all", found.correlations), ("without_declared_llm", found.without)):
            for tau in correlations:
                writer.writerow([tau.measure, compared, tau.runs, tau.topics,
                                 *map(format_value, (tau.kendall_tau, tau.tau_low, tau.tau_high, tau.tau_ap,
                                                     tau.tau_ap_low, tau.tau_ap_high))])
    hybrid = snapshots.hybrid(campaign=campaign)
    if hybrid is not None and hybrid.value is not None:  # the latest calibration's board, as the page shows it
        found_hybrid = hybrid.value
        writer.writerow([])
        writer.writerow(["hybrid_run", "model", "calibration_version", "measure", "official", "official_rank",
                         "hybrid", "hybrid_low", "hybrid_high", "rank_best", "rank_worst"])
        for line in found_hybrid.rows:
            writer.writerow([spreadsheet_safe(line.run), spreadsheet_safe(found_hybrid.model),
                             found_hybrid.calibration_version, found_hybrid.measure, format_value(line.official),
                             line.official_rank or "", *map(format_value, (line.hybrid, line.low, line.high)),
                             line.rank_best, line.rank_worst])
    return response


@organizer_required
def qrels_download(request: HttpRequest, pk: int) -> HttpResponse | StreamingHttpResponse:
    """The qrels file (?source= official|people, adjudicated, llm, llm:MODEL, combined); ?sources=1: instead, the side
    file naming each line's source."""
    campaign = get_object_or_404(Campaign, pk=pk)
    source = request.GET.get("source", services.OFFICIAL)
    side = flag(request.GET.get("sources"))
    try:
        values = form_values(QrelsQueryForm(request.GET))
        options = {"campaign": campaign, "level": request.GET.get("level", selectors.VISUAL),
                   "min_relevant": values["min_relevant"], "complete": flag(request.GET.get("complete")),
                   "source": source}
        lines = (services.qrels_sources_lines(**options) if side
                 else services.qrels_export_lines(**options, round=values["round"]))
    except InputError as exc:
        return bad_request_page(request, exc.messages(), back=reverse("evaluation:leaderboard", args=[campaign.pk]),
                                back_label=f"the qrels and leaderboard of {campaign.name}")
    response = StreamingHttpResponse(lines, content_type="text/plain; charset=utf-8")
    number = values["round"]
    kind = services.qrels_source_parse(source).kind
    named: tuple[str, ...] = ()
    if kind == services.ADJUDICATED:
        named = ("adjudicated", f"round-{number}" if number else "dual")
    elif kind != services.OFFICIAL:
        named = (source.replace(":", "-"),)
    response["Content-Disposition"] = attachment(campaign.name, "qrels", *named, *(("sources",) if side else ()),
                                                 extension="tsv" if side else "txt")
    return response

"""Tables for the overview paper (docs/analysis.md, "Tables for the paper"), in LaTeX or CSV: the results table in the
shape of the ARQMath overviews and the assessment table of ARQMath-3's topic information file. docs/analysis.md gives
the layout."""
from __future__ import annotations

import csv
import hashlib
import io
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from django.core.cache import cache

from characterisation.selectors import characterisation_report
from core.downloads import spreadsheet_safe
from evaluation import analysis_services, editions, selectors, services, snapshots
from evaluation.board import ALPHA
from evaluation.reusability import run_team
from ir.latex import HEADINGS, latex_escape
from ir.prime import MEASURES, finite, format_value, natural_key
from ir.problems import InputError
from judging.models import Assignment, ItemVisit
from judging.progress import ProgressRow, progress_report, visit_timing
from pooling.models import Campaign, Run
from pooling.selectors import pool_sizes

FORMATS = ("latex", "csv")
TABLES = ("results", "assessment", "both")
DATA = {"both": "Both", "math": "Math", "text": "Text", "": ""}
GRADES = (("H", 3), ("M", 2), ("L", 1), ("N", 0))  # ARQMath's columns of the assessment table


def grade_columns(campaign: Campaign) -> tuple[tuple[str, int], ...]:
    """The assessment table's grade columns: ARQMath's H/M/L/N for the arqmath scheme, else each grade of the
    campaign's scheme under its label, highest first (docs/judging.md)."""
    scheme = campaign.judging_scheme
    if scheme.name == "arqmath":
        return GRADES
    return tuple((grade.label, grade.value) for grade in scheme.grades)


@dataclass
class ResultRow:
    team: str
    run: str
    baseline: bool
    primary: bool
    manual: bool
    data: str
    values: dict[str, float | None]
    below_best: dict[str, bool] = field(default_factory=dict)  # significantly below the column's best run
    characterised: dict[str, float | None] = field(default_factory=dict)  # MG, UI, ...: every question's fraction


@dataclass
class AssessmentRow:
    topic: str
    assessor: str
    pool: int
    grades: dict[str, int]  # H, M, L, N (or the scheme's labels: grade_columns) -> how many
    seconds: float | None  # per judged item


def results_rows(*, campaign: Campaign, evaluation: services.Evaluation) -> list[ResultRow]:
    """The evaluation's runs in the overviews' order: baselines first, then teams by their best primary run (their
    best run when none is primary), within a team primary runs first, each group best first, by the first measure.
    A value is marked when the run is significantly below that column's best run (randomization test, Holm). When
    the campaign has characterisation questions, each row has their fractions (MG, UI: docs/evaluation.md)."""
    facts = {run.name: run for run in Run.objects.filter(campaign=campaign)}
    characterised = characterisation_report(campaign=campaign)
    rows = []
    for scores in evaluation.runs:
        run = facts.get(scores.name)
        rows.append(ResultRow(team=run_team(run) if run else scores.name, run=scores.name,
                              baseline=bool(run and run.baseline), primary=not (run and run.alternate),
                              manual=bool(run and run.manual), data=run.data_used if run else "",
                              values={m: finite(scores.means[m]) for m in MEASURES},
                              characterised=characterised.fractions_of(scores.name)))
    first = MEASURES[0]

    def score(row: ResultRow) -> float:
        value = row.values[first]
        return -value if value is not None else math.inf

    best_of_team: dict[str, float] = {}
    for row in rows:
        if row.primary or not any(r.primary for r in rows if r.team == row.team):
            best_of_team[row.team] = min(best_of_team.get(row.team, math.inf), score(row))
    rows.sort(key=lambda r: (not r.baseline, best_of_team[r.team], r.team, not r.primary, score(r), r.run))
    by_run = {r.run: r for r in rows}
    for measure in MEASURES:
        valued = [r for r in rows if r.values[measure] is not None]
        if len(valued) < 2:
            continue
        best = max(valued, key=lambda r: r.values[measure] or 0.0).run
        for name, below in _below_best(evaluation, campaign_pk=campaign.pk, measure=measure, best=best).items():
            by_run[name].below_best[measure] = below
    return rows


def _below_best(evaluation: services.Evaluation, *, campaign_pk: int, measure: str, best: str) -> dict[str, bool]:
    """Run -> whether it is significantly below `best` in `measure`. The randomization tests take about a tenth of
    a second per measure at ARQMath-3's size: scores read from a snapshot (which carry their version) keep the
    answer in the cache under that version, as the leaderboard's analysis does (board.cached_board_analysis)."""
    def compute() -> dict[str, bool]:
        return {c.run_a: c.diff < 0 and c.p_randomization_holm < ALPHA
                for c in analysis_services.significance_table(evaluation, measures=[measure], baseline=best)}

    if not evaluation.version:
        return compute()
    asked = repr((evaluation.version, evaluation.all_topics, evaluation.relevance_level, measure, best))
    key = f"report-below-best:v1:{campaign_pk}:{hashlib.sha256(asked.encode()).hexdigest()[:32]}"
    found = cache.get(key)
    if found is None:
        found = compute()
        cache.set(key, found, services.LEADERBOARD_SECONDS)
    return found


def assessment_rows(*, campaign: Campaign) -> tuple[list[AssessmentRow], AssessmentRow]:
    """Per topic with official judgments (natural order): its official assessor, pool size, the qrels' H/M/L/N
    counts and the seconds per judged item; then the totals (assessors: how many)."""
    qrels = dict(selectors.qrels_topic_grades(campaign=campaign))  # counted: no order needed
    pools = {topic["topic"]: topic["items"] for topic in pool_sizes(campaign=campaign)["topics"]}
    official = {row.topic: row for row in progress_report(campaign=campaign).rows if row.kind == "official"}
    columns = grade_columns(campaign)
    rows = []
    for topic in sorted(qrels, key=natural_key):
        counts = Counter(qrels[topic].values())
        grades = {letter: counts[value] for letter, value in columns}
        mine = official.get(topic)
        rows.append(AssessmentRow(topic=topic, assessor=mine.assessor if mine else "", pool=pools.get(topic, 0),
                                  grades=grades, seconds=mine.seconds_per_item if mine else None))
    visits = ItemVisit.objects.filter(assignment__campaign=campaign, assignment__withdrawn_at__isnull=True,
                                      assignment__kind=Assignment.Kind.OFFICIAL, assignment__topic__topic_id__in=qrels)
    everyone = ProgressRow("all", "all", "", 0, 0, 0, **visit_timing(visits)[()])
    total = AssessmentRow(topic="Total", assessor=str(len({r.assessor for r in rows if r.assessor})),
                          pool=sum(r.pool for r in rows),
                          grades={letter: sum(r.grades[letter] for r in rows) for letter, _ in columns},
                          seconds=everyone.seconds_per_item)
    return rows, total


# LaTeX -------------------------------------------------------------------------------------------------------------

def _labels(rows: Sequence[ResultRow]) -> list[str]:
    """The characterisation questions' labels (MG, UI, ...), columns after the measures; none without questions."""
    return list(rows[0].characterised) if rows else []


def results_latex(rows: Sequence[ResultRow], *, caption: str) -> str:
    best = {m: max((v for r in rows if (v := r.values[m]) is not None), default=None) for m in MEASURES}
    labels = _labels(rows)
    lines = [r"\begin{table}", r"\centering", rf"\caption{{{latex_escape(caption)}}}",
             rf"\begin{{tabular}}{{llccc{'c' * (len(MEASURES) + len(labels))}}}", r"\toprule",
             "Team & Run & Data & P & M & " + " & ".join([*(HEADINGS[m] for m in MEASURES), *map(latex_escape, labels)])
             + r" \\", r"\midrule"]
    for i, row in enumerate(rows):
        if i and rows[i - 1].baseline and not row.baseline:
            lines.append(r"\midrule")
        name = latex_escape(row.run)
        cells = [latex_escape(row.team), f"({name})" if row.baseline else name, DATA.get(row.data, row.data),
                 r"\checkmark" if row.primary else "", r"\checkmark" if row.manual else ""]
        for m in MEASURES:
            value = format_value(row.values[m])
            value = rf"\textbf{{{value}}}" if row.values[m] is not None and row.values[m] == best[m] else value
            cells.append(value + (r"$^\dagger$" if row.below_best.get(m) else ""))
        cells += [format_value(row.characterised[label]) for label in labels]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", "", r"\smallskip", "",
              rf"{{\footnotesize Baselines in parentheses. P: primary run; M: manual run. Best of each measure in "
              rf"bold; $\dagger$: significantly below that column's best run (paired randomization test, Holm's "
              rf"correction, $p < {ALPHA}$)."
              + (f" {latex_escape(', '.join(labels))}: share of the run's characterised answers marked yes."
                 if labels else "") + "}", r"\end{table}", ""]
    return "\n".join(lines)


def assessment_latex(rows: Sequence[AssessmentRow], total: AssessmentRow, *, caption: str) -> str:
    grades = list(total.grades)  # the columns of the campaign's scheme (grade_columns)
    lines = [r"\begin{table}", r"\centering", rf"\caption{{{latex_escape(caption)}}}",
             rf"\begin{{tabular}}{{llr{'r' * len(grades)}r}}", r"\toprule",
             " & ".join(["Topic", "Assessor", "Pool", *map(latex_escape, grades), "s/judgment"]) + r" \\",
             r"\midrule"]
    for row in [*rows, total]:
        if row is total:
            lines.append(r"\midrule")
        seconds = f"{row.seconds:.1f}" if row.seconds is not None else "--"
        lines.append(" & ".join([latex_escape(row.topic), latex_escape(row.assessor), str(row.pool),
                                 *(str(row.grades[g]) for g in grades), seconds]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


# CSV ---------------------------------------------------------------------------------------------------------------

def results_csv(rows: Sequence[ResultRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    labels = _labels(rows)
    writer.writerow(["team", "run", "baseline", "primary", "manual", "data", *MEASURES, *map(_cell, labels),
                     *(f"{m}_below_best" for m in MEASURES)])
    for row in rows:
        writer.writerow([_cell(row.team), _cell(row.run), int(row.baseline), int(row.primary), int(row.manual),
                         row.data, *(format_value(row.values[m]) for m in MEASURES),
                         *(format_value(row.characterised[label]) for label in labels),
                         *(int(row.below_best.get(m, False)) for m in MEASURES)])
    return out.getvalue()


def assessment_csv(rows: Sequence[AssessmentRow], total: AssessmentRow) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    grades = list(total.grades)  # the columns of the campaign's scheme (grade_columns)
    writer.writerow(["topic", "assessor", "pool", *map(_cell, grades), "seconds_per_judgment"])
    for row in [*rows, total]:
        writer.writerow([_cell(row.topic), _cell(row.assessor), row.pool, *(row.grades[g] for g in grades),
                         f"{row.seconds:.1f}" if row.seconds is not None else ""])
    return out.getvalue()


def _cell(text: str) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula."""
    return spreadsheet_safe(text)


# The report --------------------------------------------------------------------------------------------------------

def _last_scores(campaign: Campaign, all_topics: bool) -> snapshots.Snapshot:
    snapshot = snapshots.leaderboard(campaign=campaign, all_topics=all_topics)
    if snapshot.computing:
        raise InputError("the scores are being computed: try again in a moment")
    if snapshot.value is None:
        raise InputError(snapshot.problem)
    return snapshot


def report_parts(*, campaign: Campaign, fmt: str, table: str = "both", all_topics: bool = False,
                 compute: bool = False) -> Iterator[str]:
    """The campaign's tables in `fmt` (latex or csv): the results (from its official judgments: the leaderboard's
    last scores, or with `compute` scored now, as a command does), the assessment, or both (CSV: the tables
    separated by an empty line); after them, when the results are asked for and the campaign has earlier editions,
    its runs across editions (editions.py: from the same snapshot, or computed now). The arguments and the scores are
    checked before the first part; the results go out before the assessment table is read (what a download
    streams)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format '{fmt}'; expected one of {', '.join(FORMATS)}")
    if table not in TABLES:
        raise InputError(f"unknown table '{table}'; expected one of {', '.join(TABLES)}")
    evaluation, across = None, []
    if table in ("results", "both"):
        if compute:
            evaluation = services.evaluate_campaign(campaign=campaign, all_topics=all_topics)
            across = editions.campaign_edition_results(campaign=campaign, own=evaluation, all_topics=all_topics)
        else:
            snapshot = _last_scores(campaign, all_topics)
            evaluation = snapshot.value
            across = editions.campaign_edition_results(campaign=campaign, own=evaluation, earlier=snapshot.editions)
    return _parts(campaign, fmt, evaluation, across, assessment=table in ("assessment", "both"))


def _parts(campaign: Campaign, fmt: str, evaluation: services.Evaluation | None, across: list[editions.Edition], *,
           assessment: bool) -> Iterator[str]:
    if evaluation is not None:
        rows = results_rows(campaign=campaign, evaluation=evaluation)
        yield (results_latex(rows, caption=f"Results of {campaign.name}") if fmt == "latex"
               else results_csv(rows))
    if assessment:
        topics, total = assessment_rows(campaign=campaign)
        yield ("\n" if evaluation is not None else "") + (
            assessment_latex(topics, total, caption=f"Assessment of {campaign.name}") if fmt == "latex"
            else assessment_csv(topics, total))
    if across:
        yield "\n" + (editions.editions_latex(across, caption=f"Results of {campaign.name} across editions")
                      if fmt == "latex" else editions.editions_csv(across))


def report(*, campaign: Campaign, fmt: str, table: str = "both", all_topics: bool = False,
           compute: bool = False) -> str:
    """The whole of `report_parts` as one text (the command's output)."""
    return "".join(report_parts(campaign=campaign, fmt=fmt, table=table, all_topics=all_topics, compute=compute))

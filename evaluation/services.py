"""Qrels export and run evaluation: the same code for the commands, the API and the leaderboard page."""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from io import StringIO

from django.db.models import QuerySet

from agreement import reports as assessor_reports
from evaluation import scoring, selectors

# The readers of run files and stored runs are scoring's, with the one way to score; the judging simulator
# (simulation/services.py) and the commands read runs through these names.
from evaluation.scoring import ANSWERS as ANSWERS
from evaluation.scoring import FORMULAS as FORMULAS
from evaluation.scoring import file_problem as file_problem
from evaluation.scoring import raise_problems as raise_problems
from evaluation.scoring import read_qrels_file as read_qrels_file
from evaluation.scoring import read_run_file as read_run_file
from evaluation.scoring import stored_run_lists as stored_run_lists
from evaluation.scoring import task_of as task_of
from ir.formats.textio import TextSink
from ir.grades import MARK_NUMBERS, RELEVANCE_LEVEL, is_relevant
from ir.measures import check_level as check_level
from ir.prime import REPORTED, Qrels, RunScores, natural_key
from ir.problems import InputError
from ir.qrels import QrelsSummary, qrels_lines
from ir.scoring import row_lines, rows_of
from ir.task3_measures import MEASURES as TASK3_MEASURES
from llm import selectors as llm_selectors
from nuggets import scores as nugget_scores
from pooling.models import Campaign, Run

OFFICIAL, ADJUDICATED = "official", "adjudicated"
# "people" is the official judgments (the name beside the LLM's); "llm" or "llm:MODEL" a model's grades alone;
# "combined" people's grades and, for pool items no official judgment covers, the LLM's; "hybrid" the same with the
# calibrated LLM's most probable grade (docs/llm_calibration.md).
PEOPLE, LLM, COMBINED, HYBRID = "people", "llm", "combined", "hybrid"
SOURCES = (OFFICIAL, ADJUDICATED, PEOPLE, LLM, COMBINED, HYBRID)
SOURCES_HELP = "official (or people), adjudicated, llm, llm:MODEL, combined or hybrid (also :MODEL)"


@dataclass(frozen=True)
class QrelsSource:
    """A qrels source as asked: its kind (OFFICIAL for "people" too) and, for the LLM's, the model (None: the
    campaign's default model)."""
    kind: str
    model: str | None = None

    @property
    def uses_llm(self) -> bool:
        return self.kind in (LLM, COMBINED, HYBRID)


def qrels_source_parse(source: str) -> QrelsSource:
    """"official", "people", "adjudicated", "llm", "llm:MODEL", "combined" or "hybrid" (also "combined:MODEL",
    "hybrid:MODEL"); InputError otherwise."""
    kind, _, model = source.partition(":")
    if kind == PEOPLE:
        kind = OFFICIAL
    if kind not in SOURCES or (model and kind not in (LLM, COMBINED, HYBRID)) or (_ and not model):
        raise InputError(f"unknown source '{source[:60]}'; expected {SOURCES_HELP}")
    return QrelsSource(kind, model or None)


def _combined_rows(campaign: Campaign, model: str, level: str, complete: bool,
                   sources: dict[tuple[str, str], str] | None, hybrid: dict[str, dict[str, int]] | None = None):
    """People's official qrels, and for the pool items (formulas at the instance level: the selected instances)
    without any official judgment (SF and DK count as judged: a person looked), the model's grade, or the
    calibrated most probable grade `hybrid` gives. `sources` gets (topic, item) -> "people" or "llm:MODEL"
    ("hybrid:MODEL") for every row."""
    people = dict(selectors.qrels_by_topic(campaign=campaign, level=level, complete=True))
    llm = ({topic: list(items.items()) for topic, items in hybrid.items()} if hybrid is not None
           else dict(llm_selectors.llm_qrels_by_topic(campaign=campaign, model=model, level=level)))
    pooled = selectors.pool_units(campaign=campaign, level=level)
    name = f"{HYBRID}:{model}" if hybrid is not None else llm_selectors.llm_name(model)
    for topic in sorted(people.keys() | llm.keys(), key=natural_key):
        judged = dict(people.get(topic, []))
        filled = {item: grade for item, grade in llm.get(topic, []) if item not in judged
                  and (topic, item) in pooled}
        kept = {item: grade for item, grade in judged.items() if complete or grade not in MARK_NUMBERS.values()}
        rows = sorted([*kept.items(), *filled.items()], key=lambda row: natural_key(row[0]))
        if sources is not None:
            sources.update({(topic, item): PEOPLE for item in kept})
            sources.update({(topic, item): name for item in filled})
        if rows:
            yield topic, rows


def _source_rows(campaign: Campaign, source: str, round: int | None, level: str, complete: bool,
                 sources: dict[tuple[str, str], str] | None = None):
    """The (topic, rows) a source gives: the official judgments (with the dual assessment's official adjudicated
    grades), the adjudicated grades of training round `round` (of the dual assessment without a round), a model's
    grades, or people's with the model's where no person judged (`sources` gets each row's source)."""
    asked = qrels_source_parse(source)
    if round is not None and asked.kind != ADJUDICATED:
        raise InputError("a round is given with the adjudicated source only (--source adjudicated --round N)")
    if asked.kind == OFFICIAL:
        return selectors.qrels_by_topic(campaign=campaign, level=level, complete=complete)
    if asked.uses_llm:
        model = llm_selectors.llm_model_chosen(campaign=campaign, model=asked.model)
        if asked.kind == LLM:
            return llm_selectors.llm_qrels_by_topic(campaign=campaign, model=model, level=level)
        if asked.kind == COMBINED:
            return _combined_rows(campaign, model, level, complete, sources)
        if level != selectors.VISUAL:
            raise InputError("the hybrid source is calibrated by visual id: export it at the visual level")
        return _combined_rows(campaign, model, level, complete, sources,
                              llm_selectors.calibrated_grades(campaign=campaign, model=model))
    kind = assessor_reports.TRAINING if round is not None else assessor_reports.DUAL
    groups = assessor_reports.group_select(campaign=campaign, kind=kind, round=round)
    if not groups:
        raise InputError(f"campaign '{campaign.name}' has no dual assessment: give the training round "
                         "(--round N)")
    return selectors.adjudicated_qrels_by_topic(campaign=campaign, kind=kind, round=assessor_reports.group_round(
        groups[0]), level=level, complete=complete)


def qrels_export_lines(*, campaign: Campaign, level: str = selectors.VISUAL, min_relevant: int | None = None,
                       summary: QrelsSummary | None = None, complete: bool = False, source: str = OFFICIAL,
                       round: int | None = None, sources: dict[tuple[str, str], str] | None = None
                       ) -> Iterator[str]:
    """The campaign's qrels lines (docs/evaluation.md), topic by topic as they are read: what streams to a download.
    SF and DK are left out, or with `complete` written as grades 5 and 6 (the organizers' complete qrels).
    `source`: the official judgments (default, also "people"), the organizer's adjudicated grades of training round
    `round` (of the dual assessment when no round is given; docs/agreement.md), an LLM's grades ("llm" for the
    campaign's model, "llm:MODEL"), or "combined": people's, and the LLM's for pool items no official judgment
    covers ("hybrid": the calibrated LLM's), each row's source going to `sources` (docs/formats.md).
    `min_relevant` counts the items relevant at the campaign's relevance level. The arguments are checked before the
    first line; `summary` fills in as the lines go."""
    if level not in selectors.LEVELS:
        raise InputError(f"unknown level '{level}'; expected one of {', '.join(selectors.LEVELS)}")
    if level == selectors.INSTANCE and campaign.task != FORMULAS:
        raise InputError("the instance level is for formula campaigns; answer qrels are by post")
    if min_relevant is not None and min_relevant < 0:
        raise InputError(f"the minimum of relevant items must be 0 or more, not {min_relevant}")
    return qrels_lines(_source_rows(campaign, source, round, level, complete, sources), min_relevant=min_relevant,
                       relevance_level=campaign.relevance_level, summary=summary)


def facets_export(*, campaign: Campaign, out: TextSink) -> int:
    """Writes every facet's answer of the official judgments (export_qrels --facets): a header line, then topic, item
    id, an option per facet (the scheme's order) and the grade written to the qrels; the number of rows."""
    facets = [f.name for f in campaign.judging_scheme.facets]
    if not facets:
        raise InputError(f"campaign '{campaign.name}' judges with {campaign.judging_scheme.name}, which has no facets")
    out.write("\t".join(["topic", "item_id", *facets, "grade"]) + "\n")
    rows = selectors.official_facets(campaign=campaign)
    for topic_id, item_id, answers, grade in rows:
        out.write("\t".join([topic_id, item_id, *(answers.get(name, "") for name in facets), grade]) + "\n")
    return len(rows)


def qrels_export(*, campaign: Campaign, out: TextSink, level: str = selectors.VISUAL,
                 min_relevant: int | None = None, complete: bool = False, source: str = OFFICIAL,
                 round: int | None = None, sources_out: TextSink | None = None) -> QrelsSummary:
    """Writes the campaign's qrels to `out`; returns what was written and which topics were left out. With
    `sources_out`, also the source of every line written (the combined source's side file, docs/formats.md)."""
    summary = QrelsSummary()
    sources: dict[tuple[str, str], str] = {}
    single = ""  # the one source of every line of an export that is not combined
    if sources_out is not None:
        asked = qrels_source_parse(source)
        single = (PEOPLE if asked.kind == OFFICIAL else asked.kind if asked.kind != LLM
                  else llm_selectors.llm_name(llm_selectors.llm_model_chosen(campaign=campaign, model=asked.model)))
        sources_out.write("topic\titem_id\tsource\n")
    for line in qrels_export_lines(campaign=campaign, level=level, min_relevant=min_relevant, summary=summary,
                                   complete=complete, source=source, round=round, sources=sources):
        out.write(line)
        if sources_out is not None:
            topic, _zero, item, _grade = line.rstrip("\n").split("\t")
            sources_out.write(f"{topic}\t{item}\t{sources.get((topic, item), single)}\n")
    return summary


def qrels_sources_lines(*, campaign: Campaign, level: str = selectors.VISUAL, min_relevant: int | None = None,
                        complete: bool = False, source: str = COMBINED) -> list[str]:
    """The side file of an export alone (the web download's and the API's ?sources=1): its header, then topic, item
    id and source of every line the same export writes. Made whole before it is sent, so that a rejected request is
    a 400, not a cut download."""
    qrels, side = StringIO(), StringIO()
    qrels_export(campaign=campaign, out=qrels, level=level, min_relevant=min_relevant, complete=complete,
                 source=source, sources_out=side)
    return side.getvalue().splitlines(keepends=True)


@dataclass
class Evaluation:
    """Every run's scores against one qrels, with what the qrels hold per topic: (topic, judged, relevant at
    `relevance_level`)."""

    runs: list[RunScores]
    qrels_topics: int
    all_topics: bool
    topic_counts: list[tuple[str, int, int]] = field(default_factory=list)
    # What the qrels hold, as the export writes them: judged posts (answers) or visual ids (formulas), SF and DK out;
    # for formulas also the judged instances (the instance-level export). Campaigns only.
    judgments: int = 0
    instances: int | None = None
    version: str = ""  # the campaign's scores_version the scores were computed at (campaigns only)
    measures: list[str] = field(default_factory=lambda: list(REPORTED))  # what each run reports, in order
    topics: list[str] = field(default_factory=list)  # the qrels' topics, in natural order: what analyses pair over
    relevance_level: int = RELEVANCE_LEVEL
    # An answers campaign's ARQMath-3 Task 3 runs: AR, P@1 and LO (evaluation/task3.py); `runs` are its Task 1 runs.
    answer_runs: list[RunScores] = field(default_factory=list)

    def lines(self, *, per_topic: bool = False, label: str | None = None) -> Iterator[str]:
        """What `evaluate` and the API's TSV write of these scores (docs/evaluation.md), the one writer of both: the
        runs' rows, then the Task 3 runs', each run's topics' rows (with `per_topic`) before its means; `label` after
        the run (editions)."""
        rows = [*rows_of(self.runs, self.measures), *rows_of(self.answer_runs, TASK3_MEASURES)]
        return row_lines(rows, per_topic=per_topic, label=label)


def evaluate_campaign(*, campaign: Campaign, all_topics: bool = False, runs: Sequence[Run] | None = None,
                      measures: Sequence[str] = (), relevance_level: int | None = None,
                      qrels: Qrels | None = None, qrels_items: QuerySet | None = None) -> Evaluation:
    """Scores the campaign's runs (or the given ones) against its official judgments (`scoring.score` of their
    `StoredRuns`), at the campaign's relevance level unless another is given; `measures` (ir_measures names) are
    computed beside the prime ones, and `ar`/`p1` of an answer run's first result. An answers campaign's Task 3 runs
    are scored apart, on their answers (`answer_runs`: AR, P@1, LO). `qrels` given (another source's, as the LLM's)
    are scored against instead of the official judgments; `qrels_items`, the query of their items
    (`values("item_id")`), lets an answers campaign read only the rows the prime filter needs, as for the official
    qrels; without it, runs are read whole. With the official judgments, the runs with sentences (TREC RAG) get
    their nugget and support scores from the official support labels (`with_nugget_scores`); a campaign with such
    labels and no judgment is scored on them alone."""
    level = campaign.relevance_level if relevance_level is None else relevance_level
    judged = (scoring.official_judgments(campaign=campaign) if qrels is None
              else scoring.campaign_grades(campaign=campaign, qrels=qrels, judged_items=qrels_items))
    runs = list(Run.objects.filter(campaign=campaign).order_by("name")) if runs is None else list(runs)
    nugget_scores.check_asked(measures, campaign=campaign, runs=runs)
    # The people's support labels are scored with the people's judgments only, never beside another source's.
    nuggets = (scoring.score(scoring.StoredSentences(campaign, runs), scoring.SupportLabels(campaign),
                             all_topics=all_topics) if qrels is None else None)
    held = scoring.ranked_qrels(judged.qrels)  # SF and DK out, posts and Task 3 answers together
    empty = scoring.Scores(rows=[], measures=[], topics=[], all_topics=all_topics, relevance_level=level)
    if nuggets is not None and nuggets.rows and not held:  # support labels but no judgment: nothing else to score
        ranked = answers = empty
    else:
        ranked = scoring.score(scoring.StoredRuns(campaign, runs), judged, measures=measures, all_topics=all_topics,
                               relevance_level=level)
        answers = scoring.score(scoring.StoredAnswers(campaign, runs), judged, all_topics=all_topics,
                                relevance_level=level)
    counts = [(topic, len(items), sum(1 for grade in items.values() if is_relevant(grade, level)))
              for topic, items in held.items()]
    instances = (selectors.qrels_row_count(campaign=campaign, level=selectors.INSTANCE)
                 if campaign.task == FORMULAS and qrels is None else None)
    found = Evaluation(runs=ranked.runs, qrels_topics=len(held), all_topics=all_topics, topic_counts=counts,
                       judgments=sum(count for _topic, count, _relevant in counts), instances=instances,
                       measures=ranked.measures, topics=ranked.topics, relevance_level=level,
                       answer_runs=answers.runs)
    return found if nuggets is None else with_nugget_scores(found, nuggets, order=[run.name for run in runs])


def with_nugget_scores(evaluation: Evaluation, nuggets: scoring.Scores, *, order: Sequence[str]) -> Evaluation:
    """`evaluation` with the nugget and support scores `nuggets` (`scoring.StoredSentences`' against the support
    labels) beside its runs' other measures, as rows of the same runs (docs/evaluation.md, "Nugget and support
    scores"), any it held before replaced: the leaderboard, the analyses and the tables read them as any measure.
    Its topics, what the analyses pair runs over, gain the topics scored."""
    measures = [m for m in evaluation.measures if m not in nugget_scores.NUGGET_MEASURES]
    evaluation.runs = nugget_scores.merged(evaluation.runs, nuggets.runs, order)
    evaluation.measures = [*measures, *nuggets.measures]
    evaluation.topics = sorted({*evaluation.topics, *nuggets.topics}, key=natural_key)
    return evaluation


def campaign_nugget_scores(*, campaign: Campaign, all_topics: bool = False) -> scoring.Scores:
    """The nugget and support scores of the campaign's runs with sentences, against its official support labels."""
    return scoring.score(scoring.StoredSentences(campaign), scoring.SupportLabels(campaign), all_topics=all_topics)


LEADERBOARD_SECONDS = 24 * 3600  # how long an analysis of the scores stays cached (board.cached_board_analysis)


def evaluate_files(*, qrels_path: str | os.PathLike, run_paths: Sequence[str | os.PathLike], task: str | None = None,
                   formula_index_paths: Sequence[str | os.PathLike] = (), all_topics: bool = False,
                   measures: Sequence[str] = (), relevance_level: int = RELEVANCE_LEVEL) -> Evaluation:
    """Scores run files against a qrels file, as the official scripts do (`scoring.score` of their `RunFiles`). Runs
    are named by their file names.

    The task comes from the first run's shape unless given (6 columns without Q0: formulas). For formulas, the
    formula index files map each formula id to its visual id and the qrels are by visual id; without them each
    formula is its own visual id (qrels by formula id, as in ARQMath-1). `measures` (ir_measures names, and `ar`
    and `p1` of an answer run's first result) are computed beside the prime ones; `relevance_level` binarises MAP',
    P'@10, P@1 and the binary measures named without one. Any problem in any file rejects all."""
    scores = scoring.score(scoring.RunFiles(run_paths, task=task, formula_index_paths=formula_index_paths),
                           scoring.QrelsFile(qrels_path), measures=measures, all_topics=all_topics,
                           relevance_level=relevance_level)
    return Evaluation(runs=scores.runs, qrels_topics=len(scores.topics), all_topics=all_topics,
                      measures=scores.measures, topics=scores.topics, relevance_level=relevance_level)

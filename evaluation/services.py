"""Qrels export and run evaluation: the same code for the commands, the API and the leaderboard page."""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

from django.db.models import QuerySet

from agreement import reports as assessor_reports
from evaluation import selectors, task3
from ir.formats.formula_tsv import read_formula_index
from ir.formats.qrels import qrels_by_topic
from ir.formats.runs import ARQMATH_TASK2, RunColumns, RunSummary, detect_format, read_run_blocks
from ir.formats.textio import TextSink, iter_lines, open_binary
from ir.grades import MARK_NUMBERS, MARKS, RELEVANCE_LEVEL, is_relevant
from ir.measures import MeasureEvaluator, Named, check_level, first_result_asked, parse_measures
from ir.prime import (
    REPORTED,
    Evaluator,
    PrimeRun,
    Qrels,
    RunScores,
    answer_block_lists,
    answer_lists,
    formula_lists,
    natural_key,
    prime_answers,
    prime_of,
)
from ir.problems import InputError, Problems
from ir.qrels import QrelsSummary, qrels_lines
from llm import selectors as llm_selectors
from pooling.models import Campaign, Run

ANSWERS, FORMULAS = Campaign.Task.ANSWERS.value, Campaign.Task.FORMULAS.value
NO_DEPTH_LIMIT = 2**31  # evaluation takes a run as deep as it comes


OFFICIAL, ADJUDICATED = "official", "adjudicated"
# Issue 26: "people" is the official judgments (the name beside the LLM's); "llm" or "llm:MODEL" a model's grades
# alone; "combined" people's grades and, for pool items no official judgment covers, the LLM's.
PEOPLE, LLM, COMBINED = "people", "llm", "combined"
SOURCES = (OFFICIAL, ADJUDICATED, PEOPLE, LLM, COMBINED)
SOURCES_HELP = "official (or people), adjudicated, llm, llm:MODEL or combined"


@dataclass(frozen=True)
class QrelsSource:
    """A qrels source as asked: its kind (OFFICIAL for "people" too) and, for the LLM's, the model (None: the
    campaign's default model)."""
    kind: str
    model: str | None = None

    @property
    def uses_llm(self) -> bool:
        return self.kind in (LLM, COMBINED)


def qrels_source_parse(source: str) -> QrelsSource:
    """"official", "people", "adjudicated", "llm", "llm:MODEL" or "combined" (also "combined:MODEL"); InputError
    otherwise."""
    kind, _, model = source.partition(":")
    if kind == PEOPLE:
        kind = OFFICIAL
    if kind not in SOURCES or (model and kind not in (LLM, COMBINED)) or (_ and not model):
        raise InputError(f"unknown source '{source[:60]}'; expected {SOURCES_HELP}")
    return QrelsSource(kind, model or None)


def _combined_rows(campaign: Campaign, model: str, level: str, complete: bool,
                   sources: dict[tuple[str, str], str] | None):
    """People's official qrels, and for the pool items (formulas at the instance level: the selected instances)
    without any official judgment (SF and DK count as judged: a person looked), the model's grade. `sources` gets
    (topic, item) -> "people" or "llm:MODEL" for every row."""
    people = dict(selectors.qrels_by_topic(campaign=campaign, level=level, complete=True))
    llm = dict(llm_selectors.llm_qrels_by_topic(campaign=campaign, model=model, level=level))
    pooled = selectors.pool_units(campaign=campaign, level=level)
    name = llm_selectors.llm_name(model)
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
        return _combined_rows(campaign, model, level, complete, sources)
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
    """The campaign's qrels lines (SPEC 6.1), topic by topic as they are read: what streams to a download.
    SF and DK are left out, or with `complete` written as grades 5 and 6 (the organizers' complete qrels).
    `source`: the official judgments (default, also "people"), the organizer's adjudicated grades of training round
    `round` (of the dual assessment when no round is given; docs/agreement.md), an LLM's grades ("llm" for the
    campaign's model, "llm:MODEL"), or "combined": people's, and the LLM's for pool items no official judgment
    covers, each row's source going to `sources` (docs/formats.md). `min_relevant` counts the items relevant at
    the campaign's relevance level. The arguments are checked before the first line; `summary` fills in as the lines
    go."""
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


def evaluate_campaign(*, campaign: Campaign, all_topics: bool = False, runs: Sequence[Run] | None = None,
                      measures: Sequence[str] = (), relevance_level: int | None = None,
                      qrels: Qrels | None = None, qrels_items: QuerySet | None = None) -> Evaluation:
    """Scores the campaign's runs (or the given ones) against its official judgments, from their stored rows
    (`selectors.answer_rows_to_score`, `selectors.formula_run_rows`) through the prime filter and pytrec_eval, at
    the campaign's relevance level unless another is given; `measures` (ir_measures names) are computed beside the
    prime ones, on whole runs (`selectors.answer_run_rows`), and `ar`/`p1` of an answer run's first result.
    An answers campaign's Task 3 runs are scored apart, on their answers (`answer_runs`: AR, P@1, LO).
    `qrels` given (another source's, as the LLM's: evaluation/llm_board.py) are scored against instead of the
    official judgments; `qrels_items`, the query of their items (`values("item_id")`), lets an answers campaign read
    only the rows `answer_rows_to_score` needs, as for the official qrels; without it, runs are read whole."""
    level = campaign.relevance_level if relevance_level is None else relevance_level
    check_level(level)
    extra = parse_measures(measures, relevance_level=level)
    first = campaign.task == ANSWERS and first_result_asked(measures)
    official = qrels is None
    complete = selectors.campaign_qrels(campaign=campaign, complete=True) if qrels is None else qrels
    qrels = task3.kept(complete, lambda _item, grade: grade not in MARKS)  # SF and DK are unjudged (SPEC 6.1)
    if not qrels:
        raise InputError(f"campaign '{campaign.name}' has no {'official judgments' if official else 'grades'} yet: "
                         "there is nothing to score")
    runs = list(Run.objects.filter(campaign=campaign).order_by("name")) if runs is None else list(runs)
    topic_ids = selectors.campaign_topic_ids(campaign=campaign)
    answer_runs = [run for run in runs if run.format == Run.Format.ARQMATH_TASK3]
    answer_ids = selectors.campaign_answer_ids(campaign=campaign) if campaign.task == ANSWERS else set()
    runs = [run for run in runs if run.format != Run.Format.ARQMATH_TASK3]
    # Task 1 runs are scored on the posts, Task 3 runs on their answers (evaluation/task3.py); formula runs on all.
    posts = task3.post_qrels(qrels, answer_ids)
    evaluator = _evaluator(posts, level, extra, first)
    scores: list[RunScores] = []
    if campaign.task == ANSWERS and not extra and (official or qrels_items is not None):
        found = selectors.answer_rows_to_score(campaign=campaign, runs=runs, topic_ids=topic_ids,
                                               judged_items=qrels_items)
        for run in runs:
            rows = found.pop(run.pk)  # each run's rows freed once it is scored
            scores.append(evaluator.scores(run.name, prime_answers(
                ((topic, item, score) for topic, items in rows.items() for item, score in items.items()), posts),
                all_topics=all_topics))
    else:
        for run in runs:
            lists = stored_run_lists(campaign=campaign, run=run, qrels=posts, topic_ids=topic_ids)
            scores.append(evaluator.scores(run.name, prime_of(lists, posts, first=campaign.task == ANSWERS),
                                           all_topics=all_topics, lists=lists))
    counts = [(topic, len(items), sum(1 for grade in items.values() if is_relevant(grade, level)))
              for topic, items in qrels.items()]
    instances = (selectors.qrels_row_count(campaign=campaign, level=selectors.INSTANCE)
                 if campaign.task == FORMULAS and official else None)
    return Evaluation(runs=scores, qrels_topics=len(qrels), all_topics=all_topics, topic_counts=counts,
                      judgments=sum(judged for _topic, judged, _relevant in counts), instances=instances,
                      measures=evaluator.measures, topics=list(posts), relevance_level=level,
                      answer_runs=task3.task3_scores(runs=answer_runs, qrels=task3.answer_qrels(complete, answer_ids),
                                                     all_topics=all_topics, relevance_level=level))


def _evaluator(qrels: Qrels, relevance_level: int, extra: Sequence[Named], first_result: bool) -> Evaluator:
    check_level(relevance_level)
    return Evaluator(qrels, relevance_level=relevance_level, first_result=first_result,
                     extra=MeasureEvaluator(qrels, extra) if extra else None)


def stored_run_lists(*, campaign: Campaign, run: Run, qrels: Qrels, topic_ids: dict[int, str]) -> PrimeRun:
    """A stored run's ranked lists as the prime measures read them against `qrels`: an answers campaign's by post, a
    formula campaign's by the visual ids it pools by (the campaign's scores, reusability, earlier editions, the
    judging simulator)."""
    if campaign.task == ANSWERS:
        return answer_lists(selectors.answer_run_rows(run=run, topic_ids=topic_ids), qrels)
    return formula_lists(selectors.formula_run_rows(run=run, campaign=campaign, topic_ids=topic_ids), qrels)


def evaluator_for(qrels: Qrels, *, measures: Sequence[str] = (), relevance_level: int = RELEVANCE_LEVEL,
                  first_result: bool = False) -> Evaluator:
    """The prime measures' evaluator of a qrels, with `measures` (ir_measures names) beside them: what scores runs
    made in memory (a fused run's sweep of k, workflow/fusion.py)."""
    return _evaluator(qrels, relevance_level, parse_measures(measures, relevance_level=relevance_level), first_result)


LEADERBOARD_SECONDS = 24 * 3600  # how long an analysis of the scores stays cached (board.cached_board_analysis)


# --- evaluation of files: `evaluate --qrels FILE RUN...` -------------------------------------------------------


class _AnyTopic(dict):
    """Takes every topic id: evaluation drops the topics its qrels do not have instead of rejecting the run."""

    def __contains__(self, key) -> bool:
        return True


def evaluate_files(*, qrels_path: str | os.PathLike, run_paths: Sequence[str | os.PathLike], task: str | None = None,
                   formula_index_paths: Sequence[str | os.PathLike] = (), all_topics: bool = False,
                   measures: Sequence[str] = (), relevance_level: int = RELEVANCE_LEVEL) -> Evaluation:
    """Scores run files against a qrels file, as the official scripts do. Runs are named by their file names.

    The task comes from the first run's shape unless given (6 columns without Q0: formulas). For formulas, the
    formula index files map each formula id to its visual id and the qrels are by visual id; without them each
    formula is its own visual id (qrels by formula id, as in ARQMath-1). `measures` (ir_measures names, and `ar`
    and `p1` of an answer run's first result) are computed beside the prime ones; `relevance_level` binarises MAP',
    P'@10, P@1 and the binary measures named without one. Any problem in any file rejects all."""
    if not run_paths:
        raise InputError("no run files given")
    check_level(relevance_level)
    extra = parse_measures(measures, relevance_level=relevance_level)
    task = task or task_of(run_paths[0])
    if task not in (ANSWERS, FORMULAS):
        raise InputError(f"unknown task '{task}'; expected answers or formulas")
    if formula_index_paths and task != FORMULAS:
        raise InputError("a formula index is for formula runs (--task formulas)")
    first = task == ANSWERS and first_result_asked(measures)
    problems: list[Problems] = []
    qrels = read_qrels_file(qrels_path, problems)
    names = [Path(path).name for path in run_paths]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(file_problem(name, "two runs have this file name; their scores could not be told apart"))
    # One run at a time, so memory holds one run's rows (and, for formula runs with an index, the set of every
    # formula id the runs name): those runs are read twice, first for the formula ids whose visual ids the index
    # must give, then to score them. Every run is read by read_run (the ingest's reader, with its messages) and
    # filtered by the prime filter (`prime_answers`, `prime_formulas`: the de-duplicated lists, then `prime_of`).
    mapped = task == FORMULAS and bool(formula_index_paths)
    needed: set[str] = set()
    evaluator = _evaluator(qrels, relevance_level, extra, first) if qrels and not any(problems) else None
    scores: list[RunScores] = []
    for name, path in zip(names, run_paths, strict=True):
        blocks = read_run_columns(path, task, problems)
        if mapped:
            for _topics, formula_ids, _scores in blocks:
                needed.update(formula_ids)
            continue
        lists = run_lists(task, blocks, qrels, None)
        if evaluator is not None and not any(problems):
            scores.append(evaluator.scores(name, prime_of(lists, qrels, first=task == ANSWERS), all_topics=all_topics,
                                           lists=lists))
    if mapped and not any(problems):
        visual_of = _read_visual_ids(formula_index_paths, needed, problems)
        for name, path in zip(names, run_paths, strict=True):
            if evaluator is None or any(problems):
                break
            lists = run_lists(task, read_run_columns(path, task, []), qrels, visual_of)
            scores.append(evaluator.scores(name, prime_of(lists, qrels), all_topics=all_topics, lists=lists))
    raise_problems(problems)
    if not qrels:
        raise InputError(f"{Path(qrels_path).name}: the qrels file has no judgments")
    assert evaluator is not None  # qrels and no problem: made before the runs were read
    return Evaluation(runs=scores, qrels_topics=len(qrels), all_topics=all_topics, measures=evaluator.measures,
                      topics=sorted(qrels, key=natural_key), relevance_level=relevance_level)


def run_lists(task: str, blocks: Iterable[tuple[Sequence[str], Sequence[str], Sequence[float]]], qrels: Qrels,
              visual_of: dict[str, str] | None) -> PrimeRun:
    """The de-duplicated run (`prime.answer_block_lists`, `prime.formula_lists`) of a run's blocks of rows
    (`read_run_columns`), formula ids through the index's visual ids when there is one."""
    if task == ANSWERS:
        return answer_block_lists(blocks, qrels)
    rows = (row for block in blocks for row in zip(*block, strict=True))
    if visual_of is None:
        return formula_lists(rows, qrels)
    return formula_lists(((topic, visual_of.get(formula), score) for topic, formula, score in rows), qrels)


def file_problem(file: str, message: str) -> Problems:
    """A problem of a whole file (no line), to join a list of files' problems."""
    problems = Problems(file=file)
    problems.add(None, message)
    return problems


def raise_problems(problems: list[Problems]) -> None:
    found = [p for p in problems if p]
    if found:
        raise InputError.of(*found)


def task_of(path: str | os.PathLike) -> str:
    with open_binary(path) as stream:
        for _line, text in iter_lines(stream, Problems()):
            if text.strip():
                return FORMULAS if detect_format(text.split()) == ARQMATH_TASK2 else ANSWERS
    return ANSWERS


def read_qrels_file(path: str | os.PathLike, problems: list[Problems]) -> dict[str, dict[str, int]]:
    """SF and DK lines (5, 6) left out: unjudged, as in a campaign's own qrels."""
    found = Problems(file=Path(path).name)
    problems.append(found)
    with open_binary(path) as stream:
        return qrels_by_topic(stream, found)


def read_run_columns(path: str | os.PathLike, task: str, problems: list[Problems], *, tags: list[str] | None = None
                     ) -> Iterator[tuple[Sequence[str], Sequence[str], Sequence[float]]]:
    """The run's rows as the file is read, a block at a time: (topic ids, item ids, scores); its problems join
    `problems`, and the run tag of its first row `tags` (when given)."""
    for block in read_run_file(path, task, problems):
        if tags is not None and not tags:
            tags.append(block.tags[0])
        yield block.topic_ids, block.item_ids, block.scores


def read_run_file(path: str | os.PathLike, task: str, problems: list[Problems], *, summary: RunSummary | None = None
                  ) -> Iterator[RunColumns]:
    """read_run_columns' blocks whole (ranks too), the file's format in `summary` when given."""
    found = Problems(file=Path(path).name)
    problems.append(found)
    with open_binary(path) as stream:
        yield from read_run_blocks(stream, found, Problems(), topics=_AnyTopic(), task=task,
                                   max_depth=NO_DEPTH_LIMIT, summary=summary, find_duplicates=False)


def _read_visual_ids(paths: Sequence[str | os.PathLike], needed: set[str], problems: list[Problems]
                     ) -> dict[str, str]:
    """formula id -> visual id for the formulas the runs name; the index files are streamed, not held."""
    visual_of: dict[str, str] = {}
    for path in paths:
        found = Problems(file=Path(path).name)
        problems.append(found)
        with open_binary(path) as stream:
            for record in read_formula_index(stream, found):
                if record.formula_id in needed and record.visual_id:
                    visual_of[record.formula_id] = record.visual_id
    return visual_of

"""Qrels export and run evaluation: the same code for the commands, the API and the leaderboard page."""
from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.core.cache import cache

from core.errors import InputError, Problems
from pooling.formats.formula_tsv import read_formula_index
from pooling.formats.qrels import MARKS, qrels_by_topic
from pooling.formats.runs import ARQMATH_TASK2, detect_format, read_run
from pooling.formats.textio import TextSink, iter_lines, open_binary
from pooling.models import Campaign, Run

from . import reading, selectors, task3
from .prime import Evaluator, Prime, Qrels, RunScores, prime_answers, prime_formulas
from .qrels import QrelsSummary, is_relevant, qrels_lines

ANSWERS, FORMULAS = Campaign.Task.ANSWERS.value, Campaign.Task.FORMULAS.value
NO_DEPTH_LIMIT = 2**31  # evaluation takes a run as deep as it comes


def qrels_export_lines(*, campaign: Campaign, level: str = selectors.VISUAL, min_relevant: int | None = None,
                       summary: QrelsSummary | None = None, complete: bool = False) -> Iterator[str]:
    """The campaign's qrels lines (SPEC 6.1), topic by topic as they are read: what streams to a download.
    SF and DK are left out, or with `complete` written as grades 5 and 6 (the organizers' complete qrels).
    The arguments are checked before the first line; `summary` fills in as the lines go."""
    if level not in selectors.LEVELS:
        raise InputError(f"unknown level '{level}'; expected one of {', '.join(selectors.LEVELS)}")
    if level == selectors.INSTANCE and campaign.task != FORMULAS:
        raise InputError("the instance level is for formula campaigns; answer qrels are by post")
    if min_relevant is not None and min_relevant < 0:
        raise InputError(f"the minimum of relevant items must be 0 or more, not {min_relevant}")
    return qrels_lines(selectors.qrels_by_topic(campaign=campaign, level=level, complete=complete),
                       min_relevant=min_relevant, summary=summary)


def qrels_export(*, campaign: Campaign, out: TextSink, level: str = selectors.VISUAL,
                 min_relevant: int | None = None, complete: bool = False) -> QrelsSummary:
    """Writes the campaign's qrels to `out`; returns what was written and which topics were left out."""
    summary = QrelsSummary()
    for line in qrels_export_lines(campaign=campaign, level=level, min_relevant=min_relevant, summary=summary,
                                   complete=complete):
        out.write(line)
    return summary


@dataclass
class Evaluation:
    """Every run's scores against one qrels, with what the qrels hold per topic: (topic, judged, grade >= 2)."""

    runs: list[RunScores]
    qrels_topics: int
    all_topics: bool
    topic_counts: list[tuple[str, int, int]] = field(default_factory=list)
    # What the qrels hold, as the export writes them: judged posts (answers) or visual ids (formulas), SF and DK out;
    # for formulas also the judged instances (the instance-level export). Campaigns only.
    judgments: int = 0
    instances: int | None = None
    version: str = ""  # the campaign's scores_version the scores were computed at (campaigns only)
    # An answers campaign's ARQMath-3 Task 3 runs: AR, P@1 and LO (evaluation/task3.py); `runs` are its Task 1 runs.
    answer_runs: list[RunScores] = field(default_factory=list)


def evaluate_campaign(*, campaign: Campaign, all_topics: bool = False, runs: Sequence[Run] | None = None
                      ) -> Evaluation:
    """Scores the campaign's runs (or the given ones) against its official judgments, from their stored rows
    (`selectors.answer_rows_to_score`, `selectors.formula_run_rows`) through the prime filter and pytrec_eval."""
    complete = selectors.campaign_qrels(campaign=campaign, complete=True)
    qrels = task3.kept(complete, lambda _item, grade: grade not in MARKS)  # SF and DK are unjudged (SPEC 6.1)
    if not qrels:
        raise InputError(f"campaign '{campaign.name}' has no official judgments yet: there is nothing to score")
    runs = list(Run.objects.filter(campaign=campaign).order_by("name")) if runs is None else list(runs)
    topic_ids = selectors.campaign_topic_ids(campaign=campaign)
    answer_runs = [run for run in runs if run.format == Run.Format.ARQMATH_TASK3]
    answer_ids = selectors.campaign_answer_ids(campaign=campaign) if campaign.task == ANSWERS else set()
    runs = [run for run in runs if run.format != Run.Format.ARQMATH_TASK3]
    # Task 1 runs are scored on the posts, Task 3 runs on their answers (evaluation/task3.py).
    evaluator = Evaluator(task3.kept(qrels, lambda item, _grade: item not in answer_ids) if answer_ids else qrels)
    if campaign.task == ANSWERS:
        found = selectors.answer_rows_to_score(campaign=campaign, runs=runs, topic_ids=topic_ids)
        scores = []
        for run in runs:
            rows = found.pop(run.pk)  # each run's rows freed once it is scored
            scores.append(evaluator.scores(run.name, prime_answers(
                ((topic, item, score) for topic, items in rows.items() for item, score in items.items()), qrels),
                all_topics=all_topics))
    else:
        scores = [evaluator.scores(run.name, prime_formulas(selectors.formula_run_rows(
            run=run, campaign=campaign, topic_ids=topic_ids), qrels), all_topics=all_topics) for run in runs]
    counts = [(topic, len(items), sum(1 for grade in items.values() if is_relevant(grade)))
              for topic, items in qrels.items()]
    instances = (selectors.qrels_row_count(campaign=campaign, level=selectors.INSTANCE)
                 if campaign.task == FORMULAS else None)
    return Evaluation(runs=scores, qrels_topics=len(qrels), all_topics=all_topics, topic_counts=counts,
                      judgments=sum(judged for _topic, judged, _relevant in counts), instances=instances,
                      answer_runs=task3.task3_scores(runs=answer_runs, qrels=task3.answer_qrels(complete, answer_ids),
                                                     all_topics=all_topics))


LEADERBOARD_SECONDS = 24 * 3600
COMPUTING_SECONDS = 600  # the most one computation may keep others waiting on the previous scores


def leaderboard_scores(*, campaign: Campaign, all_topics: bool = False, version: str | None = None
                       ) -> Evaluation | None:
    """`evaluate_campaign` behind the cache, keyed by the state of the judgments, assignments, runs and formulas
    (`version`, from `selectors.scores_version`): the leaderboard follows every change and computes once per
    change. While one request computes a new version, the others get the previous scores (their `version` says
    which), so a busy judging day does not make every open leaderboard recompute at once. None before the first
    official judgment."""
    version = version or selectors.scores_version(campaign=campaign)[1]
    # v2: since the Evaluation holds the qrels counts; v3: its Task 3 runs (answer_runs). Older scores lack them.
    base = f"leaderboard:v3:{campaign.pk}:{int(all_topics)}"
    found = cache.get(f"{base}:{version}")
    if found is not None:
        return found or None
    if not cache.add(f"{base}:{version}:computing", True, COMPUTING_SECONDS):
        latest = cache.get(f"{base}:latest")  # (when its computation began, its scores)
        if latest is not None:
            return latest[1] or None
    began = _now()
    try:
        try:
            found = evaluate_campaign(campaign=campaign, all_topics=all_topics)
            found.version = version
        except InputError:
            found = False  # cached too: no judgments yet is an answer
        cache.set(f"{base}:{version}", found, LEADERBOARD_SECONDS)
        # The previous scores others get stay the newest: a slower request that began earlier (on older judgments)
        # does not replace those of one that began later. (Two requests finishing at the same instant could still
        # both write: then the older stands until the next change.)
        latest = cache.get(f"{base}:latest")
        if latest is None or latest[0] <= began:
            cache.set(f"{base}:latest", (began, found), LEADERBOARD_SECONDS)
    finally:
        cache.delete(f"{base}:{version}:computing")
    return found or None


def _now() -> float:
    """The time on every web server alike (the wall clock, not a process's monotonic one)."""
    return time.time()


# --- evaluation of files: `evaluate --qrels FILE RUN...` -------------------------------------------------------


class _AnyTopic(dict):
    """Takes every topic id: evaluation drops the topics its qrels do not have instead of rejecting the run."""

    def __contains__(self, key) -> bool:
        return True


def evaluate_files(*, qrels_path: str | os.PathLike, run_paths: Sequence[str | os.PathLike], task: str | None = None,
                   formula_index_paths: Sequence[str | os.PathLike] = (), all_topics: bool = False) -> Evaluation:
    """Scores run files against a qrels file, as the official scripts do. Runs are named by their file names.

    The task comes from the first run's shape unless given (6 columns without Q0: formulas). For formulas, the
    formula index files map each formula id to its visual id and the qrels are by visual id; without them each
    formula is its own visual id (qrels by formula id, as in ARQMath-1). Any problem in any file rejects all."""
    if not run_paths:
        raise InputError("no run files given")
    task = task or _task_of(run_paths[0])
    if task not in (ANSWERS, FORMULAS):
        raise InputError(f"unknown task '{task}'; expected answers or formulas")
    if formula_index_paths and task != FORMULAS:
        raise InputError("a formula index is for formula runs (--task formulas)")
    problems: list[Problems] = []
    qrels = _read_qrels(qrels_path, problems)
    names = [Path(path).name for path in run_paths]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(_problem(name, "two runs have this file name; their scores could not be told apart"))
    # One run at a time, so memory holds one run's rows (and, for formula runs with an index, the set of every
    # formula id the runs name): those runs are read twice, first for the formula ids whose visual ids the index
    # must give, then to score them. An answer run is read by `reading.read_prime_answers` where it can (the plain
    # shape, read whole with numpy), else by read_run, which also gives the problems.
    mapped = task == FORMULAS and bool(formula_index_paths)
    needed: set[str] = set()
    evaluator = Evaluator(qrels) if qrels and not any(problems) else None
    judged = reading.judged_keys(qrels) if task == ANSWERS else None
    scores: list[RunScores | None] = []
    primes: dict[int, Prime] = {}  # the runs read, until they are scored
    for i, (name, path) in enumerate(zip(names, run_paths, strict=True)):
        prime = reading.read_prime_answers(path, judged) if judged is not None else None
        if prime is None:
            rows = _read_run(path, task, problems)
            if mapped:
                needed.update(formula_id for _topic, formula_id, _score in rows)
                continue
            prime = _prime_filter_by_task(task, rows, qrels, None)
        primes[i] = prime
        scores.append(None)
        if evaluator is not None and not any(problems):
            scores[i] = evaluator.scores(name, primes.pop(i), all_topics=all_topics)
    if mapped and not any(problems):
        visual_of = _read_visual_ids(formula_index_paths, needed, problems)
        primes = {i: _prime_filter_by_task(task, _read_run(path, task, []), qrels, visual_of)
                  for i, path in enumerate(run_paths)}
        scores = [None] * len(run_paths)
    _raise(problems)
    if not qrels:
        raise InputError(f"{Path(qrels_path).name}: the qrels file has no judgments")
    evaluator = evaluator or Evaluator(qrels)
    done = [run if run is not None else evaluator.scores(names[i], primes[i], all_topics=all_topics)
            for i, run in enumerate(scores)]
    return Evaluation(runs=done, qrels_topics=len(qrels), all_topics=all_topics)


def _prime_filter_by_task(task: str, rows: Iterable[tuple[str, str, float]], qrels: Qrels,
                          visual_of: dict[str, str] | None) -> Prime:
    if task == ANSWERS:
        return prime_answers(rows, qrels)
    if visual_of is None:
        return prime_formulas(rows, qrels)
    return prime_formulas(((topic, visual_of.get(formula), score) for topic, formula, score in rows), qrels)


def _problem(file: str, message: str) -> Problems:
    problems = Problems(file=file)
    problems.add(None, message)
    return problems


def _raise(problems: list[Problems]) -> None:
    found = [p for p in problems if p]
    if found:
        raise InputError.of(*found)


def _task_of(path: str | os.PathLike) -> str:
    with open_binary(path) as stream:
        for _line, text in iter_lines(stream, Problems()):
            if text.strip():
                return FORMULAS if detect_format(text.split()) == ARQMATH_TASK2 else ANSWERS
    return ANSWERS


def _read_qrels(path: str | os.PathLike, problems: list[Problems]) -> dict[str, dict[str, int]]:
    """SF and DK lines (5, 6) left out: unjudged, as in a campaign's own qrels."""
    found = Problems(file=Path(path).name)
    problems.append(found)
    with open_binary(path) as stream:
        return qrels_by_topic(stream, found)


def _read_run(path: str | os.PathLike, task: str, problems: list[Problems]) -> Iterator[tuple[str, str, float]]:
    """The run's (topic, item, score) rows as the file is read; its problems join `problems`."""
    found = Problems(file=Path(path).name)
    problems.append(found)
    with open_binary(path) as stream:
        for row in read_run(stream, found, Problems(), topics=_AnyTopic(), task=task, max_depth=NO_DEPTH_LIMIT,
                            find_duplicates=False):
            yield row.topic_id, row.item_id, row.score


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

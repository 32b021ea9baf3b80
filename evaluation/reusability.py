"""Pool bias and reusability (docs/analysis.md): leave-one-team-out over run files or a campaign's runs, read as
scoring reads them, through `ir.statistics.reusability` and its prime scorer (`ir.scoring.score_runs`, what every
score is computed by). docs/analysis.md gives the method."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from django.db.models import QuerySet

from evaluation import scoring, selectors, task3
from ir.formats.task3_answer_ids import read_teams
from ir.formats.textio import open_binary
from ir.grades import RELEVANCE_LEVEL
from ir.measures import check_level
from ir.prime import trec_order
from ir.problems import InputError, Problems
from ir.statistics import RankAgreement, RankedRun, Reusability, prime_scorer, reusability
from pooling.models import Campaign, Run


@dataclass
class ReusabilityResult:
    """The table (one row per run and measure), the rank agreement per measure, and what it was computed with."""

    rows: list[Reusability]
    agreements: list[RankAgreement]
    depth: int
    relevance_level: int
    teams: int


def ranked(lists: Mapping[str, Mapping[str, float]]) -> RankedRun:
    """Each topic's items best first in trec_eval's order (score descending, then id descending): the order
    `evaluate` scores the run in, so the full-qrels scores are `evaluate --all-topics`'s."""
    return {topic: [item for item, _score in sorted(items.items(), key=trec_order, reverse=True)]
            for topic, items in lists.items()}


def _check(depth: int, relevance_level: int) -> None:
    if depth < 1:
        raise InputError(f"the depth must be at least 1, not {depth}")
    check_level(relevance_level)


def _compute(qrels, runs: Mapping[str, RankedRun], teams: Mapping[str, str], depth: int,
             relevance_level: int) -> ReusabilityResult:
    rows, agreements = reusability(qrels, runs, teams, depth=depth, relevance_level=relevance_level,
                                   scorer=prime_scorer(relevance_level=relevance_level))
    return ReusabilityResult(rows=rows, agreements=agreements, depth=depth, relevance_level=relevance_level,
                             teams=len({teams.get(run, run) for run in runs}))


def reusability_files(*, qrels_path: str | os.PathLike, run_paths: Sequence[str | os.PathLike], depth: int,
                      relevance_level: int = RELEVANCE_LEVEL, team_map: str | os.PathLike | None = None,
                      task: str | None = None) -> ReusabilityResult:
    """Leave-one-team-out over run files (named by their file names, as `evaluate` names them). A run's team is
    the team map's (`run<TAB>team` lines), else its run tag (the first row's). Any problem in any file rejects
    all."""
    _check(depth, relevance_level)
    if not run_paths:
        raise InputError("no run files given")
    task = task or scoring.task_of(run_paths[0])
    problems: list[Problems] = []
    qrels = scoring.read_qrels_file(qrels_path, problems)
    names = [Path(path).name for path in run_paths]
    mapped = read_team_map(team_map, problems) if team_map else {}
    runs: dict[str, RankedRun] = {}
    teams: dict[str, str] = {}
    for name, path in zip(names, run_paths, strict=True):
        if name in runs:
            problems.append(scoring.file_problem(name, "two runs have this file name; their rows could not be told "
                                                        "apart"))
            continue
        tags: list[str] = []
        runs[name] = ranked(scoring.run_lists(task, scoring.read_run_columns(path, task, problems, tags=tags),
                                               qrels, None))
        teams[name] = mapped.get(name) or (tags[0] if tags else name)
    scoring.raise_problems(problems)
    if not qrels:
        raise InputError(f"{Path(qrels_path).name}: the qrels file has no judgments")
    return _compute(qrels, runs, teams, depth, relevance_level)


def read_team_map(path: str | os.PathLike, problems: list[Problems]) -> dict[str, str]:
    """run -> team from `run<TAB>team` lines (pooling's read_teams, as `evaluate` reads Task 3's team map)."""
    found = Problems(file=Path(path).name)
    problems.append(found)
    with open_binary(path) as stream:
        return read_teams(stream, found)


def run_team(run: Run) -> str:
    """A campaign run's team: its team fact, else its run tag(s), else its name."""
    return run.team or run.tag or run.name


def ranked_runs(campaign: Campaign) -> QuerySet[Run]:
    """The campaign's runs that rank items, by name: ARQMath-3 Task 3 runs (one answer id per topic, at rank 1, judged
    on their own: evaluation/task3.py) are left out."""
    return Run.objects.filter(campaign=campaign).exclude(format=Run.Format.ARQMATH_TASK3).order_by("name")


def reusability_campaign(*, campaign: Campaign, depth: int | None = None) -> ReusabilityResult:
    """Leave-one-team-out over a campaign's runs against its official judgments, at its pool depth (the primary
    depth unless given) and relevance level; the runs read whole (`selectors.answer_run_rows`,
    `selectors.formula_run_rows`, visual ids as the pools give them)."""
    depth = campaign.primary_depth if depth is None else depth
    _check(depth, campaign.relevance_level)
    qrels = selectors.campaign_qrels(campaign=campaign)
    if not qrels:
        raise InputError(f"campaign '{campaign.name}' has no official judgments yet: there is nothing to score")
    if campaign.task == Campaign.Task.ANSWERS:  # as Task 1 runs are scored: on the posts (evaluation/task3.py)
        qrels = task3.post_qrels(qrels, selectors.campaign_answer_ids(campaign=campaign))
    topic_ids = selectors.campaign_topic_ids(campaign=campaign)
    runs: dict[str, RankedRun] = {}
    teams: dict[str, str] = {}
    for run in ranked_runs(campaign):
        runs[run.name] = ranked(scoring.stored_run_lists(campaign=campaign, run=run, qrels=qrels, topic_ids=topic_ids))
        teams[run.name] = run_team(run)
    return _compute(qrels, runs, teams, depth, campaign.relevance_level)

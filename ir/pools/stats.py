"""Pool statistics (docs/pooling.md): what each run contributed, and a planner of pool size and hours against depth."""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ir.pools.formulas import pool_formulas
from ir.pools.posts import pool_answers


@dataclass(frozen=True)
class Contribution:
    contributed: int  # pooled items this run retrieved within its depth
    unique: int  # of those, the items no other run pooled


def run_contributions(
    pool: Mapping[str, Iterable[tuple[str, int]]], runs: Iterable[str] = ()
) -> dict[str, Contribution]:
    """Per run: items contributed and unique contributions, for item id -> [(run, rank), ...].

    runs names runs to report even when they contributed nothing (a run that pooled nothing is worth seeing).
    Several topics' results add up with sum_contributions.
    """
    contributed: dict[str, int] = dict.fromkeys(runs, 0)
    unique: dict[str, int] = dict.fromkeys(runs, 0)
    for provenance in pool.values():
        item_runs = {run for run, _ in provenance}
        for run in item_runs:
            contributed[run] = contributed.get(run, 0) + 1
            unique.setdefault(run, 0)
        if len(item_runs) == 1:
            unique[next(iter(item_runs))] += 1
    return {run: Contribution(contributed[run], unique[run]) for run in sorted(contributed)}


def sum_contributions(per_topic: Iterable[Mapping[str, Contribution]]) -> dict[str, Contribution]:
    """Add per-topic contributions into campaign totals."""
    totals: dict[str, Contribution] = {}
    for contributions in per_topic:
        for run, c in contributions.items():
            t = totals.get(run, Contribution(0, 0))
            totals[run] = Contribution(t.contributed + c.contributed, t.unique + c.unique)
    return dict(sorted(totals.items()))


def judging_hours(judgments: int, seconds_per_judgment: float) -> float:
    """Assessor hours for a number of judgments at a mean time per judgment."""
    return judgments * seconds_per_judgment / 3600


@dataclass(frozen=True)
class PlanRow:
    depth: int  # depth (Task 2: k) of primary runs
    alternate_depth: int  # depth (Task 2: k) of alternate runs
    items: int  # pooled items over all topics: answers, or visually distinct formulae
    judgments: int  # items, or for Task 2 the instances that would be judged (at most N per formula)
    hours: float | None  # judging_hours(judgments, ...) when a mean time per judgment is known


def plan_pool_sizes(
    ranked_by_topic: Mapping[str, Mapping[str, Sequence]],
    depths: Iterable[int],
    *,
    task: Literal["answers", "formulas"] = "answers",
    alternate_runs: Collection[str] = (),
    alternate_depth: Callable[[int], int] | None = None,
    instances_per_formula: int = 5,
    seconds_per_judgment: float | None = None,
    left_out: Mapping[str, Collection[str]] | None = None,
    whole_runs: Collection[str] = (),
) -> list[PlanRow]:
    """The planner: for each depth d, the campaign's pool size if primary runs were pooled to d.

    ranked_by_topic maps topic id -> run -> the run's list as pool_answers (item ids) or pool_formulas
    ((formula_id, post_id, visual_id) entries) takes it. Alternate runs are pooled to alternate_depth(d)
    (for example lambda d: d * 20 // 45), or to d too when it is None. `left_out`: as pool_answers and pool_formulas
    take it. `whole_runs` are pooled whole at every depth (a RAG answer run's cited ids, docs/pooling.md).
    """
    rows = []
    for depth in depths:
        alt = depth if alternate_depth is None else alternate_depth(depth)
        items = judgments = 0
        for ranked in ranked_by_topic.values():
            run_depths = {run: len(ranked[run]) if run in whole_runs else alt if run in alternate_runs else depth
                          for run in ranked}
            if task == "answers":
                size = len(pool_answers(ranked, run_depths, left_out))
                items += size
                judgments += size
            else:
                pool = pool_formulas(ranked, run_depths, left_out)
                items += len(pool)
                judgments += sum(min(instances_per_formula, len(c)) for c in pool.values())
        hours = None if seconds_per_judgment is None else judging_hours(judgments, seconds_per_judgment)
        rows.append(PlanRow(depth, alt, items, judgments, hours))
    return rows

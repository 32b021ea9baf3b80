"""`simulate_judging` and the planner's curves: judging orders replayed on an earlier edition's qrels and runs
(ir/pools/simulate.py), the files read as `evaluate` and `reusability` read them."""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ir.pools.adaptive import POLICIES
from ir.pools.simulate import PolicyResult, simulate
from ir.problems import InputError, Problems
from ir.statistics import RankedRun

from . import services
from .reusability import ranked


def check_simulation(*, depth: int, policies: Sequence[str], relevance_level: int, warm_up: int, min_depth: int,
                     budget: int | None) -> None:
    problems = []
    if depth < 1:
        problems.append(f"the depth must be at least 1, not {depth}")
    if not policies:
        problems.append(f"no policy given: one or more of {', '.join(POLICIES)}")
    for policy in policies:
        if policy not in POLICIES:
            problems.append(f"unknown policy '{policy}': one of {', '.join(POLICIES)}")
    if warm_up < 0 or min_depth < 0:
        problems.append("the warm-up and the minimum depth must not be negative")
    if budget is not None and budget < 1:
        problems.append(f"the budget must be at least 1 item per topic, not {budget}")
    if problems:
        raise InputError(problems)
    services.check_level(relevance_level)


def simulate_files(*, qrels_path: str | os.PathLike, run_paths: Sequence[str | os.PathLike], depth: int,
                   policies: Sequence[str], seed: int = 0, relevance_level: int = services.RELEVANCE_LEVEL,
                   warm_up: int = 0, min_depth: int = 0, budget: int | None = None) -> list[PolicyResult]:
    """Each policy replayed on the pools of the run files (Task 1 answer runs, named by their file names) at `depth`,
    with the qrels file as the assessor. Any problem in any file rejects all."""
    check_simulation(depth=depth, policies=policies, relevance_level=relevance_level, warm_up=warm_up,
                     min_depth=min_depth, budget=budget)
    if not run_paths:
        raise InputError("no run files given")
    if services.task_of(run_paths[0]) != services.ANSWERS:
        raise InputError(f"{Path(run_paths[0]).name}: a formula run; the simulator pools answer runs (Task 1)")
    problems: list[Problems] = []
    qrels = services.read_qrels_file(qrels_path, problems)
    runs: dict[str, RankedRun] = {}
    for path in run_paths:
        name = Path(path).name
        if name in runs:
            problems.append(services.file_problem(name, "two runs have this file name; their rows could not be told "
                                                        "apart"))
            continue
        runs[name] = ranked(services.run_lists(services.ANSWERS, services.read_run_columns(
            path, services.ANSWERS, problems), qrels, None))
    services.raise_problems(problems)
    if not qrels:
        raise InputError(f"{Path(qrels_path).name}: the qrels file has no judgments")
    return simulate(runs, qrels, depth=depth, policies=policies, seed=seed, relevance_level=relevance_level,
                    warm_up=warm_up, min_depth=min_depth, budget=budget)

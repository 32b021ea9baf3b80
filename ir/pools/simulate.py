"""Replaying judging orders on known qrels (docs/pooling.md, `simulate_judging` and the planner's curves): how much of
the pool each policy judges before it finds the relevant items, and how a budget cut changes the systems' ranking."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ir.grades import RELEVANCE_LEVEL, is_relevant
from ir.measures import check_level
from ir.pools.adaptive import POLICIES, WARM_UP, Judging
from ir.pools.posts import pool_answers
from ir.prime import NDCG, Qrels, format_value, natural_key
from ir.problems import InputError
from ir.statistics import RankedRun, kendall_tau, prime_scorer

STEPS = 20  # the curve's points: every 5% of the pool
TARGET = (9, 10)  # "90% found", as a fraction kept exact

Runs = Mapping[str, RankedRun]  # run -> topic -> item ids best first (evaluation.reusability.ranked)


@dataclass
class PolicyResult:
    """One policy replayed on every topic: the curve, the share judged for 90% found, and Kendall's tau at a budget."""

    policy: str
    curve: list[tuple[float, float]]  # (judged fraction, mean over topics of the found fraction), every 5%
    judged_for_90: float | None  # mean over topics with a relevant item; None when no topic has one
    tau_at_budget: float | None = None
    budgeted: bool = False  # a budget was given (tau may still be None: fewer than two runs)
    orders: dict[str, list[str]] = field(default_factory=dict, repr=False)  # topic -> the judging order


def simulate(runs: Runs, qrels: Qrels, *, depth: int, policies: Sequence[str], seed: int = 0,
             relevance_level: int = RELEVANCE_LEVEL, warm_up: int = WARM_UP, min_depth: int = 0,
             budget: int | None = None, pooled: Runs | None = None) -> list[PolicyResult]:
    """Pools every qrels topic the runs retrieved at `depth`, then judges each pool in each policy's order with the
    qrels as the assessor: an item the qrels do not judge counts as not relevant (it would not be found either).
    `runs` are the lists the runs are scored on (trec_eval's order); `pooled`, when given, the same runs' lists as
    the pool build reads them (`posts.pooling_order`: they differ where scores tie), which the pools and the
    policies' provenance come from: the order judged is then the live order of a campaign of these runs.

    The curve's found fraction at x% is the mean over topics (those with a relevant pooled item) of the relevant
    pooled items found among the first floor(x% of the pool) judged. With `budget`, each topic's first `budget`
    items make a qrels of their own, and tau compares the runs' nDCG' means under it with those under the whole
    pool's qrels (prime measures drop what is unjudged)."""
    pooled = runs if pooled is None else pooled
    topics = sorted((t for t in qrels if any(ranked.get(t) for ranked in pooled.values())), key=natural_key)
    pools = {}
    for topic in topics:
        lists = {run: ranked[topic] for run, ranked in pooled.items() if ranked.get(topic)}
        pools[topic] = pool_answers(lists, dict.fromkeys(lists, depth))
    results = []
    for policy in policies:
        orders = {topic: judging_order(policy, pool, qrels[topic], seed=seed, topic_id=topic,
                                       relevance_level=relevance_level, warm_up=warm_up, min_depth=min_depth)
                  for topic, pool in pools.items()}
        curve, for_90 = found_curve(orders, qrels, relevance_level=relevance_level)
        result = PolicyResult(policy=policy, curve=curve, judged_for_90=for_90, orders=orders)
        if budget is not None:
            result.budgeted = True
            result.tau_at_budget = budget_tau(runs, qrels, orders, budget, relevance_level=relevance_level)
        results.append(result)
    return results


def check_simulation(*, depth: int, policies: Sequence[str], relevance_level: int, warm_up: int, min_depth: int,
                     budget: int | None) -> None:
    """The simulator's settings checked before any file is read: every problem at once."""
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
    check_level(relevance_level)


def judging_order(policy: str, pool: Mapping[str, Sequence[tuple[str, int]]], grades: Mapping[str, int], *,
                  seed: int, topic_id: str, relevance_level: int, warm_up: int, min_depth: int) -> list[str]:
    """The whole pool in the order the policy has it judged, the qrels answering each judgment."""
    judging = Judging(policy, pool, seed=seed, topic_id=topic_id, warm_up=warm_up, min_depth=min_depth)
    order = []
    while (item := judging.take()) is not None:
        judging.record(item, is_relevant(grades.get(item, 0), relevance_level))
        order.append(item)
    return order


def found_curve(orders: Mapping[str, Sequence[str]], qrels: Qrels, *, relevance_level: int
                ) -> tuple[list[tuple[float, float]], float | None]:
    """The mean found fraction at every 5% judged, and the mean share judged when 90% were found."""
    found_at: list[list[float]] = [[] for _ in range(STEPS + 1)]
    for_90: list[float] = []
    for topic, order in orders.items():
        hits = [is_relevant(qrels[topic].get(item, 0), relevance_level) for item in order]
        total = sum(hits)
        if not total:
            continue
        cumulative = [0]
        for hit in hits:
            cumulative.append(cumulative[-1] + hit)
        for step in range(STEPS + 1):
            found_at[step].append(cumulative[len(order) * step // STEPS] / total)
        need = -(-total * TARGET[0] // TARGET[1])  # ceil(0.9 * total), in integers
        for_90.append(next(n for n, found in enumerate(cumulative) if found >= need) / len(order))
    curve = [(step / STEPS, sum(values) / len(values) if values else 0.0) for step, values in enumerate(found_at)]
    return curve, (sum(for_90) / len(for_90) if for_90 else None)


def budget_tau(runs: Runs, qrels: Qrels, orders: Mapping[str, Sequence[str]], budget: int, *,
               relevance_level: int = RELEVANCE_LEVEL) -> float | None:
    """Kendall's tau between the runs' nDCG' means (over every topic, as reusability scores) under the whole pool's
    qrels and under each topic's first `budget` judgments; None with fewer than two runs or when a ranking is all
    ties (scipy's NaN)."""
    full = {topic: {item: qrels[topic][item] for item in order if item in qrels[topic]}
            for topic, order in orders.items()}
    cut = {topic: {item: qrels[topic][item] for item in order[:budget] if item in qrels[topic]}
           for topic, order in orders.items()}
    score = prime_scorer(measures=(NDCG,), relevance_level=relevance_level)
    tau = kendall_tau(*({run: means[NDCG] for run, means in score(judged, runs).items()} for judged in (full, cut)))
    return None if tau != tau else tau  # NaN


def summary_lines(results: Sequence[PolicyResult]) -> list[str]:
    """The simulator's TSV: a header, each policy's curve, then its `# POLICY judged_for_90 X` (and tau_at_budget)
    lines."""
    lines = ["policy\tjudged_fraction\tfound_fraction\n"]
    for result in results:
        lines += [f"{result.policy}\t{judged:.2f}\t{found:.4f}\n" for judged, found in result.curve]
    for result in results:
        lines.append(f"# {result.policy} judged_for_90 {format_value(result.judged_for_90)}\n")
        if result.tau_at_budget is not None or result.budgeted:
            lines.append(f"# {result.policy} tau_at_budget {format_value(result.tau_at_budget)}\n")
    return lines

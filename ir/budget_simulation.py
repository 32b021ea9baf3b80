"""Human and LLM judgments under one budget, replayed on known qrels (docs/llm_calibration.md, "Replaying a budget";
`simulate_judging --llm`): people judge a share of the items in a policy's order, the model's calibrated grades fill
the rest, and the hybrid qrels are held against the full ones (the runs' ranking, kappa, interval coverage). Pure
numpy: no Django."""
from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ir.agreement import cohen_kappa
from ir.calibration import Assessment, hybrid_grades
from ir.calibration_fit import as_stored, calibration_fit
from ir.formats.qrels import read_qrels_probabilities, split_columns
from ir.formats.textio import open_binary
from ir.grades import RELEVANCE_LEVEL, is_relevant
from ir.hybrid import (
    TOP_K,
    BiasAwareCalibrator,
    Context,
    bias_aware_assess,
    calibration_draws,
    context_of,
    features,
    qrels_of,
)
from ir.hybrid_intervals import hybrid_intervals, per_topic_scorer
from ir.pools.adaptive import POLICIES as ORDERS
from ir.pools.adaptive import WARM_UP, Judging
from ir.prime import MAP, format_value, natural_key
from ir.problems import InputError, Problems
from ir.rankings import tau_ap, tau_b
from ir.uncertain import uncertain_items

UNCERTAIN = "uncertain"  # the live order (ir/uncertain.py) under the bias-aware calibrator of ir/hybrid.py
AUDITED = "audited"  # ir/hybrid.py's bias_aware_assess: half the budget audits runs' top items, across topics
POLICIES = (UNCERTAIN, AUDITED, *ORDERS)
REFIT_EVERY = 10  # judgments between two refits of the calibrator, as the calibration job refits between judgments
LLM_ONLY = "llm-only"
REPLICATES = 200  # of the coverage's bootstrap: enough for a 95% interval's ends, a few seconds a row
HEADER = "policy\tshare\tjudged\ttau_b\ttau_ap\tkappa\tcoverage\n"

Item = tuple[str, str]  # (topic, item id)
RankedRuns = Mapping[str, Mapping[str, Sequence[str]]]  # run -> topic -> item ids, best first


@dataclass(frozen=True)
class BudgetRow:
    """One policy at one budget share: the items people judged, Kendall's tau-b and tau_ap of the runs' ranking
    under the hybrid qrels against the full qrels, kappa of the hybrid grades against the full ones, and the share of
    runs whose full-qrels score is inside the 95% interval of ir/hybrid_intervals.py."""

    policy: str
    share: float
    judged: int
    tau_b: float
    tau_ap: float
    kappa: float | None
    coverage: float


def read_model(stream: BinaryIO, problems: Problems) -> dict[Item, np.ndarray]:
    """A model's grades in the qrels format, each line optionally followed by one probability per grade, lowest
    first (ir/formats/qrels.py): (topic, item) -> its grade probabilities. The first line's width tells how many
    grades; a line of grade and no probabilities counts as sure of its grade."""
    first = next((line for line in stream if line.strip()), b"")
    stream.seek(0)
    width = max(len(split_columns(first.decode("utf-8", "replace"))) - 4, 0)
    read = list(read_qrels_probabilities(stream, problems, grades=range(width or 1)))
    grades = width or max((record.grade for record, _ in read), default=0) + 1
    model = {}
    for record, probabilities in read:
        if record.grade >= grades or record.grade < 0:
            problems.add(record.line, f"grade {record.grade} is not one of the {grades} grades the file's first "
                                      "line gives probabilities of")
            continue
        model[record.topic_id, record.item_id] = (np.eye(grades)[record.grade] if probabilities is None
                                                  else np.array([probabilities[g] for g in range(grades)]))
    return model


def read_model_file(path: str | os.PathLike) -> dict[Item, np.ndarray]:
    """`read_model` of a file; any problem in it rejects it, each with its line."""
    problems = Problems(file=Path(path).name)
    with open_binary(path) as stream:
        model = read_model(stream, problems)
    if problems:
        raise InputError.of(problems)
    return model


def check_replay(policies: Sequence[str], shares: Sequence[float | str]) -> list[float]:
    """The shares as numbers, once the policies and the shares (each in (0, 1]) are checked: every problem at once."""
    problems = [f"unknown policy '{p}' with --llm: one of {', '.join(POLICIES)}" for p in policies
                if p not in POLICIES]
    numbers = []
    for share in shares:
        try:
            number = float(share)
        except ValueError:
            number = math.nan
        if not 0.0 < number <= 1.0:
            problems.append(f"the budget share '{share}' is not a number in (0, 1]: a share of the items people judge")
        numbers.append(number)
    if not policies:
        problems.append(f"no policy given: one or more of {', '.join(POLICIES)}")
    if not shares:
        problems.append("no budget share given (--budget-share S, S in (0, 1])")
    if problems:
        raise InputError(problems)
    return numbers


def replay(qrels: Mapping[str, Mapping[str, int]], runs: RankedRuns, model: Mapping[Item, np.ndarray], *,
           policies: Sequence[str], shares: Sequence[float | str], measure: str = MAP,
           relevance_level: int = RELEVANCE_LEVEL, seed: int = 0, top_k: int = TOP_K, warm_up: int = WARM_UP,
           replicates: int = REPLICATES, refit_every: int = REFIT_EVERY, resample_topics: bool = True
           ) -> list[BudgetRow]:
    """The llm-only row (the model's own most probable grades, nothing judged), then each policy at each share of
    the qrels items judged (rounded, at least one): `uncertain` is the live order (`live_uncertain`), `audited`
    `ir.hybrid.bias_aware_assess`; the adaptive orders (random, move-to-front, bandit) judge each topic's pool in
    `ir.pools.adaptive`'s order, the budget shared among topics by their sizes, and the `BiasAwareCalibrator` is
    fitted on what they judged. Each row's interval is `hybrid_intervals`' with topics resampled and the calibrator's
    weights drawn from their posterior (what the leaderboard shows; `resample_topics` False: the labels-only one).
    People answer as the qrels do; every qrels item is one the model must grade."""
    shares = check_replay(policies, shares)
    items = [(topic, item) for topic in sorted(qrels, key=natural_key)
             for item in sorted(qrels[topic], key=natural_key)]  # the calibration job's order
    missing = [f"{topic} {item}" for topic, item in items if (topic, item) not in model]
    if missing:
        raise InputError(f"the model grades {len(missing):,} of the qrels items not (first: {missing[0]}): it must "
                         "grade every item the qrels judge")
    widths = {len(row) for row in model.values()}
    truth = np.array([qrels[t][i] for t, i in items])
    grades = max(widths)
    if len(widths) > 1 or truth.max() >= grades:
        raise InputError(f"the qrels have grade {truth.max()}, the model's probabilities {grades} grades (0 to "
                         f"{grades - 1}): it must give one probability per grade of the qrels")
    probabilities = np.array([model[key] for key in items])
    context = context_of(items, {name: runs[name] for name in sorted(runs)})  # runs by name, as the job reads them
    scorer = per_topic_scorer(runs, measure=measure, relevance_level=relevance_level)
    full = run_means(scorer(qrels), list(runs))

    def row(policy: str, share: float, human: Mapping[int, int], calibrated: np.ndarray) -> BudgetRow:
        hybrid = hybrid_grades(calibrated, dict(human))
        means = run_means(scorer(qrels_of(items, hybrid)), list(runs))
        first, second = np.array([full]), np.array([means])
        kappa = cohen_kappa(list(zip(hybrid.tolist(), truth.tolist(), strict=True))).value
        refit = calibration_draws(probabilities, context, human, top_k=top_k, relevance_level=relevance_level)
        intervals = hybrid_intervals(items, human, calibrated, scorer, replicates=replicates, seed=seed,
                                     resample_topics=resample_topics, refit=refit)
        inside = [low - 1e-12 <= full[i] <= high + 1e-12
                  for i, (low, high) in enumerate(intervals.mean_intervals[run] for run in runs)]
        return BudgetRow(policy, share, len(human), float(tau_b(first, second)[0]),
                         float(tau_ap(second, first)[0]), kappa, float(np.mean(inside)))

    rows = [row(LLM_ONLY, 0.0, {}, probabilities)]
    for policy in policies:
        for share in shares:
            budget = max(1, round(share * len(items)))
            if policy == UNCERTAIN:
                done = live_uncertain(probabilities, context, items, runs, truth, budget, seed=seed, warm_up=warm_up,
                                      relevance_level=relevance_level, refit_every=refit_every)
            elif policy == AUDITED:
                done = bias_aware_assess(probabilities, context, lambda i: int(truth[i]), budget, top_k=top_k,
                                         relevance_level=relevance_level, seed=seed, refit_every=refit_every)
            else:
                done = fitted(probabilities, context, truth, order_judged(policy, items, runs, truth, budget,
                              seed=seed, warm_up=warm_up, relevance_level=relevance_level),
                              top_k=top_k, relevance_level=relevance_level)
            rows.append(row(policy, share, done.human, done.calibrated))
    return rows


def run_means(values: Mapping[str, Mapping[str, float]], runs: Sequence[str]) -> list[float]:
    topics = sorted({topic for per_topic in values.values() for topic in per_topic})
    return [float(np.mean([values[run].get(topic, 0.0) for topic in topics])) if topics else 0.0 for run in runs]


def fitted(probabilities: np.ndarray, context: Context, truth: np.ndarray, order: Sequence[int], *,
           top_k: int = TOP_K, relevance_level: int = RELEVANCE_LEVEL) -> Assessment:
    """The items judged in `order`, people's grades (`truth`) for them, and the `BiasAwareCalibrator` fitted on them
    (the fit is convex: refitting after each judgment would end at the same weights)."""
    x = features(probabilities, context, top_k=top_k, relevance_level=relevance_level)
    calibrator = BiasAwareCalibrator(probabilities.shape[1])
    calibrator.fit(x[list(order)], truth[list(order)])
    calibrated = calibrator.predict(x)
    human = {i: int(truth[i]) for i in order}
    return Assessment(list(order), human, calibrated, hybrid_grades(calibrated, human))


def topic_quotas(items: Sequence[Item], budget: int) -> dict[str, tuple[list[int], int]]:
    """Each topic's item indices, and its share of the budget by its number of items (largest remainders first):
    topic -> (indices, quota)."""
    by_topic: dict[str, list[int]] = {}
    for index, (topic, _item) in enumerate(items):
        by_topic.setdefault(topic, []).append(index)
    exact = {topic: budget * len(indices) / len(items) for topic, indices in by_topic.items()}
    quota = {topic: int(value) for topic, value in exact.items()}
    for topic in sorted(exact, key=lambda t: quota[t] - exact[t])[:budget - sum(quota.values())]:
        quota[topic] += 1
    return {topic: (indices, quota[topic]) for topic, indices in by_topic.items()}


def topic_pool(topic: str, indices: Sequence[int], items: Sequence[Item], runs: RankedRuns
               ) -> dict[str, list[tuple[str, int]]]:
    """One topic's pool as the judging orders read it: item id -> [(run, rank), ...] of the runs retrieving it."""
    pool: dict[str, list[tuple[str, int]]] = {items[i][1]: [] for i in indices}
    for run, per_topic in runs.items():
        for rank, item in enumerate(per_topic.get(topic, ()), start=1):
            if item in pool and all(r != run for r, _ in pool[item]):
                pool[item].append((run, rank))
    return pool


def order_judged(policy: str, items: Sequence[Item], runs: RankedRuns, truth: np.ndarray, budget: int, *, seed: int,
                 warm_up: int = WARM_UP, relevance_level: int = RELEVANCE_LEVEL) -> list[int]:
    """The indices of the `budget` items an adaptive order has people judge: each topic gets its share of the budget
    (`topic_quotas`), and judges that many in the order `ir.pools.adaptive.Judging` gives over the topic's items and
    their ranks in the runs; items no run retrieves come last."""
    chosen = []
    for topic, (indices, quota) in topic_quotas(items, budget).items():
        index_of = {items[i][1]: i for i in indices}
        judging = Judging(policy, topic_pool(topic, indices, items, runs), seed=seed, topic_id=topic, warm_up=warm_up)
        taken: list[int] = []
        while len(taken) < quota and (chosen_item := judging.take()) is not None:
            taken.append(index_of[chosen_item])
            judging.record(chosen_item, is_relevant(int(truth[index_of[chosen_item]]), relevance_level))
        rest = [i for i in indices if i not in set(taken)]
        chosen += taken + rest[:quota - len(taken)]
    return chosen


def live_uncertain(probabilities: np.ndarray, context: Context, items: Sequence[Item], runs: RankedRuns,
                   truth: np.ndarray, budget: int, *, seed: int, warm_up: int = WARM_UP,
                   relevance_level: int = RELEVANCE_LEVEL, refit_every: int = REFIT_EVERY) -> Assessment:
    """The `uncertain` judging order as the service runs it, replayed: each topic gets its share of the budget
    (`topic_quotas`) and its next item from `ir.uncertain.uncertain_items` (the judging page's choice: warm-up in
    the random display order, then the smallest calibrated margin) on the calibration as it stands, as stored; the
    topics take turns, as assessors of different topics judge side by side, and the calibration is refitted by the
    product's own fit (`ir.calibration_fit.calibration_fit`) on every judgment so far each `refit_every` judgments
    (the calibration job refits between judgments; its top K is the product's, `ir.hybrid.TOP_K`). At the end every
    unjudged item gets its calibrated most probable grade."""
    def fit(order: Sequence[int]) -> np.ndarray:
        return calibration_fit(probabilities, context, [(i, int(truth[i])) for i in order],
                               relevance_level=relevance_level).calibrated

    calibrated = fit([])
    plans = topic_quotas(items, budget)
    pools = {topic: topic_pool(topic, indices, items, runs) for topic, (indices, _quota) in plans.items()}
    index_of = {item: index for index, item in enumerate(items)}
    judged: dict[str, dict[str, bool]] = {topic: {} for topic in plans}
    order: list[int] = []
    while True:
        progressed = False
        for topic, (indices, quota) in plans.items():
            if len(judged[topic]) >= quota:
                continue
            stored = as_stored(calibrated[indices])
            found = uncertain_items(pools[topic], judged[topic],
                                    {items[i][1]: row for i, row in zip(indices, stored.tolist(), strict=True)},
                                    seed=seed, warm_up=warm_up, topic_id=topic)
            if not found:
                continue
            index = index_of[topic, found[0]]
            judged[topic][found[0]] = is_relevant(int(truth[index]), relevance_level)
            order.append(index)
            progressed = True
            if len(order) % refit_every == 0:
                calibrated = fit(order)
        if not progressed:
            break
    calibrated = fit(order)
    human = {i: int(truth[i]) for i in order}
    return Assessment(order, human, calibrated, hybrid_grades(calibrated, human))


def budget_lines(rows: Sequence[BudgetRow]) -> list[str]:
    """The replay's TSV: a header, then policy, share, judged, tau_b, tau_ap, kappa and coverage per row."""
    return [HEADER] + [f"{r.policy}\t{r.share:g}\t{r.judged}\t{format_value(r.tau_b)}\t{format_value(r.tau_ap)}"
                       f"\t{format_value(r.kappa)}\t{format_value(r.coverage)}\n" for r in rows]

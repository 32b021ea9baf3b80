"""Knowing when to stop judging a topic (docs/pooling.md, "Knowing when to stop"): the relevant items its pool still
holds unfound, with an interval, and the advice of Cormack & Grossman's (SIGIR 2016) knee and target rules. Pure;
docs/pooling.md, "Judging order"."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
PENALTY = 1.0  # a Gaussian prior on the coefficients (L2), so that a handful of judgments, or none relevant, fit

# The knee rule, adapted to pools of ~450 items (C&G 2016: slope ratio >= 6 after >= 150 documents reviewed, on
# collections of hundreds of thousands). 150 judgments are a third of an ARQMath pool; the rule's purpose is to see
# the gain curve bend, which 100 judgments (22% of 450) already show while leaving a budget to save. The ratio is
# C&G's 6. A pool smaller than KNEE_MIN_JUDGED / KNEE_MIN_SHARE (250 items) needs 40% of it judged.
KNEE_RATIO = 6.0
KNEE_MIN_JUDGED = 100
KNEE_MIN_SHARE = 0.4
KNEE_SKIP = 10


@dataclass(frozen=True)
class Unfound:
    """The expected number of relevant items among the unjudged ones, and a 95% interval around it."""

    expected: float
    low: int
    high: int


@dataclass(frozen=True)
class Advice:
    stop: bool | None  # None: the rule has nothing to say yet
    reason: str


@dataclass(frozen=True)
class TopicStopping:
    judged: int
    pool: int
    found: int
    unfound: Unfound
    knee: Advice
    target: Advice


def unfound_estimate(pool: Mapping[str, Sequence[tuple[str, int]]], judged: Mapping[str, bool]) -> Unfound:
    """The relevant items expected among the unjudged ones, from what the judged ones say of the runs.

    An item's chance of being relevant is a logistic regression on its provenance, fitted to the judged items: the
    number of runs that pooled it, its best rank and the sum of its reciprocal ranks (all as logarithms). An
    adaptive order picks items by their provenance and the judgments so far, so the judged items are no random
    sample; but among items of the same provenance, which ones were judged says nothing of their relevance, and the
    regression corrects for what the order chose, where one rate over the judged items would not (bench/adaptive.py
    measures it). The estimate is the sum of the unjudged items' chances; the 95% interval adds the fit's own
    uncertainty (delta method over the coefficients) to the items' variation (Poisson binomial)."""
    if all(item in judged for item in pool):
        return Unfound(0.0, 0, 0)
    import numpy as np  # only when estimating: pages and commands start without it

    # The provenance as flat arrays, an entry per (item, run): the features are sums over them (numpy's bincount).
    provs = list(pool.values())
    entries = [entry for prov in provs for entry in prov]
    names, rank_list = zip(*entries, strict=True)
    run_names, run_idx = np.unique(np.array(names), return_inverse=True)
    rank = np.array(rank_list, dtype=float)
    lengths = np.array([len(prov) for prov in provs])
    item_idx = np.repeat(np.arange(len(provs)), lengths)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    judged_mask = np.array([item in judged for item in pool])
    y_all = np.array([bool(judged.get(item)) for item in pool], dtype=float)
    n_items = len(pool)
    # Each run's precision over the judged items it pooled (Jeffreys' prior), the same for a judged and an unjudged
    # item of the run: a property of the runs, so no item's own label leaks into its features.
    entry_judged = judged_mask[item_idx].astype(float)
    run_relevant = np.bincount(run_idx, weights=entry_judged * y_all[item_idx], minlength=len(run_names))
    run_judged = np.bincount(run_idx, weights=entry_judged, minlength=len(run_names))
    precision = (run_relevant + 0.5) / (run_judged + 1)
    votes = np.bincount(item_idx, minlength=n_items).astype(float)
    mean_precision = np.bincount(item_idx, weights=precision[run_idx], minlength=n_items) / votes
    features = np.column_stack([
        np.log(votes), np.log(np.minimum.reduceat(rank, starts)),
        np.log(np.bincount(item_idx, weights=1 / rank, minlength=n_items)),
        np.log(mean_precision / (1 - mean_precision))])
    x_left = features[~judged_mask]
    mean = x_left.mean(axis=0)
    spread = x_left.std(axis=0)
    scaled = np.hstack([np.ones((n_items, 1)), (features - mean) / np.where(spread > 0, spread, 1.0)])
    # The judged items in the pool, whatever judged holds besides (an item of an earlier pool).
    beta, covariance = _logistic_fit(scaled[judged_mask], y_all[judged_mask])
    left = scaled[~judged_mask]
    p = 1 / (1 + np.exp(-(left @ beta)))
    expected = float(p.sum())
    gradient = (p * (1 - p)) @ left
    variance = float(gradient @ covariance @ gradient) + float((p * (1 - p)).sum())
    margin = Z95 * math.sqrt(variance)
    return Unfound(expected=expected, low=max(0, math.floor(expected - margin)),
                   high=min(len(left), math.ceil(expected + margin)))


def _logistic_fit(design: Any, y: Any) -> tuple[Any, Any]:
    """Newton's method for L2-penalised logistic regression (the prior's centre: a chance of 1 in 2, no effect of
    provenance): the coefficients and their covariance, the inverse of the penalised Hessian at the optimum."""
    import numpy as np
    beta = np.zeros(design.shape[1])
    penalty = PENALTY * np.eye(design.shape[1])
    hessian = penalty
    for _ in range(50):
        p = 1 / (1 + np.exp(-(design @ beta)))
        hessian = (design.T * (p * (1 - p))) @ design + penalty
        step = np.linalg.solve(hessian, design.T @ (y - p) - penalty @ beta)
        beta = beta + step
        if np.abs(step).max() < 1e-8:
            break
    return beta, np.linalg.inv(hessian)


def knee_advice(gains: Sequence[bool], pool: int) -> Advice:
    """Cormack & Grossman's knee rule on the gain curve (relevant found against judged, in judging order): the knee
    is the point farthest above the line from the origin to the last point; the slope ratio is the curve's slope
    before the knee over its slope after it, (found_k / k) / ((found_s - found_k + 1) / (s - k)) (C&G's +1 keeps
    a flat tail from dividing by zero). Stop once at least the minimum is judged and the ratio is >= 6."""
    judged = len(gains)
    minimum = min(KNEE_MIN_JUDGED, math.ceil(KNEE_MIN_SHARE * pool))
    found = 0
    curve = [0]
    for gain in gains:
        found += gain
        curve.append(found)
    if found == 0:
        return Advice(None, "no relevant item found yet")
    # Farthest above the chord from (0, 0) to (judged, found): maximise found_k * judged - k * found.
    # Not in the first tenth (at least 10): a relevant first item would be a "knee" of one judgment, whose slope
    # of 1 makes any curve look bent.
    first = min(max(KNEE_SKIP, judged // 10), judged)
    knee = max(range(first, judged + 1), key=lambda k: curve[k] * judged - k * found)
    ratio = (curve[knee] / knee) / ((found - curve[knee] + 1) / (judged - knee)) if knee < judged else 0.0
    if judged < minimum:
        return Advice(None, f"slope ratio {ratio:.1f}; the rule waits for {minimum} judged")
    if ratio >= KNEE_RATIO:
        return Advice(True, f"stop: slope ratio {ratio:.1f} ≥ {KNEE_RATIO:g} (knee at {knee} judged)")
    return Advice(False, f"go on: slope ratio {ratio:.1f} < {KNEE_RATIO:g}")


def target_advice(pool: Mapping[str, Sequence[tuple[str, int]]], judged: Mapping[str, bool], targets: Sequence[str],
                  *, adaptive: bool) -> Advice:
    """Cormack & Grossman's target rule: the relevant items of a random sample judged first (`targets`: the
    warm-up, in random order) are the targets; stop once the adaptive order has reached every one of them, i.e.
    once one of the runs that pooled it has had every item above it judged (the order read past it). A random
    order has no such test: its judged items are themselves the random sample (the estimate above says what is
    left)."""
    if not adaptive:
        return Advice(None, "random order: see the estimate")
    relevant = [item for item in targets if judged.get(item)]
    if not targets:
        return Advice(None, "no random sample judged yet")
    if not relevant:
        return Advice(None, f"no relevant item among the {len(targets)} random ones: no target")
    ranked: dict[str, list[tuple[int, str]]] = {}
    for item, prov in pool.items():
        for run, rank in prov:
            ranked.setdefault(run, []).append((rank, item))
    reached_to: dict[str, int] = {}  # run -> the deepest rank down to which everything is judged
    for run, entries in ranked.items():
        entries.sort()
        depth = 0
        for rank, item in entries:
            if item not in judged:
                break
            depth = rank
        reached_to[run] = depth
    # A target is judged itself, so "every item above it judged" is "judged down to its rank" in one of its runs.
    reached = sum(1 for item in relevant if any(rank <= reached_to[run] for run, rank in pool.get(item, ())))
    if reached == len(relevant):
        return Advice(True, f"stop: all {len(relevant)} target{'s' if len(relevant) != 1 else ''} reached")
    return Advice(False, f"go on: {reached} of {len(relevant)} targets reached")


def topic_stopping(pool: Mapping[str, Sequence[tuple[str, int]]], judged: Mapping[str, bool], *, warm_up: int,
                   adaptive: bool) -> TopicStopping:
    """A topic's estimate and advice from its pool (item -> provenance) and its judgments in the order made."""
    in_pool = {item: rel for item, rel in judged.items() if item in pool}
    gains = list(in_pool.values())
    return TopicStopping(judged=len(in_pool), pool=len(pool), found=sum(gains),
                         unfound=unfound_estimate(pool, in_pool), knee=knee_advice(gains, len(pool)),
                         target=target_advice(pool, in_pool, list(in_pool)[:warm_up], adaptive=adaptive))

"""Knowing when to stop judging a topic (issue 27): the relevant items its pool still holds unfound, with an interval,
and the advice of Cormack & Grossman's (SIGIR 2016) knee and target rules. Pure; docs/pooling.md, "Judging order"."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
FEATURES = 4
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
    unjudged = [prov for item, prov in pool.items() if item not in judged]
    labelled = [(pool[item], relevant) for item, relevant in judged.items() if item in pool]
    if not unjudged:
        return Unfound(0.0, 0, 0)
    import numpy as np  # only when estimating: pages and commands start without it

    runs: dict[str, list[int]] = {}
    for prov, relevant in labelled:
        for run, _ in prov:
            count = runs.setdefault(run, [0, 0])
            count[0] += relevant
            count[1] += 1
    x_left = np.array([_features(prov, runs) for prov in unjudged])
    x_judged = np.array([_features(prov, runs) for prov, _ in labelled]).reshape(-1, FEATURES)
    y = np.array([float(rel) for _, rel in labelled])
    mean = x_left.mean(axis=0)
    spread = x_left.std(axis=0)
    scale = np.where(spread > 0, spread, 1.0)
    design = np.hstack([np.ones((len(y), 1)), (x_judged - mean) / scale])
    left = np.hstack([np.ones((len(x_left), 1)), (x_left - mean) / scale])
    beta, covariance = _logistic_fit(design, y)
    p = 1 / (1 + np.exp(-(left @ beta)))
    expected = float(p.sum())
    gradient = (p * (1 - p)) @ left
    variance = float(gradient @ covariance @ gradient) + float((p * (1 - p)).sum())
    margin = Z95 * math.sqrt(variance)
    return Unfound(expected=expected, low=max(0, math.floor(expected - margin)),
                   high=min(len(unjudged), math.ceil(expected + margin)))


def _features(prov: Sequence[tuple[str, int]], runs: Mapping[str, list[int]]) -> tuple[float, float, float, float]:
    """log(runs), log(best rank), log(sum of 1/rank), and the logit of the mean precision of its runs over the
    judged items (the same value for a judged and an unjudged item of the same runs: a property of the runs, so no
    item's own label leaks into its features more than into its neighbours')."""
    ranks = [rank for _, rank in prov]
    precision = sum((runs.get(run, (0, 0))[0] + 0.5) / (runs.get(run, (0, 0))[1] + 1) for run, _ in prov) / len(prov)
    return (math.log(len(ranks)), math.log(min(ranks)), math.log(sum(1 / r for r in ranks)),
            math.log(precision / (1 - precision)))


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

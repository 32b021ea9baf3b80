"""How far two qrels agree on the ranking of systems (docs/analysis.md): Kendall's tau-b and the AP correlation
tau_ap (Yilmaz, Aslam & Robertson, SIGIR 2008) between the runs ranked by one measure under each qrels, with a
percentile bootstrap interval over topics. Pure numpy over plain data (run -> topic -> value); docs/evaluation.md.

The functions take many rankings at once (one row per bootstrap resample), so that a thousand resamples cost a few
array operations instead of a thousand calls. They are the one implementation: `ir.statistics.kendall_tau` and
`ir.statistics.tau_ap` (reusability, the judging simulator) call them on one ranking; the tests hold them against
scipy's `kendalltau` and the paper's sum, item by item.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

Values = Mapping[str, Mapping[str, float]]  # run -> topic -> value of one measure
# The seed and the confidence level of every bootstrap and randomization test here and in ir.statistics, which
# builds on this module.
SEED = 0
CONFIDENCE = 0.95
RESAMPLES = 1_000
_CELLS = 4_000_000  # rankings x runs x runs compared in one block: 4M int8 pair signs are 4 MB each


def value_matrix(values: Values, runs: Sequence[str], topics: Sequence[str]) -> np.ndarray:
    """The runs x topics array of one measure, a topic a run has no value for counting 0."""
    import numpy as np  # numpy (and scipy) only when a statistic is computed: commands and pages start without it
    matrix = np.zeros((len(runs), len(topics)))
    for row, run in enumerate(runs):
        per_topic = values.get(run, {})
        matrix[row] = [per_topic.get(topic, 0.0) for topic in topics]
    return matrix


def tau_b(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row of `first` against the same row of `second` (rankings x runs arrays of scores):
    (concordant - discordant) / sqrt((pairs - ties in first) * (pairs - ties in second)), scipy's `kendalltau`
    row by row; NaN where a row has every run tied."""
    import numpy as np
    first, second = np.atleast_2d(first), np.atleast_2d(second)
    count = first.shape[1]
    upper = np.triu_indices(count, 1)
    result = np.full(first.shape[0], math.nan)
    for start, stop in _blocks(first.shape[0], count):
        x = np.sign(first[start:stop, upper[0]] - first[start:stop, upper[1]]).astype(np.int8)  # each pair once
        y = np.sign(second[start:stop, upper[0]] - second[start:stop, upper[1]]).astype(np.int8)
        score = (x.astype(np.int32) * y).sum(axis=1)
        untied = np.count_nonzero(x, axis=1).astype(float) * np.count_nonzero(y, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            result[start:stop] = np.where(untied > 0, score / np.sqrt(untied), math.nan)
    return result


def positions(scores: np.ndarray) -> np.ndarray:
    """Each run's place (0 for the best) in each row's ranking: score descending, tied runs in column order."""
    import numpy as np
    scores = np.atleast_2d(scores)
    order = np.argsort(-scores, axis=1, kind="stable")
    places = np.empty_like(order)
    np.put_along_axis(places, order, np.arange(scores.shape[1])[None, :].repeat(scores.shape[0], axis=0), axis=1)
    return places


def tau_ap(estimated: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """The AP correlation of each row's ranking by `estimated` against the ranking by `actual` (rankings x runs
    arrays of scores, rows ranked by `positions`): 2 / (N - 1) * sum over the runs below the top of C(i) / (i - 1)
    - 1, where a run at place i (from 1) has C(i) of the i - 1 runs above it that are above it in the actual ranking
    too. Not symmetric: the actual ranking is the truth, and a swap near its top costs more than one near the bottom.
    NaN with fewer than two runs."""
    import numpy as np
    estimated, actual = np.atleast_2d(estimated), np.atleast_2d(actual)
    count = estimated.shape[1]
    result = np.full(estimated.shape[0], math.nan)
    if count < 2:
        return result
    for start, stop in _blocks(estimated.shape[0], count):
        place, truth = positions(estimated[start:stop]), positions(actual[start:stop])
        above = place[:, None, :] < place[:, :, None]  # [row, x, y]: y is above x in the estimated ranking
        right = truth[:, None, :] < truth[:, :, None]  # ... and in the actual one
        correct = np.count_nonzero(above & right, axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            shares = np.where(place > 0, correct / np.maximum(place, 1), 0.0)
        result[start:stop] = 2.0 * shares.sum(axis=1) / (count - 1) - 1.0
    return result


def _blocks(rows: int, count: int) -> list[tuple[int, int]]:
    size = max(1, _CELLS // max(1, count * count))
    return [(start, min(rows, start + size)) for start in range(0, rows, size)]


@dataclass
class RankCorrelation:
    """Kendall's tau-b and tau_ap between the runs' rankings by two qrels, each with its bootstrap interval (NaN:
    undefined, fewer than two runs or every run tied)."""

    measure: str
    runs: int
    topics: int
    kendall_tau: float
    tau_low: float
    tau_high: float
    tau_ap: float
    tau_ap_low: float
    tau_ap_high: float
    resamples: int = RESAMPLES
    level: float = CONFIDENCE


def rank_correlation(reference: Values, other: Values, runs: Sequence[str], topics: Sequence[str], *, measure: str,
                     resamples: int = RESAMPLES, seed: int = SEED, level: float = CONFIDENCE) -> RankCorrelation:
    """How `other`'s ranking of `runs` agrees with `reference`'s (the truth of tau_ap): each run's mean of its
    per-topic values over `topics` (a topic it has no value for counting 0) under each, tau-b and tau_ap between the
    two rankings, and their percentile interval at `level` over `resamples` resamples of the topics (drawn with
    replacement, the same draw for every run and both qrels; seeded). Runs are taken in name order, so tied runs rank
    in name order in both rankings."""
    import numpy as np
    names = sorted(runs)
    first, second = value_matrix(reference, names, topics), value_matrix(other, names, topics)
    nan = math.nan
    if len(names) < 2 or not topics:
        return RankCorrelation(measure, len(names), len(topics), nan, nan, nan, nan, nan, nan, resamples, level)
    means_first, means_second = first.mean(axis=1)[None, :], second.mean(axis=1)[None, :]
    tau, ap = float(tau_b(means_first, means_second)[0]), float(tau_ap(means_second, means_first)[0])
    low = high = ap_low = ap_high = nan
    if len(topics) > 1 and resamples > 0:
        draws = np.random.default_rng(seed).integers(0, len(topics), size=(resamples, len(topics)))
        weights = np.zeros((resamples, len(topics)))
        np.add.at(weights, (np.arange(resamples)[:, None], draws), 1.0 / len(topics))
        taus, aps = tau_b(weights @ first.T, weights @ second.T), tau_ap(weights @ second.T, weights @ first.T)
        low, high = _interval(taus, level)
        ap_low, ap_high = _interval(aps, level)
    return RankCorrelation(measure, len(names), len(topics), tau, low, high, ap, ap_low, ap_high, resamples, level)


def _interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The percentile interval of the defined values (a resample where every run ties has no tau)."""
    import numpy as np
    defined = values[~np.isnan(values)]
    if not defined.size:
        return math.nan, math.nan
    low, high = np.percentile(defined, [50 * (1 - level), 50 * (1 + level)])
    return float(low), float(high)

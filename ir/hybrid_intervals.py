"""Honest intervals for scores from hybrid qrels (docs/llm_calibration.md, "Intervals"): a bootstrap over topics in
which, inside each replicate, the calibrator's weights are drawn from their posterior and every model-filled
item's grade is drawn from its calibrated distribution, so that the intervals of each run's mean and rank carry the
model's and the calibration's uncertainty as well as the topics'. The scoring is a
parameter; `per_topic_scorer` makes one from `ir.scoring.score_runs`. Pure numpy: no Django."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ir.grades import RELEVANCE_LEVEL
from ir.hybrid import qrels_of
from ir.prime import MAP
from ir.rankings import CONFIDENCE, SEED
from ir.scoring import score_runs

Qrels = Mapping[str, Mapping[str, int]]
PerTopicScorer = Callable[[Qrels], dict[str, dict[str, float]]]  # qrels -> run -> topic -> value
REPLICATES = 1000


def per_topic_scorer(runs: Mapping[str, Mapping[str, Sequence[str]]], *, measure: str = MAP,
                     relevance_level: int = RELEVANCE_LEVEL) -> PerTopicScorer:
    """A scorer of ranked runs (run -> topic -> items, best first) by one of the product's measures
    (`ir.scoring.score_runs`, every qrels topic counted, trec_eval -c): qrels -> run -> topic -> value."""
    lists = {name: {topic: {item: float(len(ranked) - rank) for rank, item in enumerate(ranked)}
                    for topic, ranked in per_topic.items()}
             for name, per_topic in runs.items()}

    def score(qrels: Qrels) -> dict[str, dict[str, float]]:
        scored = {name: {topic: items for topic, items in per_topic.items() if topic in qrels}
                  for name, per_topic in lists.items()}
        values: dict[str, dict[str, float]] = {name: {} for name in runs}
        for row in score_runs(scored.items(), qrels, relevance_level=relevance_level, all_topics=True).rows:
            if row.topic is not None and row.measure == measure:
                values[row.run][row.topic] = row.value
        return values
    return score


@dataclass(frozen=True)
class Intervals:
    """Per run: its mean over the topics on the hybrid qrels (model-filled items at their most probable grade), the
    bootstrap interval of its mean and of its rank (1 the best)."""

    runs: list[str]
    means: dict[str, float]
    mean_intervals: dict[str, tuple[float, float]]
    rank_intervals: dict[str, tuple[int, int]]


def draw_grades(calibrated: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One grade per row drawn from its calibrated distribution."""
    cumulative = np.cumsum(calibrated, axis=1)
    draws = rng.random((len(calibrated), 1)) * cumulative[:, -1:]
    return np.minimum((draws >= cumulative).sum(axis=1), calibrated.shape[1] - 1)


def rank_matrix(means: np.ndarray) -> np.ndarray:
    """replicates x runs of means -> each run's rank per replicate, 1 the best, tied runs sharing the better rank."""
    return 1 + (means[:, None, :] > means[:, :, None]).sum(axis=2)


def hybrid_intervals(items: Sequence[tuple[str, str]], human: Mapping[int, int], calibrated: np.ndarray,
                     scorer: PerTopicScorer, *, replicates: int = REPLICATES, level: float = CONFIDENCE,
                     seed: int = SEED, resample_topics: bool = True,
                     refit: Callable[[np.random.Generator], np.ndarray] | None = None) -> Intervals:
    """Bootstrap intervals of each run's mean and rank over hybrid qrels: `items` ((topic, item), rows of
    `calibrated`), people's grades of the `human` ones (item index -> grade), the calibrated probabilities of the
    others. Each replicate takes the calibration anew from `refit` when given (a draw of the calibrator's weights
    from their posterior: `ir.hybrid.calibration_draws`), draws every model-filled item's grade from it, scores the
    runs per topic with `scorer` and, with `resample_topics`, draws the topics with replacement (without it, the same
    topics: the interval is then of the score full human qrels would give these topics).

    Two spreads come of the replicates, and the interval holds both (docs/llm_calibration.md, "Intervals"): the
    percentiles of the drawn qrels' means, and the same label spread laid around the hybrid qrels' own means
    (their topic resample plus each replicate's departure from the replicates' average). The first is right when
    the calibrated grades are the truth's distribution; the second when their errors are shared across a run's items,
    which item-by-item draws cannot show and which leaves the draws off-centre."""
    rng = np.random.default_rng(seed)
    filled = np.array([index for index in range(len(items)) if index not in human], dtype=int)
    grades = np.argmax(calibrated, axis=1)
    for index, grade in human.items():
        grades[index] = grade
    point = scorer(qrels_of(items, grades))
    runs = list(point)
    topics = sorted({topic for per_topic in point.values() for topic in per_topic})
    point_matrix = np.array([[point[run].get(topic, 0.0) for topic in topics] for run in runs]).reshape(len(runs), -1)
    means = {run: float(point_matrix[i].mean()) if topics else 0.0 for i, run in enumerate(runs)}
    drawn_means = np.empty((replicates, len(runs)))
    label_means = np.empty((replicates, len(runs)))
    point_means = np.empty((replicates, len(runs)))
    for replicate in range(replicates):
        distributions = calibrated if refit is None else refit(rng)
        drawn = grades.copy()
        drawn[filled] = draw_grades(distributions[filled], rng)
        values = scorer(qrels_of(items, drawn))
        matrix = np.array([[values[run].get(topic, 0.0) for topic in topics] for run in runs]).reshape(len(runs), -1)
        chosen = rng.integers(0, len(topics), size=len(topics)) if resample_topics else np.arange(len(topics))
        drawn_means[replicate] = matrix[:, chosen].mean(axis=1)
        label_means[replicate] = matrix.mean(axis=1)
        point_means[replicate] = point_matrix[:, chosen].mean(axis=1)
    centred = point_means + label_means - label_means.mean(axis=0)
    tail = (1.0 - level) / 2.0 * 100.0
    ends = [np.percentile(samples, [tail, 100.0 - tail], axis=0) for samples in (drawn_means, centred)]
    low, high = np.minimum(ends[0][0], ends[1][0]), np.maximum(ends[0][1], ends[1][1])
    rank_ends = [np.percentile(rank_matrix(samples), [tail, 100.0 - tail], axis=0, method="nearest")
                 for samples in (drawn_means, centred)]
    rank_low, rank_high = np.minimum(rank_ends[0][0], rank_ends[1][0]), np.maximum(rank_ends[0][1], rank_ends[1][1])
    return Intervals(runs, means,
                     {run: (float(low[i]), float(high[i])) for i, run in enumerate(runs)},
                     {run: (int(rank_low[i]), int(rank_high[i])) for i, run in enumerate(runs)})

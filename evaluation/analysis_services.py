"""The analyses of `ir.statistics` applied to an `Evaluation` (files or a campaign): significance tables,
bootstrap intervals and topic-category means of its runs, for the `evaluate` command, the leaderboard and the API.
Each pairs the runs over the qrels' topics, a topic a run has no value for counting 0 (docs/analysis.md)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from evaluation.services import Evaluation
from ir import statistics as analysis
from ir.formats.topic_info import TopicInfo
from ir.prime import UNJUDGED
from ir.statistics import Comparison, Values


def analysed_measures(evaluation: Evaluation) -> list[str]:
    """The measures the analyses cover: every measure the evaluation reports but Unjudged@10 (a share of the top
    10 left unjudged is a fact about the pool, not a score to compare)."""
    return [measure for measure in evaluation.measures if measure != UNJUDGED]


def measure_values(evaluation: Evaluation, measures: Sequence[str] | None = None) -> dict[str, Values]:
    """measure -> run -> topic -> value, from the runs' per-topic rows."""
    chosen = analysed_measures(evaluation) if measures is None else list(measures)
    return {measure: {run.name: {topic: row[measure] for topic, row in run.per_topic.items() if measure in row}
                      for run in evaluation.runs}
            for measure in chosen}


def run_names(evaluation: Evaluation) -> list[str]:
    return [run.name for run in evaluation.runs]


def significance_table(evaluation: Evaluation, *, measures: Sequence[str] | None = None, baseline: str | None = None,
                       permutations: int = analysis.PERMUTATIONS, seed: int = analysis.SEED) -> list[Comparison]:
    """Every pair of the evaluation's runs (in its order), or every run against `baseline`, on each measure."""
    return analysis.significance(measure_values(evaluation, measures), run_names(evaluation), evaluation.topics,
                                 baseline=baseline, permutations=permutations, seed=seed)


def interval_table(evaluation: Evaluation, *, measures: Sequence[str] | None = None,
                   resamples: int = analysis.RESAMPLES, seed: int = analysis.SEED
                   ) -> dict[str, dict[str, tuple[float, float]]]:
    """measure -> run -> the bootstrap 95% interval of its mean over the qrels' topics."""
    return {measure: analysis.confidence_intervals(values, run_names(evaluation), evaluation.topics,
                                                   resamples=resamples, seed=seed)
            for measure, values in measure_values(evaluation, measures).items()}


def category_table(evaluation: Evaluation, info: TopicInfo, column: str, *, measures: Sequence[str] | None = None
                   ) -> dict[str, dict[str, dict[str, float]]]:
    """measure -> run -> value of `column` -> the run's mean over the qrels' topics in that group."""
    return {measure: analysis.category_means(values, info, column, evaluation.topics)
            for measure, values in measure_values(evaluation, measures).items()}


def extra_lines(evaluation: Evaluation, *, intervals: bool = False, info: TopicInfo | None = None,
                column: str | None = None, seed: int = analysis.SEED) -> Iterator[str]:
    """The rows `evaluate` writes after the scores: `--ci` intervals, then `--by` category means."""
    if intervals:
        yield from analysis.confidence_lines(interval_table(evaluation, seed=seed))
    if info is not None and column is not None:
        yield from analysis.category_lines(category_table(evaluation, info, column), column)

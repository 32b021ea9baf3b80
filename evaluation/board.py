"""The leaderboard's analysis of one measure: each run's bootstrap interval, whether it differs significantly from
the best run and from a chosen baseline, its means per topic category, and the per-topic differences of two runs.
The statistics are `ir.statistics`'s, over the qrels' topics (docs/analysis.md)."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.cache import cache

from evaluation import analysis_services, selectors
from evaluation.services import LEADERBOARD_SECONDS, Evaluation
from ir import statistics as analysis
from ir.formats.topic_info import TopicInfo, has_column
from ir.prime import MEASURES, finite, format_value
from ir.problems import InputError
from ir.statistics import Comparison

ALPHA = 0.05  # a difference is marked significant when Holm's p of the randomization test is below it


@dataclass
class RunAnalysis:
    run: str
    mean: float | None
    low: float | None
    high: float | None
    vs_best: Comparison | None = None
    vs_baseline: Comparison | None = None

    @property
    def below_best(self) -> bool:
        return self.vs_best is not None and self.vs_best.p_randomization_holm < ALPHA

    @property
    def baseline_mark(self) -> str:
        """"above" or "below" the baseline when the difference is significant, else ""."""
        found = self.vs_baseline
        if found is None or found.p_randomization_holm >= ALPHA:
            return ""
        return "above" if found.diff > 0 else "below"


@dataclass
class BoardAnalysis:
    measure: str
    best: str | None
    baseline: str | None
    runs: list[RunAnalysis]  # best mean first
    column: str | None = None
    groups: list[str] = field(default_factory=list)
    categories: dict[str, dict[str, float]] = field(default_factory=dict)  # run -> group -> mean
    alpha: float = ALPHA
    permutations: int = analysis.PERMUTATIONS


def baseline_problem(evaluation: Evaluation, baseline: str | None) -> str | None:
    if baseline and baseline not in analysis_services.run_names(evaluation):
        return f"the baseline {baseline} is not one of the runs"
    return None


def column_problem(info: TopicInfo | None, column: str | None) -> str | None:
    if not column:
        return None
    if info is None:
        return "the campaign has no topic information: upload it to break the scores down by category"
    if not has_column(info, column):
        return f"no column {column} in the campaign's topic information"
    return None


def board_analysis(evaluation: Evaluation, *, measure: str = MEASURES[0], baseline: str | None = None,
                   info: TopicInfo | None = None, column: str | None = None, seed: int = analysis.SEED
                   ) -> BoardAnalysis:
    """The analysis of `measure` (one the evaluation reports). Runs are ordered by their mean, best first; the best
    is compared with every other run, and so is the baseline when one is chosen (two families, each Holm'd)."""
    names = analysis_services.run_names(evaluation)
    problem = baseline_problem(evaluation, baseline)
    if problem:
        raise InputError(problem)
    # Over the qrels' topics, as the intervals and the tests are: every figure of the table from one averaging, not
    # the leaderboard's (docs/analysis.md, "Which topics, which values").
    values = analysis_services.measure_values(evaluation, [measure])[measure]
    means = {name: finite(mean) for name, mean in analysis.topic_means(values, names, evaluation.topics).items()}
    order = sorted(names, key=lambda name: (means[name] is None, -(means[name] or 0.0)))
    best = order[0] if order and means[order[0]] is not None else None
    intervals = analysis_services.interval_table(evaluation, measures=[measure], seed=seed)[measure]
    rows = {name: RunAnalysis(name, means[name], finite(intervals[name][0]), finite(intervals[name][1]))
            for name in order}
    for chosen, slot in ((best, "vs_best"), (baseline, "vs_baseline")):
        if chosen is None or len(names) < 2:
            continue
        for comparison in analysis_services.significance_table(evaluation, measures=[measure], baseline=chosen,
                                                               seed=seed):
            setattr(rows[comparison.run_a], slot, comparison)
    result = BoardAnalysis(measure=measure, best=best, baseline=baseline or None, runs=[rows[n] for n in order])
    if info is not None and column:
        means_by = analysis_services.category_table(evaluation, info, column, measures=[measure])[measure]
        result.column = column
        result.groups = list(next(iter(means_by.values()), {}))
        result.categories = means_by
    return result


def cached_board_analysis(evaluation: Evaluation, *, campaign_pk: int, measure: str, baseline: str | None,
                          info: TopicInfo | None, column: str | None) -> BoardAnalysis:
    """`board_analysis` cached with the scores' version, the relevance level, the options and the topic
    information it groups by."""
    asked = repr((evaluation.version, evaluation.all_topics, evaluation.relevance_level, measure, baseline, column,
                  sorted(info.topics.items()) if info is not None and column else None))
    key = f"board:v1:{campaign_pk}:{hashlib.sha256(asked.encode()).hexdigest()[:32]}"
    found = cache.get(key)
    if found is None:
        found = board_analysis(evaluation, measure=measure, baseline=baseline, info=info, column=column)
        cache.set(key, found, LEADERBOARD_SECONDS)
    return found


def parent_means(evaluation: Evaluation, measure: str, parents: dict[str, str]) -> dict[str, float]:
    """run -> its mean of `measure` over parent topics, each the mean of its micro-topics (`parents`: micro-topic
    id -> parent id) over the qrels' topics."""
    values = analysis_services.measure_values(evaluation, [measure])[measure]
    return analysis.parent_means(values, parents, evaluation.topics)


PARENTS = "parents"  # the topic column of the parent means' rows


def parents_of(campaign) -> dict[str, str]:
    """The campaign's micro-topic id -> parent id (selectors.topic_parents); InputError when it has none, as asking
    for parent means of a campaign without micro-topics is a mistake to say, not an empty answer."""
    parents = selectors.topic_parents(campaign=campaign)
    if not parents:
        raise InputError(f"campaign '{campaign.name}' has no micro-topics: its parents have nothing to average")
    return parents


def parent_table(evaluation: Evaluation, parents: dict[str, str],
                 measures: Sequence[str] | None = None) -> dict[str, dict[str, float]]:
    """run -> measure -> its mean over the parent topics (`parent_means`), for `measures` (every measure of the
    evaluation when None)."""
    table: dict[str, dict[str, float]] = {}
    for measure in evaluation.measures if measures is None else measures:
        for run, value in parent_means(evaluation, measure, parents).items():
            table.setdefault(run, {})[measure] = value
    return table


def parent_lines(evaluation: Evaluation, parents: dict[str, str]) -> list[str]:
    """`run<TAB>measure<TAB>parents<TAB>value` lines, as `evaluate --campaign --parents` and the API's TSV write
    them after the scores."""
    table = parent_table(evaluation, parents)
    return [f"{run}\t{measure}\t{PARENTS}\t{format_value(means[measure])}\n"
            for measure in evaluation.measures for run, means in table.items() if measure in means]


def topic_differences(evaluation: Evaluation, measure: str, run_a: str, run_b: str) -> list[tuple[str, float]]:
    """(topic, a - b) over the qrels' topics (a topic a run has no value for counting 0), largest first."""
    values = analysis_services.measure_values(evaluation, [measure])[measure]
    for run in (run_a, run_b):
        if run not in values:
            raise InputError(f"no run named {run}")
    a, b = values[run_a], values[run_b]
    rows = [(topic, a.get(topic, 0.0) - b.get(topic, 0.0)) for topic in evaluation.topics]
    return sorted(rows, key=lambda row: -row[1])

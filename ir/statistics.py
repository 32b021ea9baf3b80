"""The analyses organizers publish after evaluation (docs/analysis.md): significance tests between runs, bootstrap
intervals, means by topic category (the topic information file: ir/formats/topic_info.py), rank correlation and
leave-one-team-out reusability.

Pure Python, numpy and scipy over plain data (run -> topic -> value): no Django. `docs/analysis.md` gives the methods.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ir import rankings
from ir.formats.topic_info import TopicInfo, check_column
from ir.grades import RELEVANCE_LEVEL, is_relevant
from ir.prime import MEAN, MEASURES, answer_lists, format_value, natural_key
from ir.problems import InputError
from ir.rankings import CONFIDENCE, SEED, Values, value_matrix
from ir.scoring import score_runs

if TYPE_CHECKING:
    import numpy as np

Qrels = Mapping[str, Mapping[str, int]]  # topic -> item id -> grade
RankedRun = Mapping[str, Sequence[str]]  # topic -> item ids, best first
Scorer = Callable[[Qrels, Mapping[str, RankedRun]], dict[str, dict[str, float]]]  # -> run -> measure -> mean

PERMUTATIONS = 10_000
PERMUTATIONS_MAX = 100_000  # the signs are one matrix: 100,000 permutations x 100 topics is 80 MB
RESAMPLES = 10_000
SIGNIFICANCE_HEADER = ("run_a\trun_b\tmeasure\tdiff\tp_ttest\tp_randomization\tp_ttest_holm\tp_randomization_holm"
                       "\tp_wilcoxon\tp_wilcoxon_holm\n")
REUSABILITY_HEADER = "run\tteam\tmeasure\tfull\tleave_team_out\tunique_relevant\trank_full\trank_lto\n"
_PAIR_BLOCK = 128  # pairs per matrix product: 128 x 10,000 permutations of float64 is 10 MB


# Significance ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Comparison:
    """One row of the significance table: run_a against run_b on one measure."""

    run_a: str
    run_b: str
    measure: str
    diff: float  # mean of the per-topic differences a - b
    p_ttest: float
    p_randomization: float
    p_ttest_holm: float
    p_randomization_holm: float
    p_wilcoxon: float
    p_wilcoxon_holm: float


def topic_means(values: Values, runs: Sequence[str], topics: Sequence[str]) -> dict[str, float]:
    """Each run's mean over `topics`, a topic it has no value for counting 0: the mean the intervals and the
    significance tests are of (NaN over no topic)."""
    if not topics:
        return dict.fromkeys(runs, math.nan)
    matrix = value_matrix(values, runs, topics)
    return {run: float(matrix[row].mean()) for row, run in enumerate(runs)}


def run_pairs(runs: Sequence[str], baseline: str | None = None) -> list[tuple[int, int]]:
    """Index pairs (a, b): every unordered pair in the order given, or each other run against the baseline."""
    if baseline is None:
        return [(a, b) for a in range(len(runs)) for b in range(a + 1, len(runs))]
    if baseline not in runs:
        raise InputError(f"the baseline {baseline} is not one of the runs")
    base = runs.index(baseline)
    return [(a, base) for a in range(len(runs)) if a != base]


def paired_ttest(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test p of each row pair (scipy's `ttest_rel`); identical rows (nan) get 1.0."""
    import numpy as np
    from scipy import stats
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy warns of zero variance; the nan is handled below
        p = stats.ttest_rel(a, b, axis=1).pvalue
    return np.where(np.isnan(p), 1.0, p)


def wilcoxon_test(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank p of each row pair (scipy's `wilcoxon`, zero differences dropped); identical
    rows get 1.0. A pair with tied or zero differences takes the normal approximation (with scipy's tie correction):
    scipy's default would permute exhaustively where it has 13 or fewer, about half a second a pair."""
    import numpy as np
    from scipy import stats  # scipy only when a statistic is computed: commands and pages start without it
    diffs = np.abs(a - b)
    ordered = np.sort(diffs, axis=1)
    plain = (ordered[:, 0] > 0) & (np.diff(ordered, axis=1) > 0).all(axis=1)  # no zero and no tie
    p = np.ones(len(diffs))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # all differences zero: scipy divides by zero
        if plain.any():
            p[plain] = stats.wilcoxon(a[plain], b[plain], axis=1).pvalue
        if not plain.all():
            # scipy-stubs give "asymptotic" (scipy's name since 1.15 for "approx") only to keepdims=True.
            p[~plain] = stats.wilcoxon(a[~plain], b[~plain], axis=1,  # type: ignore[call-overload]
                                       method="asymptotic").pvalue
    return np.where(np.isnan(p), 1.0, p)


def sign_flips(permutations: int, topics: int, rng: np.random.Generator) -> np.ndarray:
    """A permutations x topics matrix of random +1/-1: one draw of the paired randomization test's null."""
    import numpy as np
    return rng.integers(0, 2, size=(permutations, topics), dtype=np.int8).astype(np.float64) * 2.0 - 1.0


def randomization_test(diffs: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Two-sided sign-flip p of each row of per-topic differences: (count(|perm mean| >= |mean|) + 1) / (N + 1)."""
    import numpy as np
    permutations, topics = signs.shape
    # Sums, not means (the same order). The matrix product adds in another order than sum(), so a flip that gives
    # the observed sum back (the identity, or one that only negates zero differences) must still count: a tolerance
    # far above rounding (1e-16 of the scale) and far below any real gap between two sums.
    observed = np.abs(diffs.sum(axis=1))
    threshold = observed - 1e-9 * np.abs(diffs).sum(axis=1)
    counts = np.empty(len(diffs), dtype=np.int64)
    for start in range(0, len(diffs), _PAIR_BLOCK):
        block = slice(start, start + _PAIR_BLOCK)
        permuted = np.abs(diffs[block] @ signs.T)  # pairs x permutations: every pair flipped by the same signs
        counts[block] = (permuted >= threshold[block, None]).sum(axis=1)
    return (counts + 1) / (permutations + 1)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (statsmodels' `multipletests(method="holm")`)."""
    order = sorted(range(len(p_values)), key=lambda index: p_values[index])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def significance(values: Mapping[str, Values], runs: Sequence[str], topics: Sequence[str], *,
                 baseline: str | None = None, permutations: int = PERMUTATIONS, seed: int = SEED) -> list[Comparison]:
    """The significance table: per measure (in the order of `values`), each pair of runs, the three tests (paired
    t, randomization, Wilcoxon signed-rank), each Holm'd."""
    import numpy as np
    if not topics:
        raise InputError("no topics to pair the runs over")
    if not 1 <= permutations <= PERMUTATIONS_MAX:
        raise InputError(f"the number of permutations must be at least 1 and at most {PERMUTATIONS_MAX:,}, "
                         f"not {permutations:,}")
    pairs = run_pairs(runs, baseline)
    if not pairs:  # one run: nothing to compare
        return []
    index_a = np.array([a for a, _b in pairs], dtype=np.intp)
    index_b = np.array([b for _a, b in pairs], dtype=np.intp)
    rng = np.random.default_rng(seed)
    rows: list[Comparison] = []
    for measure, measured in values.items():
        matrix = value_matrix(measured, runs, topics)
        a, b = matrix[index_a], matrix[index_b]
        diffs = a - b
        p_ttest = paired_ttest(a, b)
        p_randomization = randomization_test(diffs, sign_flips(permutations, len(topics), rng))
        p_wilcoxon = wilcoxon_test(a, b)
        ttest_holm, randomization_holm = holm(p_ttest.tolist()), holm(p_randomization.tolist())
        wilcoxon_holm = holm(p_wilcoxon.tolist())
        for row, (first, second) in enumerate(pairs):
            rows.append(Comparison(runs[first], runs[second], measure, float(diffs[row].mean()), float(p_ttest[row]),
                                   float(p_randomization[row]), ttest_holm[row], randomization_holm[row],
                                   float(p_wilcoxon[row]), wilcoxon_holm[row]))
    return rows


def format_p(value: float) -> str:
    """A p-value with four significant digits: a t-test's p can be far below trec_eval's four decimals."""
    return f"{value:.4g}"


def significance_lines(rows: Iterable[Comparison]) -> Iterator[str]:
    """The significance TSV: its header, then one line per comparison."""
    yield SIGNIFICANCE_HEADER
    yield from map(comparison_line, rows)


def comparison_line(row: Comparison) -> str:
    """One comparison's line of the significance TSV (SIGNIFICANCE_HEADER's columns)."""
    p_values = (row.p_ttest, row.p_randomization, row.p_ttest_holm, row.p_randomization_holm, row.p_wilcoxon,
                row.p_wilcoxon_holm)
    return "\t".join((row.run_a, row.run_b, row.measure, format_value(row.diff), *map(format_p, p_values))) + "\n"


# Confidence --------------------------------------------------------------------------------------------------------

def confidence_intervals(values: Values, runs: Sequence[str], topics: Sequence[str], *, resamples: int = RESAMPLES,
                         seed: int = SEED, level: float = CONFIDENCE) -> dict[str, tuple[float, float]]:
    """Each run's percentile-bootstrap interval of its mean over `topics` (scipy's `bootstrap`), missing topics 0."""
    import numpy as np
    from scipy import stats
    if len(topics) < 2:  # one topic has no spread to resample
        return {run: (math.nan, math.nan) for run in runs}
    matrix = value_matrix(values, runs, topics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)  # a run with one value everywhere: [v, v]
        result = stats.bootstrap((matrix,), np.mean, axis=-1, vectorized=True, method="percentile",
                                 n_resamples=resamples, batch=max(1, 4_000_000 // matrix.size),
                                 confidence_level=level, rng=np.random.default_rng(seed))
    low, high = np.atleast_1d(result.confidence_interval.low), np.atleast_1d(result.confidence_interval.high)
    return {run: (float(low[row]), float(high[row])) for row, run in enumerate(runs)}


def confidence_lines(intervals: Mapping[str, Mapping[str, tuple[float, float]]]) -> Iterator[str]:
    """`run<TAB>MEASURE_ci_low<TAB>all<TAB>v` and `_ci_high` rows from measure -> run -> (low, high)."""
    runs = list(dict.fromkeys(run for per_run in intervals.values() for run in per_run))
    for run in runs:
        for measure, per_run in intervals.items():
            if run in per_run:
                low, high = per_run[run]
                yield f"{run}\t{measure}_ci_low\t{MEAN}\t{format_value(low)}\n"
                yield f"{run}\t{measure}_ci_high\t{MEAN}\t{format_value(high)}\n"


# Topic categories --------------------------------------------------------------------------------------------------

def category_means(values: Values, info: TopicInfo, column: str, topics: Sequence[str]) -> dict[str, dict[str, float]]:
    """run -> value of `column` -> the run's mean over the `topics` in that group (a missing topic counting 0)."""
    check_column(info, column)
    groups: dict[str, list[str]] = {}
    for topic in topics:
        value = info.topics.get(topic, {}).get(column, "")
        if value:  # a topic the file does not describe, or leaves empty here, is in no group
            groups.setdefault(value, []).append(topic)
    ordered = sorted(groups, key=natural_key)
    return {run: {value: math.fsum(per_topic.get(t, 0.0) for t in groups[value]) / len(groups[value])
                  for value in ordered}
            for run, per_topic in values.items()}


def parent_means(values: Values, parents: Mapping[str, str], topics: Sequence[str]) -> dict[str, float]:
    """run -> its mean over parent topics: each parent's value is the mean of its micro-topics among `topics` (a
    topic without a parent in `parents` stands for itself; a topic a run has no value for counts 0). The means over
    micro-topics are the usual ones, over `topics`."""
    groups: dict[str, list[str]] = {}
    for topic in topics:
        groups.setdefault(parents.get(topic) or topic, []).append(topic)
    if not groups:
        return {}
    return {run: math.fsum(math.fsum(per_topic.get(t, 0.0) for t in members) / len(members)
                           for members in groups.values()) / len(groups)
            for run, per_topic in values.items()}


def category_lines(means: Mapping[str, Mapping[str, Mapping[str, float]]], column: str) -> Iterator[str]:
    """`run<TAB>measure<TAB>COLUMN=VALUE<TAB>mean` rows from measure -> run -> value -> mean."""
    runs = list(dict.fromkeys(run for per_run in means.values() for run in per_run))
    for run in runs:
        for measure, per_run in means.items():
            for value, mean in per_run.get(run, {}).items():
                yield f"{run}\t{measure}\t{column}={value}\t{format_value(mean)}\n"


# Rank correlation --------------------------------------------------------------------------------------------------

def ranking(scores: Mapping[str, float]) -> list[str]:
    """The runs best first: score descending, ties in the order given."""
    return sorted(scores, key=lambda run: -scores[run])


def ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """Each run's rank, 1 for the best; tied runs share the better rank (1, 2, 2, 4)."""
    return {run: 1 + sum(1 for other in scores.values() if other > score) for run, score in scores.items()}


def kendall_tau(first: Mapping[str, float], second: Mapping[str, float]) -> float:
    """Kendall's tau-b between two scorings of the same runs: `ir.rankings.tau_b` (the vectorised one, tested against
    scipy's `kendalltau`) on one ranking; NaN with fewer than two runs or every run tied."""
    import numpy as np
    runs = list(first)
    return float(rankings.tau_b(np.array([[first[r] for r in runs]], dtype=float),
                       np.array([[second[r] for r in runs]], dtype=float))[0])


def tau_ap(estimated: Sequence[str], actual: Sequence[str]) -> float:
    """AP correlation of Yilmaz, Aslam & Robertson (2008) of a ranking against the actual one (best first):
    `ir.rankings.tau_ap` on the two orders."""
    if sorted(estimated) != sorted(actual) or len(set(actual)) != len(actual):
        raise ValueError("tau_ap needs two rankings of the same items")
    import numpy as np
    place = {item: index for index, item in enumerate(estimated)}
    count = len(actual)
    return float(rankings.tau_ap(np.array([[count - place[item] for item in actual]], dtype=float),
                                 np.array([[count - index for index in range(count)]], dtype=float))[0])


# Leave-one-team-out ------------------------------------------------------------------------------------------------

@dataclass
class TeamOut:
    """What leaving one team out of the pool removes: the judged items only its runs put in the top K."""

    team: str
    removed: dict[str, set[str]]  # topic -> item ids
    unique_relevant: int  # how many of them have grade >= the relevance level
    qrels: dict[str, dict[str, int]]  # the qrels without them (a topic left with nothing stays, empty)


@dataclass(frozen=True)
class Reusability:
    """One row of the reusability table."""

    run: str
    team: str
    measure: str
    full: float
    leave_team_out: float
    unique_relevant: int
    rank_full: int
    rank_lto: int


@dataclass(frozen=True)
class RankAgreement:
    """How the ranking by the leave-one-team-out scores agrees with the one by the full qrels, on one measure."""

    measure: str
    kendall_tau: float
    tau_ap: float
    largest_change: int
    changed_runs: tuple[str, ...]  # the runs whose rank moved by that much


def top_items(ranked: Sequence[str], depth: int) -> list[str]:
    """A topic's first `depth` distinct items (a repeated id counts once, where it first appears)."""
    return list(dict.fromkeys(ranked))[:depth]


def leave_team_out(qrels: Qrels, runs: Mapping[str, RankedRun], teams: Mapping[str, str], *, depth: int,
                   relevance_level: int = RELEVANCE_LEVEL) -> dict[str, TeamOut]:
    """Per team: the judged items no other team's run put in its top `depth`, and the qrels without them."""
    contributors: dict[tuple[str, str], set[str]] = {}  # (topic, item) -> the teams whose runs put it in the top K
    for run, per_topic in runs.items():
        team = teams.get(run, run)
        for topic, ranked in per_topic.items():
            judged = qrels.get(topic, {})
            for item in top_items(ranked, depth):
                if item in judged:
                    contributors.setdefault((topic, item), set()).add(team)
    unique: dict[str, dict[str, set[str]]] = {}
    for (topic, item), by in contributors.items():
        if len(by) == 1:
            unique.setdefault(next(iter(by)), {}).setdefault(topic, set()).add(item)
    result: dict[str, TeamOut] = {}
    for team in dict.fromkeys(teams.get(run, run) for run in runs):
        removed = unique.get(team, {})
        kept = {topic: {item: grade for item, grade in judged.items() if item not in removed.get(topic, ())}
                for topic, judged in qrels.items()}
        relevant = sum(1 for topic, items in removed.items() for item in items
                       if is_relevant(qrels[topic][item], relevance_level))
        result[team] = TeamOut(team=team, removed=removed, unique_relevant=relevant, qrels=kept)
    return result


def reusability(qrels: Qrels, runs: Mapping[str, RankedRun], teams: Mapping[str, str], *, depth: int,
                scorer: Scorer, relevance_level: int = RELEVANCE_LEVEL
                ) -> tuple[list[Reusability], list[RankAgreement]]:
    """Each run scored against the full qrels and against its team's leave-one-team-out qrels, with the ranks under
    both, and per measure how far the two rankings agree."""
    outs = leave_team_out(qrels, runs, teams, depth=depth, relevance_level=relevance_level)
    full = scorer(qrels, runs)
    lto: dict[str, dict[str, float]] = {}
    for team, out in outs.items():
        members = {run: ranked for run, ranked in runs.items() if teams.get(run, run) == team}
        lto.update(scorer(out.qrels, members))
    measures = list(dict.fromkeys(measure for per_run in full.values() for measure in per_run))
    rows: list[Reusability] = []
    agreements: list[RankAgreement] = []
    for measure in measures:
        by_full = {run: full[run][measure] for run in runs}
        by_lto = {run: lto[run][measure] for run in runs}
        rank_full, rank_lto = ranks(by_full), ranks(by_lto)
        for run in runs:
            team = teams.get(run, run)
            rows.append(Reusability(run, team, measure, by_full[run], by_lto[run], outs[team].unique_relevant,
                                    rank_full[run], rank_lto[run]))
        change = max((abs(rank_full[run] - rank_lto[run]) for run in runs), default=0)
        moved = tuple(run for run in runs if change and abs(rank_full[run] - rank_lto[run]) == change)
        agreements.append(RankAgreement(measure, kendall_tau(by_full, by_lto),
                                        tau_ap(ranking(by_lto), ranking(by_full)), change, moved))
    return rows, agreements


def prime_scorer(*, all_topics: bool = True, measures: Sequence[str] = MEASURES,
                 relevance_level: int = RELEVANCE_LEVEL) -> Scorer:
    """A scorer by the product's prime measures (`ir.scoring.score_runs`, what every score is computed by) at a
    relevance level: a ranked list's first item scores highest. `all_topics` (the default here) keeps every run's
    mean over the same topics when a pool loses items."""
    def score(qrels: Qrels, runs: Mapping[str, RankedRun]) -> dict[str, dict[str, float]]:
        lists = ((name, answer_lists(((topic, item, float(len(ranked) - rank)) for topic, ranked in per_topic.items()
                                      for rank, item in enumerate(ranked)), qrels))
                 for name, per_topic in runs.items())
        means = {(row.run, row.measure): row.value
                 for row in score_runs(lists, qrels, relevance_level=relevance_level, all_topics=all_topics).rows
                 if row.topic is None}
        return {name: {measure: means[name, measure] for measure in measures} for name in runs}
    return score


def reusability_lines(rows: Iterable[Reusability], agreements: Iterable[RankAgreement], *,
                      cell: Callable[[str], str] = str) -> Iterator[str]:
    """The reusability TSV: header, one line per run and measure, then `# ` lines of rank agreement. `cell` makes the
    run and team names safe where the file is for a spreadsheet (the page's download: downloads.spreadsheet_safe)."""
    yield REUSABILITY_HEADER
    for row in rows:
        yield (f"{cell(row.run)}\t{cell(row.team)}\t{row.measure}\t{format_value(row.full)}"
               f"\t{format_value(row.leave_team_out)}\t{row.unique_relevant}\t{row.rank_full}\t{row.rank_lto}\n")
    for agreement in agreements:
        moved = ", ".join(agreement.changed_runs) or "none"
        yield (f"# {agreement.measure}: kendall_tau={format_value(agreement.kendall_tau)}"
               f" tau_ap={format_value(agreement.tau_ap)}"
               f" largest_rank_change={agreement.largest_change} ({moved})\n")

"""Significance tests between runs and bootstrap intervals (issue 18 points 3 and 4), without a database."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ir.problems import InputError
from ir.statistics import (
    SIGNIFICANCE_HEADER,
    confidence_intervals,
    confidence_lines,
    holm,
    significance,
    significance_lines,
)

TOPICS = [f"A.{n}" for n in range(1, 11)]


def per_topic(values, topics=TOPICS):
    return dict(zip(topics, values, strict=True))


def exact_randomization_p(diffs):
    """Every one of the 2^n sign flips: the share whose |sum| is at least the observed |sum|."""
    observed = abs(sum(diffs))
    flips = list(itertools.product((1, -1), repeat=len(diffs)))
    sums = [abs(sum(s * d for s, d in zip(signs, diffs, strict=True))) for signs in flips]
    return sum(1 for value in sums if value >= observed) / len(flips)


def test_ttest_p_is_scipys_paired_ttest_with_a_missing_topic_counting_zero():
    a = [0.5, 0.7, 0.2, 0.9, 0.4, 0.6, 0.3, 0.8, 0.1, 0.55]
    b = [0.4, 0.5, 0.3, 0.6, 0.4, 0.2, 0.1, 0.7, 0.3, 0.35]
    run_b = per_topic(b)
    del run_b["A.4"]  # the run returned nothing for A.4: it counts 0, it is not dropped from the pairing
    b_as_paired = b[:3] + [0.0] + b[4:]
    [row] = significance({"ndcg_prime": {"a": per_topic(a), "b": run_b}}, ["a", "b"], TOPICS, permutations=100)
    assert row.p_ttest == pytest.approx(stats.ttest_rel(a, b_as_paired).pvalue, rel=1e-12)
    assert row.diff == pytest.approx(np.mean(np.subtract(a, b_as_paired)))
    # One pair: Holm changes nothing.
    assert row.p_ttest_holm == row.p_ttest and row.p_randomization_holm == row.p_randomization


def scipy_wilcoxon(a, b):
    """scipy's p on one pair: its default (exact below 50 differences) without ties or zeros, else the normal
    approximation (its default would permute exhaustively up to 13 differences)."""
    d = np.abs(np.subtract(a, b))
    plain = d.min() > 0 and len(set(d.tolist())) == len(d)
    return stats.wilcoxon(a, b, method="auto" if plain else "asymptotic").pvalue


def test_wilcoxon_p_is_scipys_signed_rank_test_on_the_same_pairs():
    rng = np.random.default_rng(7)
    values = {run: per_topic(rng.random(10)) for run in "abc"}
    values["d"] = per_topic(rng.random(10).round(1))  # tied differences
    del values["c"]["A.3"]  # a missing topic counts 0 in the pairing, as for the other tests
    rows = significance({"m": values}, list("abcd"), TOPICS, permutations=100)
    paired = {run: [values[run].get(t, 0.0) for t in TOPICS] for run in "abcd"}
    expected = [scipy_wilcoxon(paired[r.run_a], paired[r.run_b]) for r in rows]
    assert [r.p_wilcoxon for r in rows] == pytest.approx(expected, rel=1e-12)
    assert [r.p_wilcoxon for r in rows][:3] == pytest.approx(
        [stats.wilcoxon(paired[r.run_a], paired[r.run_b]).pvalue for r in rows[:3]], rel=1e-12)  # exact: no ties
    assert [r.p_wilcoxon_holm for r in rows] == pytest.approx(holm(expected), rel=1e-12)


def test_identical_runs_have_wilcoxon_p_one():
    a = per_topic([0.5, 0.7, 0.2, 0.9, 0.4, 0.6, 0.3, 0.8, 0.1, 0.55])
    [row] = significance({"m": {"a": a, "b": dict(a)}}, ["a", "b"], TOPICS, permutations=100)
    assert row.p_wilcoxon == 1.0 and row.p_wilcoxon_holm == 1.0


def test_topics_outside_the_qrels_are_not_paired():
    a = per_topic([0.5, 0.7, 0.2, 0.9, 0.4, 0.6, 0.3, 0.8, 0.1, 0.55])
    b = per_topic([0.4, 0.5, 0.3, 0.6, 0.4, 0.2, 0.1, 0.7, 0.3, 0.35])
    with_extra = {**a, "A.99": 1.0}
    rows = significance({"m": {"a": with_extra, "b": b}}, ["a", "b"], TOPICS, permutations=100)
    plain = significance({"m": {"a": a, "b": b}}, ["a", "b"], TOPICS, permutations=100)
    assert rows == plain


def test_randomization_p_is_within_monte_carlo_error_of_the_exact_test():
    # Differences in eighths, so every sum of flipped differences is exact in floating point.
    diffs = [3, 1, 2, -1, 2, 1, 0, 2, -2, 1]
    b = [0.5] * 10
    a = [0.5 + d / 8 for d in diffs]
    exact = exact_randomization_p(diffs)
    assert 0.02 < exact < 0.2  # a case where the test matters
    n = 10_000
    [row] = significance({"m": {"a": per_topic(a), "b": per_topic(b)}}, ["a", "b"], TOPICS, permutations=n, seed=7)
    error = math.sqrt(exact * (1 - exact) / n)
    assert abs(row.p_randomization - exact) <= 4 * error + 1 / (n + 1)


def test_flips_that_tie_with_the_observed_difference_count_on_a_measure_in_tenths():
    # P'@10 takes values in tenths, which floating point cannot hold exactly, so a flipped sum that ties with the
    # observed one in exact arithmetic may land a rounding error below it. A test that loses those ties says 0.088
    # here instead of the exact 124/1024 = 0.121 (found on random tenths; most such pairs show it).
    a = [0.4, 1.0, 0.6, 0.2, 0.5, 0.5, 0.7, 0.8, 0.6, 0.9]
    b = [0.1, 0.6, 0.7, 0.4, 0.5, 0.0, 0.9, 0.5, 0.5, 0.1]
    exact = exact_randomization_p([round(10 * x) - round(10 * y) for x, y in zip(a, b, strict=True)])
    assert exact == 124 / 1024
    n = 10_000
    [row] = significance({"m": {"a": per_topic(a), "b": per_topic(b)}}, ["a", "b"], TOPICS, permutations=n, seed=3)
    assert abs(row.p_randomization - exact) <= 4 * math.sqrt(exact * (1 - exact) / n) + 1 / (n + 1)


def test_randomization_is_the_same_for_the_same_seed_and_symmetric_in_the_pair():
    rng = np.random.default_rng(3)
    values = {"m": {run: per_topic(rng.random(10)) for run in "abc"}}
    first = significance(values, ["a", "b", "c"], TOPICS, permutations=2000, seed=11)
    again = significance(values, ["a", "b", "c"], TOPICS, permutations=2000, seed=11)
    swapped = significance(values, ["b", "a", "c"], TOPICS, permutations=2000, seed=11)
    assert first == again
    assert [(r.run_a, r.run_b) for r in first] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert (swapped[0].run_a, swapped[0].run_b) == ("b", "a")
    assert swapped[0].diff == pytest.approx(-first[0].diff)
    assert swapped[0].p_randomization == first[0].p_randomization  # the same flips, |mean| unchanged by the order
    assert swapped[0].p_ttest == pytest.approx(first[0].p_ttest)


def test_identical_runs_are_not_different():
    values = {"m": {"a": per_topic([0.1 * n for n in range(10)]), "b": per_topic([0.1 * n for n in range(10)])}}
    [row] = significance(values, ["a", "b"], TOPICS, permutations=500)
    assert (row.diff, row.p_ttest, row.p_randomization) == (0.0, 1.0, 1.0)


def test_a_clear_difference_is_significant_under_both_tests():
    a = per_topic([0.9, 0.8, 0.85, 0.95, 0.7, 0.9, 0.8, 0.75, 0.9, 0.85])
    b = per_topic([0.1, 0.2, 0.15, 0.1, 0.3, 0.2, 0.1, 0.25, 0.2, 0.1])
    [row] = significance({"m": {"a": a, "b": b}}, ["a", "b"], TOPICS, permutations=5000)
    assert row.p_ttest < 1e-6
    # Only the identity and its mirror reach the observed |mean|: p = (1 + about N/512) / (N + 1).
    assert row.p_randomization == pytest.approx(2 / 1024, abs=0.002)


def test_holm_on_the_textbook_example():
    # Holm (1979) as every textbook runs it: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, kept non-decreasing.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.4]) == [0.8, 0.8]
    assert holm([0.9, 0.01, 0.6]) == pytest.approx([1.0, 0.03, 1.0])  # capped at 1
    assert holm([]) == []


def test_holm_is_over_the_pairs_of_one_measure():
    rng = np.random.default_rng(5)
    values = {m: {run: per_topic(rng.random(10)) for run in "abcd"} for m in ("ndcg_prime", "map_prime")}
    rows = significance(values, list("abcd"), TOPICS, permutations=1000)
    assert [r.measure for r in rows] == ["ndcg_prime"] * 6 + ["map_prime"] * 6
    for measure in ("ndcg_prime", "map_prime"):
        family = [r for r in rows if r.measure == measure]
        assert [r.p_ttest_holm for r in family] == holm([r.p_ttest for r in family])
        assert [r.p_randomization_holm for r in family] == holm([r.p_randomization for r in family])
        assert [r.p_wilcoxon_holm for r in family] == holm([r.p_wilcoxon for r in family])


def test_a_baseline_is_compared_with_every_other_run():
    rng = np.random.default_rng(2)
    values = {"m": {run: per_topic(rng.random(10)) for run in "abc"}}
    rows = significance(values, ["a", "b", "c"], TOPICS, baseline="b", permutations=100)
    assert [(r.run_a, r.run_b) for r in rows] == [("a", "b"), ("c", "b")]
    with pytest.raises(InputError, match="baseline x is not one of the runs"):
        significance(values, ["a", "b", "c"], TOPICS, baseline="x")


def test_one_run_has_nothing_to_compare_and_one_topic_no_interval():
    assert significance({"m": {"a": {"A.1": 0.5}}}, ["a"], TOPICS) == []
    low, high = confidence_intervals({"a": {"A.1": 0.5}}, ["a"], ["A.1"])["a"]
    assert math.isnan(low) and math.isnan(high)
    assert list(confidence_lines({"m": {"a": (low, high)}})) == ["a\tm_ci_low\tall\tn/a\n", "a\tm_ci_high\tall\tn/a\n"]


def test_no_topics_and_no_permutations_are_refused():
    with pytest.raises(InputError, match="no topics"):
        significance({"m": {"a": {}, "b": {}}}, ["a", "b"], [])
    with pytest.raises(InputError, match="at least 1"):
        significance({"m": {"a": {}, "b": {}}}, ["a", "b"], TOPICS, permutations=0)


def test_significance_tsv_has_the_issue_header_and_a_line_per_pair():
    a = per_topic([0.5, 0.7, 0.2, 0.9, 0.4, 0.6, 0.3, 0.8, 0.1, 0.55])
    b = per_topic([0.4, 0.5, 0.3, 0.6, 0.4, 0.2, 0.1, 0.7, 0.3, 0.35])
    lines = list(significance_lines(significance({"map_prime": {"a": a, "b": b}}, ["a", "b"], TOPICS,
                                                 permutations=100)))
    assert lines[0] == ("run_a\trun_b\tmeasure\tdiff\tp_ttest\tp_randomization\tp_ttest_holm\tp_randomization_holm"
                        "\tp_wilcoxon\tp_wilcoxon_holm\n")
    assert lines[0] == SIGNIFICANCE_HEADER
    fields = lines[1].rstrip("\n").split("\t")
    assert fields[:4] == ["a", "b", "map_prime", "0.1200"]
    assert float(fields[4]) == pytest.approx(stats.ttest_rel(list(a.values()), list(b.values())).pvalue, rel=1e-3)
    assert float(fields[8]) == pytest.approx(scipy_wilcoxon(list(a.values()), list(b.values())), rel=1e-3)
    assert fields[9] == fields[8]  # one pair: Holm changes nothing
    assert len(lines) == 2


def test_bootstrap_interval_is_close_to_the_normal_one_on_many_topics():
    topics = [f"T{n}" for n in range(400)]
    values = np.random.default_rng(9).normal(0.5, 0.1, size=400)
    run = dict(zip(topics, values, strict=True))
    low, high = confidence_intervals({"a": run}, ["a"], topics, resamples=4000)["a"]
    half = 1.96 * values.std(ddof=1) / math.sqrt(len(values))
    assert low < values.mean() < high
    assert low == pytest.approx(values.mean() - half, abs=0.15 * half)
    assert high == pytest.approx(values.mean() + half, abs=0.15 * half)


def test_bootstrap_of_a_constant_run_is_a_point_and_a_missing_topic_counts_zero():
    intervals = confidence_intervals({"flat": per_topic([0.25] * 10), "gap": {"A.1": 1.0}}, ["flat", "gap"], TOPICS,
                                     resamples=1000, seed=1)
    assert intervals["flat"] == pytest.approx((0.25, 0.25))
    low, high = intervals["gap"]  # one topic of ten at 1, the others 0: resampled means from 0 up
    assert low == 0.0 and 0.2 <= high <= 0.4


def test_bootstrap_is_reproducible_with_its_seed():
    rng = np.random.default_rng(4)
    values = {run: per_topic(rng.random(10)) for run in "ab"}
    first = confidence_intervals(values, ["a", "b"], TOPICS, resamples=500, seed=3)
    assert first == confidence_intervals(values, ["a", "b"], TOPICS, resamples=500, seed=3)
    assert first != confidence_intervals(values, ["a", "b"], TOPICS, resamples=500, seed=4)


def test_confidence_rows_name_the_measure_and_the_bound():
    lines = list(confidence_lines({"ndcg_prime": {"run1": (0.31234, 0.45678)}, "map_prime": {"run1": (0.1, 0.2)}}))
    assert lines == [
        "run1\tndcg_prime_ci_low\tall\t0.3123\n",
        "run1\tndcg_prime_ci_high\tall\t0.4568\n",
        "run1\tmap_prime_ci_low\tall\t0.1000\n",
        "run1\tmap_prime_ci_high\tall\t0.2000\n",
    ]

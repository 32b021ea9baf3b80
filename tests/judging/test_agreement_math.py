"""Cohen's kappa and Krippendorff's alpha (ir/agreement.py) against worked examples from the literature,
scikit-learn's cohen_kappa_score and the krippendorff package's documented example; no database."""
import math
import random
import warnings

import pytest
from sklearn.metrics import cohen_kappa_score

from ir import agreement as ag


def table(both_yes, yes_no, no_yes, both_no):
    """A 2x2 agreement table as rating pairs (first rater, second rater)."""
    return ([("yes", "yes")] * both_yes + [("yes", "no")] * yes_no + [("no", "yes")] * no_yes
            + [("no", "no")] * both_no)


@pytest.mark.parametrize(("counts", "expected"), [
    # Wikipedia, "Cohen's kappa", worked example: 50 grant proposals, p_o = 0.7, p_e = 0.5.
    ((20, 5, 10, 15), 0.4),
    # Same page, "same percentages but different numbers": both p_o = 0.6, kappa 0.1304 and 0.2593.
    ((45, 15, 25, 15), 0.1304),
    ((25, 35, 5, 35), 0.2593),
])
def test_kappa_of_the_worked_examples(counts, expected):
    kappa = ag.cohen_kappa(table(*counts))
    assert kappa.value == pytest.approx(expected, abs=5e-5)
    assert kappa.items == sum(counts)
    assert kappa.text() == f"{expected:.4f}"


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("scale", ["graded", "binary"])
def test_kappa_equals_scikit_learn(seed, scale):
    rng = random.Random(seed)
    first = {f"u{n}": rng.choice([0, 1, 2, 3]) for n in range(rng.randint(5, 80))}
    # The second assessor mostly agrees, sometimes moves by one grade, and misses some items.
    second = {u: min(3, max(0, g + rng.choice([0, 0, 0, 1, -1]))) for u, g in first.items() if rng.random() < 0.9}
    second["only-second"] = 2
    kappa = ag.kappa_between(first, second, scale)
    common = sorted(first.keys() & second.keys())
    expected = cohen_kappa_score([ag.on_scale(first[u], scale) for u in common],
                                 [ag.on_scale(second[u], scale) for u in common])
    assert kappa.items == len(common)
    assert kappa.value == pytest.approx(expected, abs=1e-12)


def test_binary_scale_counts_high_and_medium_as_relevant():
    assert [ag.binary(g) for g in (0, 1, 2, 3)] == [0, 0, 1, 1]
    # Disagreeing only inside "relevant" (3 against 2) and inside "not relevant" (1 against 0): binary agreement.
    first, second = {"a": 3, "b": 1, "c": 0, "d": 2}, {"a": 2, "b": 0, "c": 0, "d": 2}
    assert ag.kappa_between(first, second, "binary").value == pytest.approx(1.0)
    assert ag.kappa_between(first, second, "graded").value < 1.0


def test_kappa_is_not_available_when_both_use_one_category_only():
    pairs = [(2, 2)] * 5
    kappa = ag.cohen_kappa(pairs)
    assert kappa.value is None and kappa.text() == "n/a"
    assert "one category only" in kappa.reason and "5 items" in kappa.reason
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(cohen_kappa_score([2] * 5, [2] * 5))  # what we must never show


def test_kappa_is_not_available_without_common_items():
    kappa = ag.kappa_between({"a": 1}, {"b": 1}, "graded")
    assert (kappa.value, kappa.items, kappa.text()) == (None, 0, "n/a")
    assert kappa.reason == ag.NO_COMMON_ITEMS


def test_one_assessor_with_one_category_against_a_varied_one_is_zero_not_undefined():
    pairs = [(1, 0), (1, 1), (1, 2), (1, 1)]
    assert ag.cohen_kappa(pairs).value == pytest.approx(cohen_kappa_score([p[0] for p in pairs],
                                                                          [p[1] for p in pairs]))
    assert ag.cohen_kappa(pairs).value == 0.0


def test_pairwise_rows_are_symmetric_and_means_leave_out_undefined_pairs():
    grades = {"ada": {1: 3, 2: 0, 3: 2, 4: 1}, "bob": {1: 3, 2: 1, 3: 2, 4: 1}, "cy": {5: 2}}
    rows = ag.pairwise(grades)
    assert len(rows) == 3 * 2 * 2  # 3 unordered pairs, both orders, two scales
    ab = next(r for r in rows if (r.assessor, r.other, r.scale) == ("ada", "bob", "graded"))
    ba = next(r for r in rows if (r.assessor, r.other, r.scale) == ("bob", "ada", "graded"))
    assert ab.kappa == ba.kappa and ab.kappa.items == 4
    means = {(m.assessor, m.scale): m for m in ag.means(grades, rows)}
    # ada's mean is her kappa with bob alone: with cy she shares nothing (n/a, left out of the mean).
    assert means[("ada", "graded")].value == pytest.approx(ab.kappa.value)
    assert means[("ada", "graded")].pairs == 1
    assert means[("cy", "graded")].value is None
    assert means[("cy", "graded")].reason == "no pairwise kappa is defined"


def test_alpha_matches_the_krippendorff_package_documented_ordinal_example():
    # krippendorff.alpha's docstring (from Krippendorff's "Computing Krippendorff's alpha-reliability", p. 8):
    # four coders, twelve units, values 1 to 5, missing values; ordinal alpha 0.815.
    n = None
    rows = [[1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
            [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n]]
    assert round(ag.alpha_ordinal(rows, [1, 2, 3, 4, 5]), 3) == 0.815


def test_alpha_of_assessors_by_hand():
    # Two assessors agree on three of four units (values 1,1 / 1,1 / 0,0 / 0,1): alpha = 1 - (n-1) * D_o / D_e
    # = 1 - 7 * 2 / (2 * 5 * 3) = 8/15 with one kind of disagreement. cy's unit has one grade: not pairable.
    grades = {"ada": {1: 1, 2: 1, 3: 0, 4: 0}, "bob": {1: 1, 2: 1, 3: 0, 4: 1}, "cy": {9: 3}}
    alpha = ag.krippendorff_alpha(grades)
    assert alpha.value == pytest.approx(8 / 15)
    assert alpha.units == 4


def test_alpha_is_not_available_for_one_category_or_no_shared_item():
    one = ag.krippendorff_alpha({"ada": {1: 2, 2: 2}, "bob": {1: 2, 2: 2}})
    assert one.value is None and "one category only" in one.reason and one.text() == "n/a"
    apart = ag.krippendorff_alpha({"ada": {1: 2}, "bob": {2: 1}})
    assert apart.value is None and apart.reason == "no item graded by two assessors or more"

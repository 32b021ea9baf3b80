"""The LLM's agreement measures (ir/agreement.py): linear-weighted kappa, the confusion matrix, the two-rater
comparison and the canaries' flip rate, against hand-worked cases, scikit-learn's cohen_kappa_score and the
krippendorff package; no database."""
import random

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from ir import agreement as ag


def test_weighted_kappa_of_a_hand_worked_table():
    # Four items on 0..3: (3,3) (2,3) (0,0) (1,3). Distances 0, 1, 0, 2 -> observed = 3 / (4 * 3) = 0.25.
    # First rater's places {3: 1, 2: 1, 0: 1, 1: 1}, second's {3: 3, 0: 1}: expected = sum f_i s_j |i-j| / (n^2 * 3)
    # = (3*(0+1+3+2) + 1*(3+2+0+1)) / 48 = 24 / 48 = 0.5; kappa_w = 1 - 0.25 / 0.5 = 0.5.
    kappa = ag.weighted_kappa([(3, 3), (2, 3), (0, 0), (1, 3)])
    assert kappa.value == pytest.approx(0.5)
    assert kappa.items == 4


@pytest.mark.parametrize("seed", range(8))
def test_weighted_and_unweighted_kappa_equal_scikit_learn(seed):
    rng = random.Random(seed)
    first = [rng.choice([0, 1, 2, 3]) for _ in range(rng.randint(6, 120))]
    second = [min(3, max(0, g + rng.choice([0, 0, 1, -1, 2]))) for g in first]
    pairs = list(zip(first, second, strict=True))
    assert ag.weighted_kappa(pairs).value == pytest.approx(
        cohen_kappa_score(first, second, labels=[0, 1, 2, 3], weights="linear"), abs=1e-12)
    assert ag.cohen_kappa(pairs).value == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)


def test_weighted_kappa_measures_distance_on_the_whole_scale():
    # Nobody used grade 1 or 2: a 3 against a 0 is still three steps apart, not one (scikit-learn without labels
    # would take the two grades that occur as neighbours, and give plain kappa).
    pairs = [(3, 3), (0, 0), (3, 0), (0, 0), (3, 3)]
    assert ag.weighted_kappa(pairs).value == pytest.approx(
        cohen_kappa_score([a for a, _ in pairs], [b for _, b in pairs], labels=[0, 1, 2, 3], weights="linear"))
    # With all of the scale's places, the two-category case reduces to plain kappa (one distance only).
    assert ag.weighted_kappa(pairs, categories=[0, 3]).value == pytest.approx(ag.cohen_kappa(pairs).value)


def test_weighted_kappa_is_not_available_without_pairs_or_with_one_category():
    assert ag.weighted_kappa([]).text() == "n/a"
    one = ag.weighted_kappa([(2, 2)] * 4)
    assert one.value is None and "one category only" in one.reason


def test_confusion_matrix_rows_are_the_first_raters_grades():
    matrix = ag.confusion([(3, 2), (3, 2), (0, 0), (1, 3)])
    assert matrix == [[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 2, 0]]


def test_comparison_over_common_units_matches_the_libraries():
    rng = random.Random(7)
    llm = {f"u{n}": rng.choice([0, 1, 2, 3]) for n in range(60)}
    person = {u: (g if rng.random() < 0.6 else rng.choice([0, 1, 2, 3])) for u, g in llm.items() if rng.random() < 0.8}
    person["only-person"] = 3
    result = ag.compare(llm, person)
    common = sorted(llm.keys() & person.keys())
    a, b = [llm[u] for u in common], [person[u] for u in common]
    assert result.items == len(common)
    assert result.graded.value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert result.binary.value == pytest.approx(cohen_kappa_score([g >= 2 for g in a], [g >= 2 for g in b]),
                                                abs=1e-12)
    assert result.weighted.value == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="linear"),
                                                  abs=1e-12)
    assert result.alpha.value == pytest.approx(krippendorff.alpha(
        reliability_data=np.array([a, b], dtype=float), value_domain=[0, 1, 2, 3], level_of_measurement="ordinal"))
    assert sum(map(sum, result.confusion)) == len(common)
    assert sum(result.confusion[i][i] for i in range(4)) == sum(1 for x, y in zip(a, b, strict=True) if x == y)


def test_comparison_on_a_three_level_scale_uses_its_own_grades():
    llm, qrels = {"a": 2, "b": 1, "c": 0, "d": 2}, {"a": 2, "b": 2, "c": 0, "d": 1}
    result = ag.compare(llm, qrels, relevance_level=1, categories=[0, 1, 2])
    assert result.confusion == [[1, 0, 0], [0, 0, 1], [0, 1, 1]]
    assert result.binary.value is not None and result.binary.value == pytest.approx(1.0)  # 1 and 2 both relevant


def test_flip_rate_counts_canaries_of_non_relevant_sources_graded_relevant():
    # (canary grade, source grade): two sources not relevant and flipped to 3 and 2, one not flipped (1), one source
    # relevant (not counted), one source never graded (not counted), one canary with no grade (a failure).
    rate = ag.flip_rate("instruction", [(3, 0), (2, 1), (1, 0), (3, 3), (3, None), (None, 0)])
    assert (rate.canaries, rate.graded, rate.counted, rate.flipped) == (6, 5, 3, 2)
    assert rate.rate == pytest.approx(2 / 3)
    assert rate.text() == "0.67"
    assert ag.flip_rate("stuffed", [(None, 0)]).text() == "n/a"
    # At relevance level 1 (TREC binary) a canary graded 1 has flipped.
    assert ag.flip_rate("stuffed", [(1, 0)], relevance_level=1).flipped == 1

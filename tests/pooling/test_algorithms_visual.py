"""Visual ids: formulas that look the same are one pooled formula, named by the index or by their smallest id."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ir.pools.ids import id_order_key
from ir.pools.visual import cluster_visual_ids


def test_visual_id_from_the_index_is_kept_even_when_the_latex_differs():
    result = cluster_visual_ids([
        ("1", "900", "slt-a", "x^2"), ("2", "900", "slt-b", "y"), ("3", "901", "slt-a", "x^2"),
    ])
    assert result == {"1": "900", "2": "900", "3": "901"}


def test_formulas_with_the_same_slt_share_the_smallest_formula_id():
    result = cluster_visual_ids([("12", None, "V!x", "x"), ("9", "", "V!x", "x "), ("100", None, "V!y", "x")])
    assert result == {"12": "9", "9": "9", "100": "100"}


def test_without_slt_formulas_group_by_latex_ignoring_white_space():
    result = cluster_visual_ids([
        ("30", None, None, "x ^ {2}"),
        ("4", None, "", "x^{2}"),
        ("5", None, "  ", "x^\n{2}\t"),
        ("6", None, None, "x^{3}"),
    ])
    assert result == {"30": "4", "4": "4", "5": "4", "6": "6"}


def test_slt_and_latex_clusters_stay_apart_even_when_their_strings_are_equal():
    result = cluster_visual_ids([("1", None, "x", "y"), ("2", None, None, "x")])
    assert result == {"1": "1", "2": "2"}


def test_formula_with_neither_slt_nor_latex_is_its_own_formula():
    assert cluster_visual_ids([("1", None, None, ""), ("2", None, None, "  ")]) == {"1": "1", "2": "2"}


def test_smallest_id_compares_digit_ids_as_numbers():
    result = cluster_visual_ids([("10", None, "s", ""), ("9", None, "s", ""), ("100", None, "s", "")])
    assert set(result.values()) == {"9"}


def test_smallest_id_prefers_digit_ids_to_other_ids():
    result = cluster_visual_ids([("q_1", None, "s", ""), ("200", None, "s", ""), ("a", None, "s", "")])
    assert set(result.values()) == {"200"}


def test_a_computed_id_that_collides_with_an_index_visual_id_is_refused():
    with pytest.raises(ValueError, match="'5'"):
        cluster_visual_ids([("1", "5", "s", "x"), ("5", None, "t", "y")])


def test_id_order_sorts_numbers_numerically_then_other_ids_as_text():
    ids = ["q_10", "10", "q_2", "9", "0010", "B.1", "100"]
    assert sorted(ids, key=id_order_key) == ["9", "0010", "10", "100", "B.1", "q_10", "q_2"]


@given(st.lists(st.tuples(st.sampled_from(["s1", "s2", None]), st.sampled_from(["x", " x", "y", None])),
                min_size=1, max_size=12), st.randoms(use_true_random=False))
def test_cluster_names_do_not_depend_on_input_order(shapes, rnd):
    formulas = [(str(i), None, slt, latex) for i, (slt, latex) in enumerate(shapes, start=1)]
    shuffled = list(formulas)
    rnd.shuffle(shuffled)
    result = cluster_visual_ids(formulas)
    assert cluster_visual_ids(shuffled) == result
    for formula_id, visual_id in result.items():
        members = [f for f, v in result.items() if v == visual_id]
        assert visual_id == min(members, key=id_order_key) and formula_id in members

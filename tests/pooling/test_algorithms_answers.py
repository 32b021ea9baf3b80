"""Task 1 pooling: each run's first depth(run) answers, merged, with the runs and ranks that brought them."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ir.pools.posts import pool_answers

ids = st.sampled_from([str(i) for i in range(1, 30)] + ["a", "b", "x9"])
runs = st.dictionaries(
    st.sampled_from(["alpha", "beta", "gamma", "delta"]),
    st.lists(ids, unique=True, max_size=25),
    min_size=1,
)


def test_pool_keeps_each_runs_first_depth_answers_with_their_ranks():
    ranked = {"primary": ["10", "11", "12", "13", "14"], "other": ["12", "20", "10", "21"]}
    pool = pool_answers(ranked, {"primary": 3, "other": 3})
    assert pool == {
        "12": [("other", 1), ("primary", 3)],
        "20": [("other", 2)],
        "10": [("other", 3), ("primary", 1)],
        "11": [("primary", 2)],
    }
    assert "13" not in pool and "21" not in pool


def test_alternate_runs_are_pooled_shallower():
    # ARQMath-3 pools primary runs to 45 and alternates to 20; here 4 and 2.
    ranked = {"prim": ["1", "2", "3", "4", "5"], "alt": ["6", "7", "8", "9"]}
    pool = pool_answers(ranked, {"prim": 4, "alt": 2})
    assert set(pool) == {"1", "2", "3", "4", "6", "7"}


def test_a_per_run_override_of_zero_leaves_the_run_out():
    pool = pool_answers({"a": ["1", "2"], "b": ["3"]}, {"a": 2, "b": 0})
    assert set(pool) == {"1", "2"}


def test_depth_beyond_the_end_of_a_short_run_pools_all_of_it():
    assert set(pool_answers({"a": ["1", "2"]}, {"a": 45})) == {"1", "2"}


def test_an_answer_repeated_in_one_run_counts_once_at_its_best_rank():
    assert pool_answers({"a": ["1", "2", "1"]}, {"a": 3}) == {"1": [("a", 1)], "2": [("a", 2)]}


def test_ids_are_kept_as_strings_even_with_leading_zeros():
    pool = pool_answers({"a": ["007", "7"]}, {"a": 2})
    assert list(pool) == ["007", "7"]


def test_a_run_without_a_depth_is_an_error_not_a_silent_skip():
    with pytest.raises(ValueError, match="'b'"):
        pool_answers({"a": ["1"], "b": ["2"]}, {"a": 1})


def test_negative_depth_is_refused():
    with pytest.raises(ValueError, match="negative"):
        pool_answers({"a": ["1"]}, {"a": -1})


@given(runs, st.integers(min_value=0, max_value=30))
def test_pool_contains_every_runs_top_k_and_nothing_else(ranked, depth):
    depths = dict.fromkeys(ranked, depth)
    pool = pool_answers(ranked, depths)
    expected = {item for run in ranked for item in ranked[run][:depth]}
    assert set(pool) == expected
    for item, provenance in pool.items():
        assert len({run for run, _ in provenance}) == len(provenance)  # one entry per run, no duplicates
        for run, rank in provenance:
            assert ranked[run][rank - 1] == item and rank <= depth


@given(runs, st.data())
def test_pool_does_not_depend_on_the_order_runs_are_given(ranked, data):
    depths = {run: data.draw(st.integers(min_value=0, max_value=10)) for run in ranked}
    reordered = dict(reversed(list(ranked.items())))
    assert list(pool_answers(reordered, depths).items()) == list(pool_answers(ranked, depths).items())

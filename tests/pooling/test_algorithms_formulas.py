"""Task 2 pooling: runs pooled to their k-th distinct formula, and the N instances of each formula to judge."""
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ir.pools.formulas import (
    overflow_count,
    pool_formulas,
    pooled_prefix,
    rr_vote,
    select_instances,
    select_rr_vote,
    select_thread_spread,
)

RUN = [("f1", "A"), ("f2", "A"), ("f3", "B"), ("f4", "A"), ("f5", "C"), ("f6", "C"), ("f7", "D")]


@pytest.mark.parametrize("k, depth", [(0, 0), (1, 1), (2, 3), (3, 5), (4, 7)])
def test_run_is_pooled_down_to_the_first_instance_of_the_kth_distinct_formula(k, depth):
    # A repeats before the 2nd and 3rd distinct formula; C's second instance (f6) is past the 3rd cutoff.
    assert pooled_prefix(RUN, k) == depth


def test_run_with_fewer_than_k_distinct_formulas_is_pooled_whole():
    assert pooled_prefix(RUN, 5) == 7
    assert pooled_prefix([], 25) == 0


def test_alternate_runs_pool_fewer_distinct_formulas_and_provenance_is_kept():
    ranked = {
        "prim": [("f1", "p1", "A"), ("f2", "p2", "A"), ("f3", "p3", "B"), ("f4", "p4", "C")],
        "alt": [("f3", "p3", "B"), ("f1", "p1", "A")],
    }
    pool = pool_formulas(ranked, {"prim": 2, "alt": 1})
    assert pool == {
        "B": {"f3": [("alt", 1), ("prim", 3)]},
        "A": {"f1": [("prim", 1)], "f2": [("prim", 2)]},
    }


def test_a_run_without_k_is_an_error():
    with pytest.raises(ValueError, match="'b'"):
        pool_formulas({"a": [], "b": []}, {"a": 1})


def test_vote_is_the_sum_of_reciprocal_ranks_over_runs():
    assert rr_vote([("r1", 1), ("r2", 3)]) == Fraction(4, 3)  # 1/1 + 1/3
    assert rr_vote([("r1", 3), ("r2", 6), ("r3", 6)]) == Fraction(2, 3)  # 1/3 + 1/6 + 1/6
    assert rr_vote([]) == 0


def test_instances_with_the_highest_votes_are_selected_best_first():
    candidates = {
        "f4": [("r1", 4)],  # 1/4
        "f1": [("r1", 1), ("r2", 3)],  # 4/3
        "f5": [("r1", 3), ("r2", 6), ("r3", 6)],  # 2/3
        "f2": [("r1", 2), ("r2", 2)],  # 1/2 + 1/2 = 1
        "f3": [("r3", 1)],  # 1, tied with f2
    }
    chosen = select_rr_vote(candidates, 5, random.Random("s"))
    assert chosen[0] == "f1" and set(chosen[1:3]) == {"f2", "f3"} and chosen[3:] == ["f5", "f4"]
    assert select_rr_vote(candidates, 1, random.Random("s")) == ["f1"]
    assert len(select_rr_vote(candidates, 2, random.Random("s"))) == 2


def test_exact_ties_are_ties_even_where_floating_point_would_order_them():
    # 1/5 + 1/10 == 1/4 + 1/20 == 3/10, but 0.2 + 0.1 > 0.25 + 0.05 in floating point.
    candidates = {"a": [("r1", 5), ("r2", 10)], "b": [("r1", 4), ("r2", 20)]}
    winners = {select_rr_vote(candidates, 1, random.Random(f"7:B.1:{i}"))[0] for i in range(50)}
    assert winners == {"a", "b"}


def test_ties_are_broken_the_same_way_with_the_same_seed_and_another_way_with_another():
    tied = {f"f{i}": [(f"r{i}", 1)] for i in range(20)}
    first = select_rr_vote(tied, 20, random.Random("1:B.1:v"))
    assert select_rr_vote(tied, 20, random.Random("1:B.1:v")) == first
    # 20! orders: another seed giving the same one is out of the question, and the outcome is fixed by the seed.
    assert select_rr_vote(tied, 20, random.Random("2:B.1:v")) != first
    assert sorted(first) == sorted(tied)


def test_thread_spread_judges_every_answer_when_there_are_at_most_n():
    # p1 holds two instances of the formula: the answer is shown once, through its smallest formula id.
    candidates = {"f2": ("p1", "t1"), "f1": ("p1", "t1"), "f3": ("p2", "t2")}
    assert select_thread_spread(candidates, 2, random.Random("x")) == ["f1", "f3"]


def test_thread_spread_with_fewer_threads_than_n_covers_every_thread_then_fills_up():
    candidates = {"f1": ("p1", "t1"), "f2": ("p2", "t1"), "f3": ("p3", "t1"), "f4": ("p4", "t2"), "f5": ("p5", "t2")}
    seen = set()
    for i in range(40):
        chosen = select_thread_spread(candidates, 3, random.Random(f"9:B.2:{i}"))
        assert len(chosen) == 3 and len(set(chosen)) == 3
        assert {candidates[f][1] for f in chosen} == {"t1", "t2"}
        seen.update(chosen)
    assert seen == set(candidates)  # any answer can be drawn


def test_thread_spread_with_many_threads_takes_one_answer_from_each_of_n_random_threads():
    candidates = {f"f{t}{p}": (f"p{t}{p}", f"t{t}") for t in range(1, 5) for p in range(1, 3)}
    seen_threads = set()
    for i in range(40):
        chosen = select_thread_spread(candidates, 3, random.Random(f"9:B.3:{i}"))
        threads = [candidates[f][1] for f in chosen]
        assert len(chosen) == 3 and len(set(threads)) == 3
        seen_threads.update(threads)
    assert seen_threads == {"t1", "t2", "t3", "t4"}


def test_thread_spread_with_exactly_n_threads_takes_one_answer_from_each():
    candidates = {"f1": ("p1", "t1"), "f2": ("p2", "t1"), "f3": ("p3", "t2")}
    chosen = select_thread_spread(candidates, 2, random.Random("z"))
    assert {candidates[f][1] for f in chosen} == {"t1", "t2"}


def test_formulas_with_more_than_n_candidates_are_counted_per_topic():
    pool = {"A": {f"f{i}": [] for i in range(6)}, "B": {f"g{i}": [] for i in range(5)}, "C": {"h": []}}
    assert overflow_count(pool, 5) == 1
    assert overflow_count(pool, 0) == 3


def test_topic_selection_is_reproducible_and_each_formula_gets_at_most_n():
    ranked = {
        "r1": [(f"f{i}", f"p{i}", "A" if i % 2 else "B") for i in range(1, 15)],
        "r2": [(f"f{i}", f"p{i}", "A") for i in range(15, 20)],
    }
    pool = pool_formulas(ranked, {"r1": 25, "r2": 25})
    first = select_instances(pool, n=5, policy="rr-vote", seed=3, topic_id="B.1")
    assert first == select_instances(pool, n=5, policy="rr-vote", seed=3, topic_id="B.1")
    assert {v: len(f) for v, f in first.items()} == {"A": 5, "B": 5}
    posts = {f"f{i}": (f"p{i}", f"t{i % 3}") for i in range(1, 20)}
    spread = select_instances(pool, n=5, policy="thread-spread", seed=3, topic_id="B.1", posts=posts)
    assert all(len(f) <= 5 for f in spread.values())
    with pytest.raises(ValueError):
        select_instances(pool, n=5, policy="thread-spread", seed=3, topic_id="B.1")


formula_ids = st.sampled_from([str(i) for i in range(1, 25)])
visual_ids = st.sampled_from(["A", "B", "C", "D", "E", "F"])
formula_runs = st.dictionaries(
    st.sampled_from(["r1", "r2", "r3"]),
    st.lists(st.tuples(formula_ids, visual_ids), unique_by=lambda t: t[0], max_size=20).map(
        lambda entries: [(f, f"p{f}", v) for f, v in entries]
    ),
    min_size=1,
)


@given(formula_runs, st.integers(min_value=0, max_value=6))
def test_every_instance_within_a_runs_cutoff_is_a_candidate_of_its_formula(ranked, k):
    pool = pool_formulas(ranked, dict.fromkeys(ranked, k))
    for run, entries in ranked.items():
        depth = pooled_prefix([(f, v) for f, _, v in entries], k)
        for rank, (f, _, v) in enumerate(entries[:depth], start=1):
            assert (run, rank) in pool[v][f]
    for candidates in pool.values():
        for provenance in candidates.values():
            assert len({run for run, _ in provenance}) == len(provenance)


@given(formula_runs, st.integers(min_value=0, max_value=6))
def test_formula_pool_does_not_depend_on_the_order_runs_are_given(ranked, k):
    reordered = dict(reversed(list(ranked.items())))
    ks = dict.fromkeys(ranked, k)
    assert pool_formulas(reordered, ks) == pool_formulas(ranked, ks)


provenances = st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3"]), st.integers(1, 6)), min_size=1, max_size=3)
candidate_sets = st.dictionaries(formula_ids, provenances, max_size=15)


@given(candidate_sets, st.integers(min_value=0, max_value=8), st.integers())
def test_rr_vote_selects_at_most_n_distinct_candidates_the_same_way_every_time(candidates, n, seed):
    chosen = select_rr_vote(candidates, n, random.Random(seed))
    assert len(chosen) == min(n, len(candidates)) and len(set(chosen)) == len(chosen)
    assert set(chosen) <= set(candidates)
    reordered = dict(reversed(list(candidates.items())))
    assert select_rr_vote(reordered, n, random.Random(seed)) == chosen
    votes = [rr_vote(candidates[f]) for f in chosen]
    assert votes == sorted(votes, reverse=True)
    left_out = [rr_vote(p) for f, p in candidates.items() if f not in chosen]
    assert not left_out or not votes or max(left_out) <= min(votes)


thread_sets = st.dictionaries(
    formula_ids, st.tuples(st.sampled_from(["p1", "p2", "p3", "p4", "p5", "p6"]), st.sampled_from(["t1", "t2", "t3"])),
    max_size=15,
)


@given(thread_sets, st.integers(min_value=0, max_value=7), st.integers())
def test_thread_spread_selects_n_answers_over_as_many_threads_as_possible(candidates, n, seed):
    # a post belongs to one thread: the first thread drawn for it wins
    thread_of = {}
    candidates = {f: (p, thread_of.setdefault(p, t)) for f, (p, t) in candidates.items()}
    chosen = select_thread_spread(candidates, n, random.Random(seed))
    posts = {p for p, _ in candidates.values()}
    threads = {t for _, t in candidates.values()}
    assert len(chosen) == min(n, len(posts))
    assert len({candidates[f][0] for f in chosen}) == len(chosen)  # one instance per answer
    assert len({candidates[f][1] for f in chosen}) == min(n, len(threads))
    reordered = dict(reversed(list(candidates.items())))
    assert select_thread_spread(reordered, n, random.Random(seed)) == chosen

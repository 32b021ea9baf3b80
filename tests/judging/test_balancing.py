"""Balanced assignment's pure rule (issue 22.8): N assessors per topic, round-robin over the chosen assessors, the
least-loaded first, what each holds counted and never given twice."""
from collections import Counter
from itertools import product

from judging.balancing import balanced_pairs


def test_one_per_topic_goes_round_robin():
    pairs = balanced_pairs(topics=["T1", "T2", "T3", "T4"], assessors=["a", "b", "c"], per_topic=1)
    assert pairs == [("a", "T1"), ("b", "T2"), ("c", "T3"), ("a", "T4")]


def test_two_per_topic_spreads_the_load_evenly():
    # By hand: T1 a, b; T2 c (load 0), then a (a and b tie at 1, a comes after c); T3 b (1), then c (b, c tie at 1).
    pairs = balanced_pairs(topics=["T1", "T2", "T3"], assessors=["a", "b", "c"], per_topic=2)
    assert pairs == [("a", "T1"), ("b", "T1"), ("c", "T2"), ("a", "T2"), ("b", "T3"), ("c", "T3")]


def test_what_an_assessor_holds_counts_toward_the_topic_and_their_load():
    # a holds T1 (so T1 has its one assessor) and X, a topic not chosen now: a's load is 2, so b takes T2 and T3.
    pairs = balanced_pairs(topics=["T1", "T2", "T3"], assessors=["a", "b"], per_topic=1,
                           held=[("a", "T1"), ("a", "X")])
    assert pairs == [("b", "T2"), ("b", "T3")]


def test_a_topic_held_by_an_assessor_not_chosen_counts_too():
    assert balanced_pairs(topics=["T1", "T2"], assessors=["a"], per_topic=1, held=[("z", "T1")]) == [("a", "T2")]


def test_a_topic_is_never_given_twice_to_its_holder():
    pairs = balanced_pairs(topics=["T1"], assessors=["a", "b", "c"], per_topic=2, held=[("a", "T1")])
    assert pairs == [("b", "T1")]
    # Asking again once everything is held gives nothing more.
    assert balanced_pairs(topics=["T1"], assessors=["a", "b", "c"], per_topic=2,
                          held=[("a", "T1"), ("b", "T1")]) == []


def test_a_barred_pair_is_skipped_and_a_topic_nobody_can_take_stays_short():
    # a judges T1 officially, so a cannot be its dual assessor.
    assert balanced_pairs(topics=["T1"], assessors=["a", "b"], per_topic=1, barred={("a", "T1")}) == [("b", "T1")]
    assert balanced_pairs(topics=["T1"], assessors=["a"], per_topic=1, barred={("a", "T1")}) == []


def test_many_cases_give_no_duplicates_and_loads_within_one():
    for n_topics, n_assessors, per_topic in product(range(1, 12), range(1, 6), range(1, 4)):
        if per_topic > n_assessors:
            continue
        topics = [f"T{i}" for i in range(n_topics)]
        assessors = [f"u{i}" for i in range(n_assessors)]
        held = [(assessors[i % n_assessors], topics[i]) for i in range(0, n_topics, 3)]
        pairs = balanced_pairs(topics=topics, assessors=assessors, per_topic=per_topic, held=held)
        everything = held + pairs
        assert len(set(everything)) == len(everything)
        per = Counter(t for _, t in everything)
        assert all(per[t] == per_topic for t in topics)
        loads = Counter(a for a, _ in everything)
        assert max(loads[a] for a in assessors) - min(loads[a] for a in assessors) <= 1, (n_topics, n_assessors)

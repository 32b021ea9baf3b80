"""The judging order's policies and guards (issue 27), on hand-made pools, without a database."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir.pools.adaptive import POLICIES, Judging, next_items
from ir.pools.order import display_order

# Three runs, depth 3.           rank:  1     2     3
#   A                                   a1    a2    x
#   B                                   x     b2    b3
#   C                                   c1    c2    b2
POOL = {
    "a1": [("A", 1)], "a2": [("A", 2)], "x": [("A", 3), ("B", 1)],
    "b2": [("B", 2), ("C", 3)], "b3": [("B", 3)], "c1": [("C", 1)], "c2": [("C", 2)],
}
def test_bandit_chooses_the_run_of_highest_posterior_mean_and_reads_it_in_rank_order():
    # Beta(1, 1) prior; a judgment counts for every run that retrieved the item.
    #   x relevant      -> A: 1 rel, B: 1 rel
    #   b2 not relevant -> B: 1 non-rel, C: 1 non-rel
    #   c1 not relevant -> C: 2 non-rel
    # means: A = (1+1)/(2+1) = 2/3, B = (1+1)/(2+1+1) = 1/2, C = 1/(2+2) = 1/4 -> A, whose first unjudged is a1.
    judged = {"x": True, "b2": False, "c1": False}
    assert next_items("bandit", POOL, judged, seed=7, warm_up=0) == ["a1"]
    # With nothing new learnt A stays best: a1, a2 (x is judged), then A is spent; B (1/2) beats C (1/4): b3.
    assert next_items("bandit", POOL, judged, seed=7, warm_up=0, count=4) == ["a1", "a2", "b3", "c2"]


def test_bandit_counts_a_judgment_for_every_run_that_retrieved_the_item():
    # x not relevant: A = 1/(2+1) = 1/3 and B = 1/3 both drop, C keeps the prior's 1/2 -> C's top item c1.
    assert next_items("bandit", POOL, {"x": False}, seed=7, warm_up=0) == ["c1"]
    # x relevant: A = B = 2/3 > C = 1/2, so the choice is A's a1 or B's b2 (the tie goes by the seed), never C's.
    assert next_items("bandit", POOL, {"x": True}, seed=7, warm_up=0)[0] in {"a1", "b2"}


def test_bandit_breaks_ties_by_the_seed():
    # No judgment: every run's mean is 1/2; which run goes first depends on the seed, and only on it.
    firsts = {seed: next_items("bandit", POOL, {}, seed=seed, warm_up=0)[0] for seed in range(30)}
    assert set(firsts.values()) == {"a1", "x", "c1"}
    assert all(next_items("bandit", POOL, {}, seed=seed, warm_up=0)[0] == first for seed, first in firsts.items())


def test_a_revision_changes_the_bandits_next_choice():
    assert next_items("bandit", POOL, {"x": False}, seed=7, warm_up=0) == ["c1"]
    revised = {"x": True}
    assert next_items("bandit", POOL, revised, seed=7, warm_up=0) != ["c1"]


# Move-to-front (Cormack, Palmer & Clarke 1998, as Li & Kanoulas's code implements it): every run starts at the top
# priority; the run of highest priority is read in rank order while its items are relevant; a non-relevant one lowers
# its priority by one and the next item is another run's. Equal priorities go by the runs' seeded order: seed 0 (topic
# "") gives A, B, C.
def test_move_to_front_keeps_a_run_while_it_yields_relevant_items():
    assert next_items("move-to-front", POOL, {}, seed=0, warm_up=0) == ["a1"]
    # a1, a2, x relevant: A is read to its end; then B (at the top, before C), whose x is judged already, goes on
    # with b2.
    assert next_items("move-to-front", POOL, {"a1": True}, seed=0, warm_up=0) == ["a2"]
    assert next_items("move-to-front", POOL, {"a1": True, "a2": True}, seed=0, warm_up=0) == ["x"]
    assert next_items("move-to-front", POOL, {"a1": True, "a2": True, "x": True}, seed=0, warm_up=0) == ["b2"]


# Three runs of four items each, no item shared.
SEPARATE = {f"{run.lower()}{rank}": [(run, rank)] for run in "ABC" for rank in range(1, 5)}


def test_move_to_front_lowers_a_runs_priority_by_one_on_a_non_relevant_item():
    steps = [
        ("a1", False),  # all at 0: A first -> a1; not relevant: A -1
        ("b1", True),   # B and C at 0: B -> b1; relevant: B stays at 0
        ("b2", False),  # B goes on -> b2; B -1
        ("c1", False),  # C alone at 0 -> c1; C -1
        ("a2", False),  # all at -1, C has just missed: A -> a2; A -2
        ("b3", False),  # B and C at -1: B -> b3; B -2
        ("c2", True),   # C alone at -1 -> c2; relevant, C stays
        ("c3", False),  # C goes on -> c3; C -2
        ("a3", None),   # all at -2: A
    ]
    judged: dict[str, bool] = {}
    for expected, relevant in steps:
        assert next_items("move-to-front", SEPARATE, judged, seed=0, warm_up=0) == [expected]
        if relevant is not None:
            judged[expected] = relevant


def test_move_to_front_turns_to_another_run_after_a_miss_even_on_equal_priority():
    # Minimum depth 1: the runs' top items first. a1 relevant (A stays at 0), b1 and c1 not (B and C -1); then A,
    # alone at 0, is read: a2 not relevant, A -1. All three at -1 and A first in the order, but A has just missed:
    # B's b2 comes next.
    steps = [("a1", True), ("b1", False), ("c1", False), ("a2", False), ("b2", None)]
    judged: dict[str, bool] = {}
    for expected, relevant in steps:
        assert next_items("move-to-front", SEPARATE, judged, seed=0, warm_up=0, min_depth=1) == [expected]
        if relevant is not None:
            judged[expected] = relevant
    # A run that has just missed is still read when it alone has items left.
    only_a = {item: prov for item, prov in SEPARATE.items() if item.startswith("a")}
    assert next_items("move-to-front", only_a, {"a1": False}, seed=0, warm_up=0) == ["a2"]


def test_move_to_front_skips_items_already_judged_and_learns_only_from_its_own_choices():
    # c1 judged not relevant before the policy chose anything (a warm-up item, say): C keeps its priority; A first.
    assert next_items("move-to-front", POOL, {"c1": False}, seed=0, warm_up=0) == ["a1"]
    # x judged not relevant that way, a1 (the policy's choice) not relevant: A -1; B at 0 passes over x, which does
    # not lower it, to b2.
    assert next_items("move-to-front", POOL, {"x": False, "a1": False}, seed=0, warm_up=0) == ["b2"]
    # The warm-up's items never change a priority: two random items judged not relevant, then A, B, C at 0.
    order = display_order(POOL, seed=0, topic_id="")
    judged = dict.fromkeys(order[:2], False)
    first_of = {"A": ["a1", "a2", "x"], "B": ["x", "b2", "b3"], "C": ["c1", "c2", "b2"]}
    expected = next(item for run in "ABC" for item in first_of[run] if item not in judged)
    assert next_items("move-to-front", POOL, judged, seed=0, warm_up=2) == [expected]


def test_move_to_front_starts_with_a_run_chosen_by_the_seed():
    firsts = {seed: next_items("move-to-front", POOL, {}, seed=seed, warm_up=0)[0] for seed in range(30)}
    assert set(firsts.values()) == {"a1", "x", "c1"}
    assert all(next_items("move-to-front", POOL, {}, seed=seed, warm_up=0)[0] == first
               for seed, first in firsts.items())


def test_random_is_the_display_order_assessors_have_always_seen():
    order = display_order(POOL, seed=11, topic_id="A.1")
    assert next_items("random", POOL, {}, seed=11, topic_id="A.1", count=len(POOL)) == order
    judged = {order[0]: True, order[3]: False}
    assert next_items("random", POOL, judged, seed=11, topic_id="A.1", count=len(POOL)) == \
        [item for item in order if item not in judged]


@pytest.mark.parametrize("policy", ["move-to-front", "bandit"])
def test_warm_up_items_come_in_random_order_then_the_policy_takes_over(policy):
    order = display_order(POOL, seed=5, topic_id="A.2")
    assert next_items(policy, POOL, {}, seed=5, topic_id="A.2", warm_up=3, count=3) == order[:3]
    judged = dict.fromkeys(order[:2], False)
    # Two judged: one warm-up item left, the display order's third.
    assert next_items(policy, POOL, judged, seed=5, topic_id="A.2", warm_up=3) == [order[2]]
    # Three judged: the warm-up is over, and the policy's choice is made with what it learnt from them.
    judged = dict.fromkeys(order[:3], False)
    assert next_items(policy, POOL, judged, seed=5, topic_id="A.2", warm_up=3) == \
        next_items(policy, POOL, judged, seed=5, topic_id="A.2", warm_up=0)


@pytest.mark.parametrize("policy", POLICIES)
def test_every_runs_top_items_come_before_any_other(policy):
    # min_depth 1: a1, x and c1 (every run's first) before anything else, whatever the policy and the warm-up.
    for warm_up in (0, 2, 10):
        order = next_items(policy, POOL, {}, seed=1, warm_up=warm_up, min_depth=1, count=len(POOL))
        assert set(order[:3]) == {"a1", "x", "c1"}
        assert sorted(order) == sorted(POOL)


def test_minimum_depth_within_a_run_is_read_by_the_policy_in_rank_order():
    # min_depth 2 with the bandit, A judged relevant at the top: A's a2 (rank 2) is next, before other runs' tops.
    judged = {"a1": True}
    assert next_items("bandit", POOL, judged, seed=1, warm_up=0, min_depth=2) == ["a2"]


@pytest.mark.parametrize("policy", POLICIES)
def test_judged_and_excluded_items_are_never_returned(policy):
    got = next_items(policy, POOL, {"x": True, "a1": False}, seed=2, exclude={"c1"}, count=10)
    assert sorted(got) == sorted(set(POOL) - {"x", "a1", "c1"})


def test_an_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="unknown judging order"):
        next_items("greedy", POOL, {}, seed=0)


pools = st.dictionaries(
    st.text("abcdefgh", min_size=1, max_size=3),
    st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3", "r4"]), st.integers(1, 20)), min_size=1, max_size=3,
             unique_by=lambda p: p[0]),
    max_size=25)


# No deadline: each example replays next_items once per item (quadratic by design, to check it against the stepping
# Judging), which a machine busy with other work can slow past Hypothesis's 200 ms.
@settings(deadline=None)
@given(pools, st.sampled_from(POLICIES), st.integers(0, 3), st.integers(0, 6), st.integers(0, 2**32),
       st.lists(st.booleans(), max_size=25))
def test_every_policy_orders_the_whole_pool_once_and_the_same_way_for_a_seed(pool, policy, min_depth, warm_up, seed,
                                                                           outcomes):
    judged: dict[str, bool] = {}
    walk = []
    judging = Judging(policy, pool, seed=seed, warm_up=warm_up, min_depth=min_depth)
    for i in range(len(pool)):
        item = next_items(policy, pool, judged, seed=seed, warm_up=warm_up, min_depth=min_depth)[0]
        # The stepping simulator and the replaying next_items agree.
        assert judging.take() == item
        relevant = outcomes[i] if i < len(outcomes) else False
        judging.record(item, relevant)
        judged[item] = relevant
        walk.append(item)
    assert sorted(walk) == sorted(pool)
    assert next_items(policy, pool, judged, seed=seed) == []
    assert judging.take() is None

"""Knowing when to stop (issue 27): the estimate of what is left, and the knee and target rules' advice, on
hand-made pools, without a database."""
from ir.pools.stopping import knee_advice, target_advice, topic_stopping, unfound_estimate


def test_the_knee_rule_stops_once_the_gain_curve_has_bent_enough():
    # 20 relevant, then 80 not: the knee is at 20 judged. Slope before: 20/20 = 1; after: (20 - 20 + 1) / 80.
    # Ratio 80 >= 6, and 100 judged is the minimum for a pool of 450 (min(100, 40% of 450)).
    gains = [True] * 20 + [False] * 80
    advice = knee_advice(gains, 450)
    assert advice.stop is True and "80.0" in advice.reason and "knee at 20" in advice.reason
    # One judgment fewer: the same bend, but the rule waits.
    assert knee_advice(gains[:99], 450).stop is None
    # A small pool needs 40% of it: 100 judged of 200 is enough (minimum 80).
    assert knee_advice(gains, 200).stop is True


def test_the_knee_rule_goes_on_while_relevant_items_keep_coming():
    # One relevant in every 10, as a random order finds them: the curve is a line, the ratio about 1.
    gains = [i % 10 == 0 for i in range(150)]
    advice = knee_advice(gains, 450)
    assert advice.stop is False and advice.reason.startswith("go on")
    assert knee_advice([False] * 150, 450).stop is None


# Two runs: A pooled a1..a4, B pooled b1..b4; x is A's rank 5 and B's rank 1.
POOL = {**{f"a{r}": [("A", r)] for r in range(1, 5)}, **{f"b{r}": [("B", r + 1)] for r in range(1, 5)},
        "x": [("A", 5), ("B", 1)]}


def test_the_target_rule_stops_once_the_order_has_read_past_every_relevant_target():
    # The warm-up judged a3 (relevant) and b4 (not): a3 is the only target. a3 is reached once A's a1 and a2 are
    # judged (x, at rank 5 of A and 1 of B, does not matter for it).
    judged = {"a3": True, "b4": False}
    assert target_advice(POOL, judged, ["a3", "b4"], adaptive=True).stop is False
    judged |= {"a1": True}
    assert target_advice(POOL, judged, ["a3", "b4"], adaptive=True).reason == "go on: 0 of 1 targets reached"
    judged |= {"a2": False}
    assert target_advice(POOL, judged, ["a3", "b4"], adaptive=True).stop is True


def test_the_target_rule_reaches_an_item_through_any_of_its_runs():
    # x is a target: B reads it first (rank 1), so it is reached at once, whatever A has read.
    assert target_advice(POOL, {"x": True}, ["x"], adaptive=True).stop is True


def test_the_target_rule_has_nothing_to_say_without_a_relevant_target_or_for_a_random_order():
    assert target_advice(POOL, {"a1": False}, ["a1"], adaptive=True).stop is None
    assert target_advice(POOL, {}, [], adaptive=True).stop is None
    assert target_advice(POOL, {"x": True}, ["x"], adaptive=False).stop is None


def test_the_estimate_of_a_half_judged_pool_of_even_relevance_is_near_the_truth():
    # Two runs of 100 items each, one in five relevant whatever the rank; every other item judged: of the 100 left,
    # 20 are relevant, and a rate of 20% over the judged ones predicts 20.
    pool = {f"{run}{r}": [(run, r)] for run in "AB" for r in range(1, 101)}
    relevant = {item: int(item[1:]) % 5 == 0 for item in pool}
    judged = {item: relevant[item] for item in pool if int(item[1:]) % 2 == 1 or item[0] == "A" and
              int(item[1:]) % 4 == 0}
    truth = sum(relevant[item] for item in pool if item not in judged)
    estimate = unfound_estimate(pool, judged)
    unjudged = len(pool) - len(judged)
    assert 0 <= estimate.low <= estimate.expected <= estimate.high <= unjudged
    assert estimate.low <= truth <= estimate.high
    assert abs(estimate.expected - truth) < 0.5 * truth


def test_the_estimate_follows_the_runs_precision_at_the_ranks_left():
    # A finds relevant items at its top ranks, not below: the estimate for its deep unjudged ranks is small, and
    # smaller than for the same count of unjudged top ranks.
    pool = {f"a{r}": [("A", r)] for r in range(1, 41)}
    judged_top = {f"a{r}": r <= 10 for r in range(1, 21)}  # ranks 1-10 relevant, 11-20 not; 21-40 left
    deep = unfound_estimate(pool, judged_top)
    judged_deep = {f"a{r}": r > 30 for r in range(21, 41)}  # ranks 31-40 relevant, 21-30 not; 1-20 left
    top = unfound_estimate(pool, judged_deep)
    assert deep.expected < 5 < top.expected


def test_everything_judged_leaves_nothing_and_a_topic_summary_counts_only_its_pool():
    judged = dict.fromkeys(POOL, False) | {"x": True, "elsewhere": True}
    stopping = topic_stopping(POOL, judged, warm_up=2, adaptive=True)
    assert (stopping.judged, stopping.pool, stopping.found) == (9, 9, 1)
    assert (stopping.unfound.expected, stopping.unfound.low, stopping.unfound.high) == (0.0, 0, 0)

"""ir/uncertain.py: the `uncertain` order's choice rule on hand-made pools, without a database."""
from ir.pools.adaptive import next_items
from ir.pools.order import display_order
from ir.uncertain import margin, smallest_margin, uncertain_items

POOL = {"a1": [("a", 1)], "a2": [("a", 2)], "b1": [("b", 1)], "b2": [("b", 2)], "c": []}
CALIBRATED = {"a1": [0.2, 0.8], "a2": [0.45, 0.55], "b1": [0.6, 0.4], "b2": [0.5, 0.5]}


def test_margin_is_the_gap_between_the_two_most_probable_grades():
    assert margin([0.1, 0.5, 0.3, 0.1]) == 0.2 and margin([1.0]) == 1.0


def test_the_smallest_margin_first_ties_in_the_given_order_and_items_without_probabilities_last():
    assert smallest_margin(["a1", "a2", "b2"], CALIBRATED) == "b2"
    assert smallest_margin(["b2", "x"], {**CALIBRATED, "x": [0.5, 0.5]}) == "b2"
    assert smallest_margin(["x", "b2"], {**CALIBRATED, "x": [0.5, 0.5]}) == "x"
    assert smallest_margin(["c", "a1"], CALIBRATED) == "a1" and smallest_margin(["c"], CALIBRATED) == "c"
    assert smallest_margin([], CALIBRATED) is None


def test_a_list_goes_by_margin_and_leaves_out_the_judged_and_excluded():
    assert uncertain_items(POOL, {}, CALIBRATED, seed=1, warm_up=0, count=5) == ["b2", "a2", "b1", "a1", "c"]
    assert uncertain_items(POOL, {"b2": False}, CALIBRATED, seed=1, warm_up=0, count=2, exclude={"a2"}) == ["b1",
                                                                                                           "a1"]


def test_the_warm_up_and_the_minimum_depth_guard_it_as_the_other_orders():
    random = display_order(POOL, seed=3, topic_id="T")
    assert uncertain_items(POOL, {}, CALIBRATED, seed=3, warm_up=2, count=3, topic_id="T")[:2] == random[:2]
    assert uncertain_items(POOL, {}, CALIBRATED, seed=3, warm_up=0, min_depth=1, count=3) == ["b1", "a1", "b2"]


def test_without_a_calibration_it_is_the_random_order():
    expected = next_items("random", POOL, {"a1": True}, seed=5, warm_up=0, count=4, topic_id="T")
    assert uncertain_items(POOL, {"a1": True}, {}, seed=5, warm_up=0, count=4, topic_id="T") == expected
    assert uncertain_items(POOL, ["a1"], None, seed=5, warm_up=0, count=4, topic_id="T") == expected

"""A campaign's hours budget spread over its topics (ir/pools/budgets.py), worked by hand, without a database."""
import pytest

from ir.pools.budgets import budget_spread


def test_an_even_spread_gives_a_small_pool_all_it_holds_and_the_rest_to_the_others():
    # 100 items over three topics: A.2 holds 10 (less than its third), the other two share the 90 left.
    assert budget_spread(100, {"A.1": 450, "A.2": 10, "A.3": 450}, {}) == {"A.1": 45, "A.2": 10, "A.3": 45}


def test_the_items_a_whole_share_leaves_go_to_the_largest_remainders_in_topic_order():
    assert budget_spread(7, {"A.1": 5, "A.2": 5, "A.3": 5}, {}) == {"A.1": 3, "A.2": 2, "A.3": 2}
    assert budget_spread(8, {"A.10": 5, "A.2": 5, "A.3": 5}, {}) == {"A.2": 3, "A.3": 3, "A.10": 2}


def test_a_found_spread_follows_one_plus_the_relevant_found():
    # Weights 1 + found: 9, 1, 2 of 12. A.1 75, A.2 8 1/3, A.3 16 2/3: the spare item goes to A.3 (2/3 > 1/3).
    spread = budget_spread(100, {"A.1": 450, "A.2": 10, "A.3": 450}, {"A.1": 8, "A.3": 1}, spread="found")
    assert spread == {"A.1": 75, "A.2": 8, "A.3": 17}
    assert sum(spread.values()) == 100


def test_a_budget_larger_than_the_pools_is_the_pools():
    assert budget_spread(1000, {"A.1": 5, "A.2": 7}, {}, spread="found") == {"A.1": 5, "A.2": 7}


def test_an_unknown_spread_is_refused():
    with pytest.raises(ValueError, match="even, found"):
        budget_spread(10, {"A.1": 5}, {}, spread="greedy")

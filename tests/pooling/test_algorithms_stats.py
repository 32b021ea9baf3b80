"""Pool statistics: what each run brought to the pool, and the planner of pool size and hours by depth."""
import pytest

from ir.pools.stats import (
    Contribution,
    PlanRow,
    judging_hours,
    plan_pool_sizes,
    run_contributions,
    sum_contributions,
)


def test_each_run_shows_what_it_contributed_and_what_only_it_contributed():
    pool = {"1": [("a", 1), ("b", 2)], "2": [("a", 2)], "3": [("b", 1)], "4": [("b", 3)]}
    assert run_contributions(pool, runs=["c", "a", "b"]) == {
        "a": Contribution(2, 1),
        "b": Contribution(3, 2),
        "c": Contribution(0, 0),  # a run that pooled nothing is still listed
    }


def test_campaign_contributions_add_up_over_topics():
    totals = sum_contributions([{"a": Contribution(2, 1)}, {"a": Contribution(3, 0), "b": Contribution(1, 1)}])
    assert totals == {"a": Contribution(5, 1), "b": Contribution(1, 1)}


def test_hours_are_judgments_times_seconds_per_judgment():
    assert judging_hours(600, 36) == pytest.approx(6.0)


def test_planner_shows_pool_size_and_hours_at_each_depth_with_shallower_alternates():
    ranked = {
        "A.1": {"p": ["1", "2", "3"], "alt": ["4", "1", "5"]},
        "A.2": {"p": ["6"], "alt": ["7", "8"]},
    }
    rows = plan_pool_sizes(ranked, [1, 2, 3], alternate_runs={"alt"}, alternate_depth=lambda d: d // 2,
                           seconds_per_judgment=36)
    # d=1 (alt 0): {1} + {6}; d=2 (alt 1): {1,2,4} + {6,7}; d=3 (alt 1): {1,2,3,4} + {6,7}
    assert [(r.depth, r.alternate_depth, r.items) for r in rows] == [(1, 0, 2), (2, 1, 5), (3, 1, 6)]
    assert rows[2].hours == pytest.approx(6 * 36 / 3600)


def test_planner_without_alternate_depth_pools_every_run_to_the_same_depth():
    rows = plan_pool_sizes({"A.1": {"p": ["1", "2"], "alt": ["3", "4"]}}, [1], alternate_runs={"alt"})
    assert rows == [PlanRow(depth=1, alternate_depth=1, items=2, judgments=2, hours=None)]


def test_formula_planner_counts_formulas_and_the_instances_that_would_be_judged():
    ranked = {"B.1": {"r": [("f1", "p1", "A"), ("f2", "p2", "A"), ("f3", "p3", "B")]}}
    rows = plan_pool_sizes(ranked, [1, 2], task="formulas", instances_per_formula=1)
    assert [(r.items, r.judgments) for r in rows] == [(1, 1), (2, 2)]
    rows = plan_pool_sizes(ranked, [2], task="formulas", instances_per_formula=5)
    assert (rows[0].items, rows[0].judgments) == (2, 3)

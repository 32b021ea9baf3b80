"""Rank correlation and leave-one-team-out reusability (issue 18 point 6) on a hand-made pool, without a database."""
import math

import pytest

from ir.statistics import (
    REUSABILITY_HEADER,
    kendall_tau,
    leave_team_out,
    prime_scorer,
    ranking,
    ranks,
    reusability,
    reusability_lines,
    tau_ap,
)

# Grades 0-3; relevant means grade >= 2. A pool of depth 2 over four runs of three teams.
QRELS = {"T1": {"a": 3, "b": 2, "c": 0, "d": 1, "e": 2}, "T2": {"x": 2, "y": 0, "z": 3}}
RUNS = {
    "t1-r1": {"T1": ["a", "b", "q"], "T2": ["x", "y"]},  # q was never judged
    "t1-r2": {"T1": ["e", "a"], "T2": ["z"]},
    "t2-r1": {"T1": ["a", "c", "d"], "T2": ["x", "y"]},  # d at rank 3: below the depth
    "t3-r1": {"T1": ["b", "d"], "T2": ["y"]},
}
TEAMS = {"t1-r1": "t1", "t1-r2": "t1", "t2-r1": "t2", "t3-r1": "t3"}


def test_tau_ap_against_hand_worked_rankings():
    actual = ["a", "b", "c", "d"]
    assert tau_ap(actual, actual) == 1.0
    assert tau_ap(["d", "c", "b", "a"], actual) == pytest.approx(-1.0)
    # Swapping the top two: C(2)/1 = 0, C(3)/2 = 1, C(4)/3 = 1 -> 2/3 x 2 - 1 = 1/3 (Kendall's tau: 2/3).
    assert tau_ap(["b", "a", "c", "d"], actual) == pytest.approx(1 / 3)
    # Swapping the bottom two costs less: 1 + 1 + 2/3 -> 2/3 x 8/3 - 1 = 7/9.
    assert tau_ap(["a", "b", "d", "c"], actual) == pytest.approx(7 / 9)
    with pytest.raises(ValueError):
        tau_ap(["a", "b"], ["a", "c"])
    assert math.isnan(tau_ap(["a"], ["a"]))


def test_kendall_tau_counts_a_top_swap_like_a_bottom_one():
    full = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}
    assert kendall_tau(full, {"a": 3.0, "b": 4.0, "c": 2.0, "d": 1.0}) == pytest.approx(2 / 3)
    assert kendall_tau(full, {"a": 4.0, "b": 3.0, "c": 1.0, "d": 2.0}) == pytest.approx(2 / 3)


def test_ties_share_the_better_rank_and_keep_their_order_in_a_ranking():
    scores = {"a": 0.5, "b": 0.7, "c": 0.5, "d": 0.1}
    assert ranks(scores) == {"b": 1, "a": 2, "c": 2, "d": 4}
    assert ranking(scores) == ["b", "a", "c", "d"]


def test_leave_team_out_removes_the_judged_items_only_that_team_put_in_the_top_k():
    outs = leave_team_out(QRELS, RUNS, TEAMS, depth=2)
    # t1 alone has e (T1) and z (T2) in a top 2, both relevant; t2 alone has c (grade 0); t3 alone has d (grade 1):
    # t2's run has d too, but at rank 3. q is no one's: it was never judged.
    assert outs["t1"].removed == {"T1": {"e"}, "T2": {"z"}}
    assert outs["t1"].unique_relevant == 2
    assert outs["t1"].qrels == {"T1": {"a": 3, "b": 2, "c": 0, "d": 1}, "T2": {"x": 2, "y": 0}}
    assert (outs["t2"].removed, outs["t2"].unique_relevant) == ({"T1": {"c"}}, 0)
    assert (outs["t3"].removed, outs["t3"].unique_relevant) == ({"T1": {"d"}}, 0)
    assert leave_team_out(QRELS, RUNS, TEAMS, depth=2, relevance_level=1)["t3"].unique_relevant == 1
    # Deeper, t2's d is in its top 3 too: no longer t3's alone.
    assert leave_team_out(QRELS, RUNS, TEAMS, depth=3)["t3"].removed == {}


def test_a_run_without_a_team_is_its_own_team():
    outs = leave_team_out(QRELS, RUNS, {}, depth=2)
    assert list(outs) == list(RUNS)
    assert outs["t1-r2"].removed == {"T1": {"e"}, "T2": {"z"}}
    assert outs["t1-r1"].removed == {}  # a, b, x, y: all in another run's top 2


def test_reusability_scores_each_run_against_the_full_and_its_teams_reduced_qrels():
    rows, [agreement] = reusability(QRELS, RUNS, TEAMS, depth=2, scorer=prime_scorer(measures=("map_prime",)))
    table = {row.run: (row.full, row.leave_team_out, row.unique_relevant, row.rank_full, row.rank_lto) for row in rows}
    # MAP' by hand (relevant: a, b, e on T1; x, z on T2; unjudged items dropped; mean over both topics).
    # t1-r1 without t1's items: T1 [a, b] with 2 relevant left -> 1; T2 [x] with 1 -> 1.
    # t1-r2 without them: T1 [a] of a, b -> 1/2; T2 nothing judged left -> 0.
    assert table == {
        "t1-r1": (pytest.approx(7 / 12), pytest.approx(1.0), 2, 1, 1),
        "t1-r2": (pytest.approx(7 / 12), pytest.approx(1 / 4), 2, 1, 3),
        "t2-r1": (pytest.approx(5 / 12), pytest.approx(5 / 12), 0, 3, 2),
        "t3-r1": (pytest.approx(1 / 6), pytest.approx(1 / 6), 0, 4, 4),
    }
    assert agreement.measure == "map_prime"
    # Pairs: 4 concordant, 1 discordant (t1-r2, t2-r1), 1 tied in the full scores: tau-b = 3 / sqrt(5 x 6).
    assert agreement.kendall_tau == pytest.approx(3 / math.sqrt(30))
    # Full ranking t1-r1, t1-r2, t2-r1, t3-r1; without: t1-r1, t2-r1, t1-r2, t3-r1 -> (1 + 1/2 + 1) x 2/3 - 1.
    assert agreement.tau_ap == pytest.approx(2 / 3)
    assert (agreement.largest_change, agreement.changed_runs) == (2, ("t1-r2",))


def test_reusability_table_lines():
    rows, agreements = reusability(QRELS, RUNS, TEAMS, depth=2, scorer=prime_scorer(measures=("map_prime",)))
    lines = list(reusability_lines(rows, agreements))
    assert lines[0] == REUSABILITY_HEADER == (
        "run\tteam\tmeasure\tfull\tleave_team_out\tunique_relevant\trank_full\trank_lto\n")
    assert lines[2] == "t1-r2\tt1\tmap_prime\t0.5833\t0.2500\t2\t1\t3\n"
    assert lines[-1] == "# map_prime: kendall_tau=0.5477 tau_ap=0.6667 largest_rank_change=2 (t1-r2)\n"


def test_prime_scorer_uses_the_products_prime_filter():
    # A repeated post counts once and an unjudged one is dropped before the measures, as evaluate does.
    score = prime_scorer(measures=("p10_prime", "map_prime"))
    result = score({"T1": {"a": 2, "b": 0}}, {"r": {"T1": ["x", "a", "a", "b"]}})
    assert result == {"r": {"p10_prime": pytest.approx(0.1), "map_prime": pytest.approx(1.0)}}

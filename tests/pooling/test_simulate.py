"""`simulate_judging` (issue 27): judging orders replayed on known qrels, on hand-made files worked by hand and on
the real ARQMath-1 Task 1 runs; no database."""
import math

import pytest

from ir.pools.adaptive import next_items
from ir.pools.simulate import budget_tau, found_curve
from tests.commands import command_output, rejected

# One topic, two runs of four answers: r1 holds the three relevant ones (grade 2, 3, 2) at its top, r2 none.
R1 = ["d1", "d2", "d3", "d4"]
R2 = ["d5", "d6", "d7", "d8"]
GRADES = {"d1": 2, "d2": 3, "d3": 2, "d4": 0, "d5": 0, "d6": 1, "d7": 0, "d8": 0}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text("".join(f"T1\t0\t{item}\t{grade}\n" for item, grade in GRADES.items()))
    for name, ranked in (("r1.tsv", R1), ("r2.tsv", R2)):
        (tmp_path / name).write_text("".join(f"T1\tQ0\t{item}\t{rank}\t{10 - rank}\t{name}\n"
                                             for rank, item in enumerate(ranked, 1)))
    return tmp_path


def simulate(files, *args):
    """The command's curves and summary lines; the worked examples have no warm-up (a campaign's 5 is the default)."""
    out, _ = command_output("simulate_judging", "--qrels", str(files / "qrels.txt"), "--warm-up", "0", *args,
                            str(files / "r1.tsv"), str(files / "r2.tsv"))
    lines = out.splitlines()
    assert lines[0] == "policy\tjudged_fraction\tfound_fraction"
    curve: dict[str, list[tuple[float, float]]] = {}
    for line in lines[1:]:
        if not line.startswith("# "):
            policy, judged, found = line.split("\t")
            curve.setdefault(policy, []).append((float(judged), float(found)))
    summary = {tuple(line[2:].split(" ")[:2]): line.split(" ")[-1] for line in lines if line.startswith("# ")}
    return curve, summary


def test_move_to_front_finds_the_relevant_run_first_and_judges_three_eighths_for_90(files):
    # Seed 1 puts r1 first in the runs' seeded order (seed 0 puts r2 first): its first item is d1. The runs are
    # named as ingest_run names them: r1.tsv is run r1.
    pool = {item: [(run, r)] for run, ranked in (("r1", R1), ("r2", R2)) for r, item in enumerate(ranked, 1)}
    assert next_items("move-to-front", pool, {}, seed=1, warm_up=0, topic_id="T1") == ["d1"]
    assert next_items("move-to-front", pool, {}, seed=0, warm_up=0, topic_id="T1") == ["d5"]
    curve, summary = simulate(files, "--depth", "4", "--policy", "move-to-front", "--seed", "1")
    # d1 d2 d3 relevant (90% of 3 is 3): found after 3 of the 8 pooled items -> 0.375.
    assert summary[("move-to-front", "judged_for_90")] == "0.3750"
    points = dict(curve["move-to-front"])
    # 20% of 8 is 1 item (floor 1.6): 1 of 3 found; 25%: 2 items, 2 of 3; 40%: 3 items (floor 3.2), all found.
    assert points[0.2] == pytest.approx(1 / 3, abs=1e-4)
    assert points[0.25] == pytest.approx(2 / 3, abs=1e-4)
    assert points[0.4] == 1.0
    assert len(curve["move-to-front"]) == 21 and points[0.0] == 0.0 and points[1.0] == 1.0


def test_relevance_level_decides_what_is_found(files):
    # At level 1, d6 (grade 1, in r2) is relevant too: 4 relevant, 90% of them is all 4; found once r2 reaches d6.
    _, summary = simulate(files, "--depth", "4", "--policy", "move-to-front", "--relevance-level", "1")
    # Seed 0, r2 first: d5 (not: r2 to the back), d1 d2 d3 (relevant), d4 (not: r1 to the back), d6: 6th of 8.
    # (Seed 1, r1 first: d1 d2 d3, d4 (not), d5 (not), r1 spent, d6: the 6th too.)
    assert summary[("move-to-front", "judged_for_90")] == "0.7500"


def test_a_shallower_pool_simulates_only_what_it_pools(files):
    # Depth 2: d1 d2 and d5 d6; relevant d1 d2, both needed. Seed 0: the tie of the Beta(1, 1) priors goes to r2:
    # d5 not relevant, r2's mean 1/3 < r1's 1/2, then d1 and d2: 3 of 4 judged. Seed 1: r1 first, 2 of 4.
    _, summary = simulate(files, "--depth", "2", "--policy", "bandit", "--policy", "random")
    assert summary[("bandit", "judged_for_90")] == "0.7500"
    assert float(summary[("random", "judged_for_90")]) in (0.5, 0.75, 1.0)
    _, summary = simulate(files, "--depth", "2", "--policy", "bandit", "--seed", "1")
    assert summary[("bandit", "judged_for_90")] == "0.5000"


def test_each_policy_has_its_curve_and_lines_and_the_budget_adds_tau(files):
    curve, summary = simulate(files, "--depth", "4", "--policy", "random", "--policy", "bandit", "--budget", "8")
    assert list(curve) == ["random", "bandit"]
    for points in curve.values():
        founds = [found for _, found in points]
        assert founds == sorted(founds)
    # Two runs and the whole pool within the budget: the same ranking.
    assert summary[("random", "tau_at_budget")] == "1.0000"
    assert summary[("bandit", "tau_at_budget")] == "1.0000"


def test_tau_at_budget_is_kendalls_tau_of_the_ndcg_prime_rankings():
    # One topic, three runs; grades d1 3, d2 1, d3 0. The whole pool's qrels rank A > B > C by nDCG'.
    runs = {"A": {"T": ["d1", "d2", "d3"]}, "B": {"T": ["d2", "d1", "d3"]}, "C": {"T": ["d3", "d2", "d1"]}}
    qrels = {"T": {"d1": 3, "d2": 1, "d3": 0}}
    # A budget of 2 judging d3 then d2: only d2 and d3 judged. A and B both put d2 first of those (nDCG' 1), C puts d3
    # first (below 1): cut ranking A = B > C. tau-b: A-C and B-C concordant, A-B tied in the cut only:
    # (2 - 0) / sqrt(3 * 2) = 0.8165.
    assert budget_tau(runs, qrels, {"T": ["d3", "d2", "d1"]}, 2) == pytest.approx(2 / math.sqrt(6))
    assert budget_tau(runs, qrels, {"T": ["d3", "d2", "d1"]}, 3) == pytest.approx(1.0)


def test_curve_is_the_mean_over_topics_with_a_relevant_item():
    qrels = {"T1": {"a": 2, "b": 0}, "T2": {"c": 0, "d": 0, "e": 2, "f": 2}, "T3": {"g": 0}}
    orders = {"T1": ["a", "b"], "T2": ["c", "d", "e", "f"], "T3": ["g"]}
    curve, for_90 = found_curve(orders, qrels, relevance_level=2)
    points = dict(curve)
    # 50%: T1 judged 1 of 2 (a: all found), T2 judged 2 of 4 (none): mean 0.5. T3 has nothing relevant: left out.
    assert points[0.5] == 0.5
    # 90% found: T1 after 1 of 2 (0.5), T2 needs both e and f: 4 of 4 (1.0); mean 0.75.
    assert for_90 == 0.75


def test_the_real_arqmath1_runs_give_every_policy_a_curve(arqmath_data):
    qrels = arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt"
    runs = [str(arqmath_data / "runs" / name) for name in ("psu-task1-auto-both-A.tsv", "ensemble-task1.tsv")]
    out, _ = command_output("simulate_judging", "--qrels", str(qrels), "--depth", "45", "--policy", "random",
                            "--policy", "move-to-front", "--policy", "bandit", "--warm-up", "5", "--budget", "40",
                            *runs)
    summary = [line.split(" ") for line in out.splitlines() if line.startswith("# ")]
    assert [(policy, name) for _, policy, name, _ in summary] == [
        (p, n) for p in ("random", "move-to-front", "bandit") for n in ("judged_for_90", "tau_at_budget")]
    for _, _, name, value in summary:
        assert 0 < float(value) <= 1 if name == "judged_for_90" else -1 <= float(value) <= 1


def test_bad_arguments_are_refused_with_a_reason(files):
    lines = rejected("simulate_judging", "--qrels", str(files / "qrels.txt"), "--depth", "0", "--policy", "bandit",
                     "--budget", "0", str(files / "r1.tsv"))
    assert any("depth must be at least 1" in line for line in lines)
    assert any("budget must be at least 1" in line for line in lines)
    (files / "bad.tsv").write_text("T1\tQ0\td1\tone\t1.0\trun\n")
    lines = rejected("simulate_judging", "--qrels", str(files / "qrels.txt"), "--depth", "3", "--policy", "bandit",
                     str(files / "bad.tsv"))
    assert any("bad.tsv" in line and "1" in line for line in lines)


def test_two_files_that_would_give_runs_one_name_are_refused(files):
    # A campaign names a run by its file name without the extension, and so does the simulator (the seeded
    # tie-break between runs reads the names): r1.tsv and r1.txt would be one run.
    (files / "r1.txt").write_text((files / "r2.tsv").read_text())
    lines = rejected("simulate_judging", "--qrels", str(files / "qrels.txt"), "--depth", "3", "--policy", "bandit",
                     str(files / "r1.tsv"), str(files / "r1.txt"))
    assert any("r1.txt" in line and "two runs would be named 'r1'" in line for line in lines)

"""`simulate_judging --llm` and `make_llm_grades` (docs/llm_calibration.md, "Replaying a budget"): people's and a
model's judgments under one budget, replayed on known qrels with a simulated model's grades."""
import numpy as np
import pytest
from scipy.stats import kendalltau

from ir.llm_simulation import make_campaign
from ir.statistics import prime_scorer
from tests.commands import command_output, rejected

CONFUSION = "0.7,0.2,0.07,0.03;0.3,0.4,0.2,0.1;0.1,0.2,0.45,0.25;0.05,0.1,0.25,0.6"
FAVOUR = "0.1,0.1,0.5,0.3;0.1,0.1,0.4,0.4;0,0,1,0;0,0,0,1"


@pytest.fixture
def collection(tmp_path):
    """A small seeded collection: 4 topics, 5 runs, the qrels grading each run's top 8."""
    campaign = make_campaign(3, topics=4, runs=5, documents=40, depth=20, pool_depth=8)
    (tmp_path / "qrels.txt").write_text("".join(f"{t} 0 {i} {campaign.qrels[t][i]}\n" for t, i in campaign.items))
    for name, per_topic in campaign.runs.items():
        (tmp_path / f"{name}.tsv").write_text("".join(f"{t}\tQ0\t{i}\t{r}\t{100 - r}\t{name}\n"
                                                      for t, items in per_topic.items()
                                                      for r, i in enumerate(items, 1)))
    return tmp_path, campaign


def run_files(path):
    return sorted(str(p) for p in path.glob("run*.tsv"))


def make_grades(path, *args):
    out, _ = command_output("make_llm_grades", "--qrels", str(path / "qrels.txt"), "--confusion", CONFUSION, *args,
                            *run_files(path))
    return out


def model_qrels(text):
    """topic -> item -> the model's grade, and (topic, item) -> its probabilities, of make_llm_grades' output."""
    grades, probabilities = {}, {}
    for line in text.splitlines():
        topic, _, item, grade, *rest = line.split("\t")
        grades.setdefault(topic, {})[item] = int(grade)
        probabilities[topic, item] = [float(p) for p in rest]
    return grades, probabilities


def test_make_llm_grades_is_reproducible_by_seed_and_writes_probabilities_summing_to_one(collection):
    path, campaign = collection
    first, again, other = (make_grades(path, "--seed", seed) for seed in ("7", "7", "8"))
    assert first == again != other
    grades, probabilities = model_qrels(first)
    assert len(probabilities) == len(campaign.items)
    for (topic, item), row in probabilities.items():
        assert len(row) == 4 and abs(sum(row) - 1) < 1e-5
        assert grades[topic][item] == int(np.argmax(row))  # the grade is the most probable one


def test_the_favour_bias_raises_the_favoured_runs_llm_only_scores(collection):
    path, campaign = collection
    plain, _ = model_qrels(make_grades(path, "--seed", "7"))
    biased, _ = model_qrels(make_grades(path, "--seed", "7", "--favour", "run02", "--favour-depth", "8",
                                        "--favour-confusion", FAVOUR))
    score = prime_scorer(relevance_level=2)
    before, after = score(plain, campaign.runs), score(biased, campaign.runs)
    assert after["run02"]["map_prime"] > before["run02"]["map_prime"] + 0.05
    gain = {run: after[run]["map_prime"] - before[run]["map_prime"] for run in campaign.runs}
    assert max(gain, key=gain.get) == "run02"


def test_the_replay_prints_llm_only_then_each_policy_and_share_recomputed_by_definition(collection):
    path, campaign = collection
    (path / "llm.txt").write_text(make_grades(path, "--seed", "7", "--favour", "run02", "--favour-depth", "8",
                                              "--favour-confusion", FAVOUR))
    out, _ = command_output("simulate_judging", "--qrels", str(path / "qrels.txt"), "--llm", str(path / "llm.txt"),
                            "--policy", "uncertain", "--policy", "random", "--budget-share", "0.25,1",
                            *run_files(path))
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[0] == ["policy", "share", "judged", "tau_b", "tau_ap", "kappa", "coverage"]
    quarter, every = str(round(0.25 * len(campaign.items))), str(len(campaign.items))
    assert [row[:3] for row in lines[1:]] == [["llm-only", "0", "0"], ["uncertain", "0.25", quarter],
                                              ["uncertain", "1", every], ["random", "0.25", quarter],
                                              ["random", "1", every]]
    # llm-only: the model's own grades against the full qrels, by the plain definitions
    model, _ = model_qrels((path / "llm.txt").read_text())
    pairs = [(model[t][i], campaign.qrels[t][i]) for t, i in campaign.items]
    observed = np.mean([a == b for a, b in pairs])
    expected = sum(np.mean([a == g for a, _ in pairs]) * np.mean([b == g for _, b in pairs]) for g in range(4))
    assert float(lines[1][5]) == pytest.approx((observed - expected) / (1 - expected), abs=1e-4)
    score = prime_scorer(relevance_level=2)
    full, llm = score(campaign.qrels, campaign.runs), score(model, campaign.runs)
    names = list(campaign.runs)
    tau = kendalltau([full[r]["map_prime"] for r in names], [llm[r]["map_prime"] for r in names]).statistic
    assert float(lines[1][3]) == pytest.approx(tau, abs=1e-4)
    # every item judged by people: the hybrid qrels are the full qrels, and every interval is a point on the score
    for row in (lines[3], lines[5]):
        assert row[3:] == ["1.0000", "1.0000", "1.0000", "1.0000"]
    for row in lines[1:]:
        assert all(-1 <= float(value) <= 1 for value in row[3:])


def test_bad_policies_shares_and_model_files_are_refused_with_their_reason(collection):
    path, _ = collection
    (path / "llm.txt").write_text(make_grades(path, "--seed", "7"))
    base = ("simulate_judging", "--qrels", str(path / "qrels.txt"), "--llm", str(path / "llm.txt"))
    lines = rejected(*base, "--policy", "oracle", "--budget-share", "0,1.5", *run_files(path))
    assert any("unknown policy 'oracle'" in line for line in lines)
    assert any("share '0' is not a number in (0, 1]" in line for line in lines)
    assert any("share '1.5' is not a number in (0, 1]" in line for line in lines)
    text = (path / "llm.txt").read_text().splitlines()
    text[2] = text[2].rsplit("\t", 1)[0] + "\t0.9"
    (path / "llm.txt").write_text("\n".join(text) + "\n")
    lines = rejected(*base, "--policy", "uncertain", "--budget-share", "0.2", *run_files(path))
    assert any("llm.txt" in line and "3" in line and "sum to" in line for line in lines)
    lines = rejected("make_llm_grades", "--qrels", str(path / "qrels.txt"), "--seed", "1", "--confusion",
                     "0.7,0.2,0.1,0;0.3,0.3,0.3,0.3;0,0,1,0;0,0,0,1", *run_files(path))
    assert any("row 1 (true grade 1) sums to 1.2, not 1" in line for line in lines)
    lines = rejected("simulate_judging", "--qrels", str(path / "qrels.txt"), "--depth", "5", "--policy", "uncertain",
                     *run_files(path))
    assert any("unknown policy 'uncertain'" in line for line in lines)

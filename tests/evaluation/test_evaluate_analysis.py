"""`evaluate ... --significance FILE`, `--ci` and `--topic-info CSV --by COLUMN`: the rows the issue gives, their
values from the per-topic scores `evaluate` itself reports (scipy for the t-test), refusals that write nothing."""
import math
import warnings

import pytest
from scipy import stats

from ir.statistics import SIGNIFICANCE_HEADER
from tests.commands import command_output, rejected
from tests.evaluation.test_analysis_significance import scipy_wilcoxon

# Three topics of ARQMath-3 (their categories are in tests/data/arqmath/topics/...head12.csv: A.301 and A.303
# Proof, A.302 Concept); hand-made qrels and runs.
QRELS = ["A.301\t0\tp1\t3", "A.301\t0\tp2\t0", "A.301\t0\tp3\t2", "A.302\t0\tq1\t2", "A.302\t0\tq2\t1",
         "A.303\t0\tr1\t3", "A.303\t0\tr2\t2", "A.303\t0\tr3\t0"]
RUNS = {
    "good.tsv": [("A.301", "p1"), ("A.301", "p3"), ("A.302", "q1"), ("A.303", "r1"), ("A.303", "r2")],
    "mixed.tsv": [("A.301", "p2"), ("A.301", "p1"), ("A.302", "q2"), ("A.302", "q1"), ("A.303", "r3"),
                  ("A.303", "r2")],
    "weak.tsv": [("A.301", "p2"), ("A.303", "r3")],  # nothing for A.302: it counts 0 there
}
MEASURES = ("ndcg_prime", "map_prime", "p10_prime")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text("".join(line + "\n" for line in QRELS))
    for name, rows in RUNS.items():
        lines, rank = [], {}
        for topic, post in rows:
            rank[topic] = rank.get(topic, 0) + 1
            lines.append(f"{topic}\t{post}\t{rank[topic]}\t{10 - rank[topic]}\trun\n")
        (tmp_path / name).write_text("".join(lines))
    return tmp_path


def evaluate(files, *args):
    return command_output("evaluate", "--qrels", str(files / "qrels.txt"), *args,
                          *[str(files / name) for name in RUNS])[0]


def per_topic(out):
    """run -> measure -> topic -> value, from `--per-topic` rows."""
    found: dict = {}
    for line in out.splitlines():
        run, measure, topic, value = line.split("\t")
        if topic != "all":
            found.setdefault(run, {}).setdefault(measure, {})[topic] = float(value)
    return found


def test_significance_rows_pair_every_run_in_order_with_scipys_t_test(files, db):
    out = evaluate(files, "--per-topic", "--significance", str(files / "sig.tsv"), "--permutations", "2000",
                   "--measures", "RR")
    lines = (files / "sig.tsv").read_text().splitlines(keepends=True)
    assert lines[0] == SIGNIFICANCE_HEADER
    rows = [line.rstrip("\n").split("\t") for line in lines[1:]]
    pairs = [("good.tsv", "mixed.tsv"), ("good.tsv", "weak.tsv"), ("mixed.tsv", "weak.tsv")]
    assert [(r[0], r[1], r[2]) for r in rows] == [(a, b, m) for m in (*MEASURES, "RR") for a, b in pairs]
    values = per_topic(out)
    topics = ["A.301", "A.302", "A.303"]
    for run_a, run_b, measure, diff, p_ttest, p_random, ttest_holm, random_holm, p_wilcoxon, wilcoxon_holm in rows:
        a = [values[run_a][measure].get(t, 0.0) for t in topics]
        b = [values[run_b][measure].get(t, 0.0) for t in topics]
        assert float(diff) == pytest.approx(sum(x - y for x, y in zip(a, b, strict=True)) / 3, abs=5e-5)
        with warnings.catch_warnings():  # nearly identical runs: scipy warns of precision, and so does our side
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = stats.ttest_rel(a, b).pvalue
            expected_wilcoxon = scipy_wilcoxon(a, b)
        assert float(p_ttest) == pytest.approx(1.0 if math.isnan(expected) else expected, rel=1e-3)
        assert 0 < float(p_random) <= 1 and float(ttest_holm) >= float(p_ttest)
        assert float(random_holm) >= float(p_random)
        assert float(p_wilcoxon) == pytest.approx(1.0 if math.isnan(expected_wilcoxon) else expected_wilcoxon, rel=1e-3)
        assert float(wilcoxon_holm) >= float(p_wilcoxon)


def test_a_baseline_is_compared_with_every_other_run(files, db):
    evaluate(files, "--significance", str(files / "sig.tsv"), "--baseline", "weak.tsv", "--seed", "3")
    rows = [line.split("\t")[:3] for line in (files / "sig.tsv").read_text().splitlines()[1:]]
    assert rows == [[run, "weak.tsv", m] for m in MEASURES for run in ("good.tsv", "mixed.tsv")]


def test_the_seed_reproduces_the_randomization_test(files, db):
    evaluate(files, "--significance", str(files / "one.tsv"), "--seed", "7", "--permutations", "500")
    evaluate(files, "--significance", str(files / "two.tsv"), "--seed", "7", "--permutations", "500")
    assert (files / "one.tsv").read_text() == (files / "two.tsv").read_text()


@pytest.mark.parametrize("args, message", [
    (["--significance", "{out}", "--baseline", "nope.tsv"], "the baseline nope.tsv is not one of the runs"),
    (["--significance", "{out}", "--permutations", "0"], "at least 1 and at most 100,000, not 0"),
    (["--significance", "{out}", "--permutations", "10000000"], "at least 1 and at most 100,000, not 10,000,000"),
    (["--permutations", "10"], "--permutations and --baseline go with --significance FILE"),
    (["--by", "Category"], "--by COLUMN needs --topic-info CSV"),
    (["--topic-info", "{info}"], "--topic-info goes with --by COLUMN"),
    (["--topic-info", "{info}", "--by", "Colour"], "no column Colour in the topic information (columns: AssessorId"),
])
def test_refused_options_write_nothing(files, db, arqmath_data, args, message):
    paths = {"out": str(files / "sig.tsv"),
             "info": str(arqmath_data / "topics" / "Task1_ARQMath3_Topic_Information.head12.csv")}
    lines = rejected("evaluate", "--qrels", str(files / "qrels.txt"), *[a.format(**paths) for a in args],
                     *[str(files / name) for name in RUNS])
    assert any(message in line for line in lines), lines
    assert not (files / "sig.tsv").exists() and not (files / "sig.tsv.partial").exists()


def test_ci_rows_bound_each_runs_mean(files, db):
    out = evaluate(files, "--ci")
    means = {(r, m): float(v) for r, m, t, v in (line.split("\t") for line in out.splitlines())
             if t == "all" and not m.endswith(("_ci_low", "_ci_high"))}
    for run in RUNS:
        for measure in MEASURES:
            low = float(next(line for line in out.splitlines()
                             if line.startswith(f"{run}\t{measure}_ci_low\tall\t")).split("\t")[3])
            high = float(next(line for line in out.splitlines()
                              if line.startswith(f"{run}\t{measure}_ci_high\tall\t")).split("\t")[3])
            # weak.tsv's mean is over the two topics it has a judged item for; the interval over all three.
            if run != "weak.tsv":
                assert low <= means[(run, measure)] <= high


def test_category_rows_are_means_over_each_groups_topics(files, db, arqmath_data):
    info = arqmath_data / "topics" / "Task1_ARQMath3_Topic_Information.head12.csv"
    out = evaluate(files, "--per-topic", "--topic-info", str(info), "--by", "Category")
    values = per_topic(out)
    groups = {"Concept": ["A.302"], "Proof": ["A.301", "A.303"]}  # the file's other categories have no qrels here
    rows = [line.split("\t") for line in out.splitlines() if "\tCategory=" in line]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (run, m, f"Category={g}") for run in RUNS for m in MEASURES for g in groups]
    for run, measure, group, mean in rows:
        topics = groups[group.removeprefix("Category=")]
        expected = sum(values[run][measure].get(t, 0.0) for t in topics) / len(topics)
        assert float(mean) == pytest.approx(expected, abs=5e-5)

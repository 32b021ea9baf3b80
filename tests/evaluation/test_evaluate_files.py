"""`evaluate --qrels FILE RUN...`: the real ARQMath-1 runs as regression cases, formula indexes, rejected input."""
from pathlib import Path

import pytest

from tests.commands import command_output, rejected

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "evaluation"
INDEX_HEADER = "id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n"


def write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_real_task1_runs_score_as_checked_in(arqmath_data):
    # Our own values for two real ARQMath-1 runs against the official 2020 qrels, per topic and mean: a change in
    # the filter, the ordering or the measures shows here. The files are cut to the topics A.1-A.5
    # (tests/data/arqmath/README.md); each per-topic line is the one the full files gave, only the means differ.
    out, _err = command_output("evaluate", "--per-topic", "--qrels",
                               str(arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt"),
                               str(arqmath_data / "runs" / "psu-task1-auto-both-A.tsv"),
                               str(arqmath_data / "runs" / "ensemble-task1.tsv"))
    assert out == (GOLDEN / "arqmath1-task1.tsv").read_text()
    assert "psu-task1-auto-both-A.tsv\tndcg_prime\tall\t0.2789\n" in out
    assert "ensemble-task1.tsv\tp10_prime\tall\t0.1500\n" in out


def test_real_task2_run_scores_as_checked_in(arqmath_data):
    # The 2020 Task 2 qrels are by formula id: without a formula index each formula is its own visual id.
    out, _err = command_output("evaluate", "--per-topic", "--qrels",
                               str(arqmath_data / "qrels" / "qrels.arqmath-2020-task2.txt"),
                               str(arqmath_data / "runs" / "ensemble-task2.tsv"))
    assert out == (GOLDEN / "arqmath1-task2.tsv").read_text()


def test_task2_runs_are_scored_by_visual_id_through_the_formula_index(tmp_path, db):
    index = write(tmp_path / "index.tsv", [INDEX_HEADER.strip(),
                                           "1\t10\t1\tanswer\t100\tx", "2\t20\t2\tanswer\t100\tx",
                                           "3\t30\t3\tanswer\t300\ty", "4\t40\t4\tanswer\t400\tz"])
    qrels = write(tmp_path / "qrels.txt", ["B.1\t0\t100\t3", "B.1\t0\t300\t2", "B.1\t0\t400\t0"])
    # Formulas 1 and 2 are one visual id: only the better-scored one counts; 9 is in no index (passed over).
    run = write(tmp_path / "run.tsv", ["B.1\t2\t20\t1\t0.9\tt", "B.1\t9\t90\t2\t0.85\tt", "B.1\t1\t10\t3\t0.8\tt",
                                       "B.1\t4\t40\t4\t0.7\tt", "B.1\t3\t30\t5\t0.6\tt"])
    out, _err = command_output("evaluate", "--per-topic", "--qrels", qrels, "--formula-index", index, run)
    lines = out.splitlines()
    # Prime list: 100, 400, 300 -> AP' (grade >= 2: 100 and 300) = (1 + 2/3) / 2.
    assert "run.tsv\tmap_prime\tB.1\t0.8333" in lines
    assert "run.tsv\tp10_prime\tB.1\t0.2000" in lines
    assert "run.tsv\tunjudged_10\tB.1\t0.0000" in lines
    # Without the index, formula ids are not the qrels' visual ids: nothing is judged.
    out, _err = command_output("evaluate", "--task", "formulas", "--qrels", qrels, run)
    assert "run.tsv\tndcg_prime\tall\tn/a" in out.splitlines()


def test_all_topics_averages_over_every_qrels_topic(tmp_path, db):
    qrels = write(tmp_path / "qrels.txt", ["A.1\t0\t1\t2", "A.2\t0\t2\t2"])
    run = write(tmp_path / "run.tsv", ["A.1\t1\t1\t1.0\tt"])
    default, _ = command_output("evaluate", "--qrels", qrels, run)
    every, _ = command_output("evaluate", "--all-topics", "--qrels", qrels, run)
    assert "run.tsv\tmap_prime\tall\t1.0000" in default.splitlines()
    assert "run.tsv\tmap_prime\tall\t0.5000" in every.splitlines()


def test_trec_runs_with_repeated_posts_are_scored_not_rejected(tmp_path, db):
    # Ingest refuses an item twice; evaluation keeps the first, as the official script does.
    qrels = write(tmp_path / "qrels.txt", ["A.1\t0\t1\t0", "A.1\t0\t2\t3"])
    run = write(tmp_path / "run.tsv", ["A.1\tQ0\t1\t1\t2.0\tt", "A.1\tQ0\t2\t2\t1.0\tt", "A.1\tQ0\t1\t3\t0.5\tt"])
    out, _ = command_output("evaluate", "--qrels", qrels, run)
    assert "run.tsv\tmap_prime\tall\t0.5000" in out.splitlines()


def test_bad_files_are_rejected_with_file_and_line(tmp_path, db):
    qrels = write(tmp_path / "qrels.txt", ["A.1\t0\t1\t2", "A.1\t0\t2\thigh"])
    run = write(tmp_path / "run.tsv", ["A.1\t1\t1\t1.0\tt", "A.1\t2\tfirst\t0.5\tt"])
    lines = rejected("evaluate", "--qrels", qrels, run)
    assert "qrels.txt:line 2: grade 'high' is not an integer" in lines
    assert "run.tsv:line 2: rank 'first' is not a whole number >= 1" in lines


@pytest.mark.parametrize("args, message", [
    ([], "give either --qrels FILE with run files, or --campaign NAME"),
    (["--qrels", "{qrels}"], "no run files given"),
    (["--qrels", "{qrels}", "{missing}"], "No such file or directory"),
    (["--qrels", "{qrels}", "--formula-index", "{index}", "{run}"], "a formula index is for formula runs"),
    (["--qrels", "{qrels}", "{run}", "{run}"], "two runs have this file name"),
    (["--campaign", "nope"], "no campaign named 'nope'"),
    (["--qrels", "{qrels}", "--formula-index", "{run}"], "none of the files after it has a formula index header"),
])
def test_wrong_arguments_are_refused_with_a_reason(tmp_path, db, args, message):
    paths = {"qrels": write(tmp_path / "q.txt", ["A.1\t0\t1\t2"]),
             "run": write(tmp_path / "r.tsv", ["A.1\t1\t1\t1\tt"]),
             "missing": str(tmp_path / "missing.tsv"), "index": write(tmp_path / "i.tsv", [INDEX_HEADER.strip()])}
    lines = rejected("evaluate", *[arg.format(**paths) for arg in args])
    assert any(message in line for line in lines), lines


def test_a_problem_in_one_run_file_rejects_all_with_the_ingests_line_numbered_messages(tmp_path, db):
    qrels = write(tmp_path / "qrels.txt", ["A.1\t0\t1\t2", "A.1\t0\t2\t0"])
    good = write(tmp_path / "good.tsv", ["A.1\t1\t1\t2.0\trun", "A.1\t2\t2\t1.0\trun"])
    bad = write(tmp_path / "bad.tsv", ["A.1\t1\t1\t2.0\trun", "A.1\t2\t2\tinf\trun", "A.1\t3\t0\t1.0\trun"])
    assert rejected("evaluate", "--qrels", qrels, good, bad) == [
        "bad.tsv:line 2: score 'inf' is not a finite number", "bad.tsv:line 3: rank '0' is not a whole number >= 1"]

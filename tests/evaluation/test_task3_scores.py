"""ARQMath-3 Task 3 AR and P@1 on the official files: the organizers' answer-id map and complete qrels (every line,
tests/data/arqmath/task3/README.md) give every run the values the organizers' manual scoring script printed; Task 1
runs get AR and P@1 of their first result; input problems are refused with their lines."""
import csv
from pathlib import Path

import pytest

from evaluation.answer_files import evaluate_answer_files
from ir.problems import InputError
from tests.commands import command_output, rejected

TASK3 = Path(__file__).resolve().parents[1] / "data" / "arqmath" / "task3"
QRELS, MAP = TASK3 / "qrels.arqmath-2022-task3-official.txt", TASK3 / "teams_document_id.tsv"
RUN = TASK3 / "synthetic-task3-generate-A.tsv"


def tsv(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.reader(f, delimiter="\t"))


def means(out: str) -> dict[tuple[str, str], float]:
    return {(run, measure): float(value) for run, measure, topic, value in
            (line.split("\t") for line in out.splitlines() if not line.startswith("#")) if topic == "all"}


def by_hand(all_topics: bool) -> dict[str, tuple[float, float]]:
    """AR and P@1 straight from the two files: each run's answer id per topic looked up in the qrels, SF (5) and
    DK (6) as 0; over the qrels topics it answered, or over all 78."""
    grades = {(topic, doc): int(grade) for topic, _zero, doc, grade in tsv(QRELS)}
    topics = {topic for topic, _doc in grades}
    answered: dict[str, dict[str, str]] = {}
    for run, topic, doc in tsv(MAP):
        answered.setdefault(run, {})[topic] = doc
    found = {}
    for run, docs in answered.items():
        values = [grades[(t, docs[t])] if grades[(t, docs[t])] < 4 else 0 for t in topics if t in docs]
        count = len(topics) if all_topics else len(values)
        found[run] = (sum(values) / count, sum(v >= 2 for v in values) / count)
    return found


def test_every_run_of_the_map_scores_as_the_organizers_script_printed():
    # organizers-manual-scores.tsv: the output of evaluate_task3_results_manual.py (Witiko/arqmath3-openqa-tools
    # @80bd2b9) on these two files, one run at a time (how it was run: the README beside it).
    rows = tsv(TASK3 / "organizers-manual-scores.tsv")[1:]
    organizers = {run: (float(ar), float(p1), int(n)) for run, ar, p1, n in rows}
    assert len(organizers) == 14
    out, _err = command_output("evaluate", "--qrels", str(QRELS), "--answer-ids", str(MAP))
    scores = means(out)
    assert {run for run, _m in scores} == set(organizers)
    hand = by_hand(all_topics=False)
    for run, (ar, p1, _n) in organizers.items():
        assert round(scores[(run, "ar")], 3) == ar, run
        assert round(scores[(run, "p1")], 3) == p1, run
        assert scores[(run, "ar")] == pytest.approx(hand[run][0], abs=5e-5)
        assert scores[(run, "p1")] == pytest.approx(hand[run][1], abs=5e-5)
    assert scores[("Baseline2022-task3-GPT3-auto-both-generate-P", "ar")] == 1.3462
    assert organizers["TU_DBS-task3-amps3_se1_hints-auto-both-generate-A"][2] == 77  # no answer to A.327


def test_all_topics_counts_a_topic_the_run_did_not_answer_as_zero():
    out, _err = command_output("evaluate", "--all-topics", "--per-topic", "--qrels", str(QRELS), "--answer-ids",
                               str(MAP))
    scores, hand = means(out), by_hand(all_topics=True)
    run = "TU_DBS-task3-amps3_se1_hints-auto-both-generate-A"
    assert scores[(run, "ar")] == pytest.approx(hand[run][0], abs=5e-5) == 0.3205  # 25 / 78, not 25 / 77
    assert f"{run}\tar\tA.327\t0.0000" in out.splitlines()
    assert sum(1 for line in out.splitlines() if line.startswith(f"{run}\tar\t")) == 79  # 78 topics and the mean


def test_sf_and_dk_answers_count_zero_and_a_run_file_is_named_by_its_run_id(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("A.1\t0\td_1\t3\nA.1\t0\td_2\t5\nA.2\t0\td_3\t6\nA.2\t0\td_4\t2\nA.3\t0\td_5\t1\n")
    ids = tmp_path / "map.tsv"
    ids.write_text("team-task3-x-auto-both-generate-A\tA.1\td_2\nteam-task3-x-auto-both-generate-A\tA.2\td_3\n"
                   "other-task3-y-auto-both-extract-A\tA.1\td_1\nother-task3-y-auto-both-extract-A\tA.2\td_4\n")
    run = tmp_path / "whatever.tsv"
    run.write_text("A.1\t1\t1.0\tteam-task3-x-auto-both-generate-A\tsrc\tan answer\n"
                   "A.2\t1\t1.0\tteam-task3-x-auto-both-generate-A\tsrc\tanother answer\n")
    result = evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids, run_paths=[run])
    [scores] = result.runs
    assert scores.name == "team-task3-x-auto-both-generate-A"
    assert scores.means["ar"] == 0.0 and scores.means["p1"] == 0.0  # SF and DK: 0, not left out
    assert scores.topics == 2
    # The other run of the map: 3 and 2 -> AR 2.5, P@1 1; no texts without run files, so no LO.
    other = evaluate_answer_files(qrels_path=qrels, answer_ids_path=ids).runs[1]
    assert (other.means["ar"], other.means["p1"], "lo" in other.means) == (2.5, 1.0, False)


PICKED = (("A.301", "d_1"), ("A.302", "d_953"), ("A.305", "d_891"), ("A.330", "d_840"))  # answer ids of the qrels


def test_the_synthetic_run_is_found_in_the_map_by_its_file_name_when_its_run_id_is_not(tmp_path):
    ids = tmp_path / "map.tsv"
    ids.write_text("".join(f"synthetic-task3-generate-A\t{t}\t{d}\n"
                           for t, d in PICKED))
    renamed = tmp_path / "synthetic-task3-generate-A.tsv"
    renamed.write_bytes(RUN.read_bytes().replace(b"\tsynthetic-task3-generate-A\t", b"\tGPT\t"))
    [scores] = evaluate_answer_files(qrels_path=QRELS, answer_ids_path=ids, run_paths=[renamed]).runs
    grades = {(t, d): int(g) for t, _z, d, g in tsv(QRELS)}
    assert [grades[key] for key in PICKED] == [3, 5, 3, 6]  # SF on A.302, DK on A.330: 0
    assert scores.name == "synthetic-task3-generate-A"
    assert (scores.means["ar"], scores.means["p1"]) == (1.5, 0.5)


def test_bad_map_and_runs_are_refused_with_their_lines(tmp_path):
    ids = tmp_path / "map.tsv"
    ids.write_text("r\tA.1\td_1\nr\tA.1\td_2\nr\tA.2\nr\t\td_3\n")
    assert rejected("evaluate", "--qrels", str(QRELS), "--answer-ids", str(ids)) == [
        "map.tsv:line 2: run 'r' has a second answer id for topic 'A.1' (the first is on line 1)",
        "map.tsv:line 3: expected 3 tab-separated columns (run topic answer_id), found 2",
        "map.tsv:line 4: empty topic"]
    good = tmp_path / "good.tsv"
    good.write_text("r\tA.1\td_1\n")
    run = tmp_path / "run.tsv"
    run.write_text("A.1\t1\t1\tr\ts\tone\nA.9\t1\t1\tr\ts\ttwo\n")
    stranger = tmp_path / "stranger.tsv"
    stranger.write_text("A.1\t1\t1\tnobody\ts\tone\n")
    with pytest.raises(InputError) as info:
        evaluate_answer_files(qrels_path=QRELS, answer_ids_path=good, run_paths=[run, stranger])
    assert info.value.messages() == [
        "run.tsv:line 2: the answer-id map has no answer of run 'r' to topic 'A.9'",
        "stranger.tsv: neither its run id 'nobody' nor its file name 'stranger' is a run of the answer-id map"]
    assert rejected("evaluate", "--answer-ids", str(good)) == [
        "Task 3 runs: give --qrels FILE and --answer-ids MAP (with --tokenizer, --team-map and --bertscore-model as "
        "needed), one --qrels, no --campaign, --task or --formula-index"]
    assert rejected("evaluate", "--qrels", str(QRELS), "--answer-ids", str(good), "--tokenizer", "t.json") == [
        "LO and CS compare answer texts: give the run files (--tokenizer and --bertscore-model need them)"]


def test_task1_runs_get_ar_and_p1_of_their_first_result(arqmath_data):
    qrels = arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt"
    run = arqmath_data / "runs" / "ensemble-task1.tsv"
    out, _err = command_output("evaluate", "--ar-p1", "--per-topic", "--qrels", str(qrels), str(run))
    # By hand: per topic the row with the highest score (ties: the greater post id), its grade or 0 if unjudged,
    # over the qrels topics the run has (A.2 has no qrels).
    grades = {(t, d): int(g) for t, _z, d, g in (line.split() for line in qrels.read_text().splitlines())}
    best: dict[str, tuple[float, str]] = {}
    for topic, post, _rank, score, _tag in tsv(run):
        best[topic] = max(best.get(topic, (float("-inf"), "")), (float(score), post))
    values = [grades.get((t, post), 0) for t, (_s, post) in best.items() if t in {t for t, _d in grades}]
    assert len(values) == 4  # A.3's first post is not judged: 0 (the organizers' Task 1 script leaves it out)
    scores = means(out)
    assert scores[("ensemble-task1.tsv", "ar")] == pytest.approx(sum(values) / 4, abs=5e-5)
    assert scores[("ensemble-task1.tsv", "p1")] == pytest.approx(sum(v >= 2 for v in values) / 4, abs=5e-5)
    assert "ensemble-task1.tsv\tar\tA.3\t0.0000" in out.splitlines()
    plain, _err = command_output("evaluate", "--qrels", str(qrels), str(run))
    assert "\tar\t" not in plain  # only when asked for

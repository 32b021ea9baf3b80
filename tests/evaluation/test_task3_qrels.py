"""Qrels with SF as 5 and DK as 6 (the organizers' complete Task 3 qrels), read in one place: the Task 3 measures
count them 0, the prime measures and the gold qrels of a training round leave them out."""
import io
from collections import Counter
from pathlib import Path

import pytest

from agreement import rounds
from ir.formats.qrels import qrels_by_topic, read_qrels
from ir.problems import Problems
from tests.commands import command_output

QRELS = Path(__file__).resolve().parents[1] / "data" / "arqmath" / "task3" / "qrels.arqmath-2022-task3-official.txt"


def test_the_complete_task3_qrels_mark_sf_and_dk():
    problems = Problems()
    with QRELS.open("rb") as stream:
        records = list(read_qrels(stream, problems))
    assert not problems
    assert len(records) == 792 and records[-1].line == 792
    assert Counter(r.grade for r in records) == {0: 430, 1: 122, 2: 91, 3: 79, 5: 67, 6: 3}
    assert Counter(r.mark for r in records) == {None: 722, "SF": 67, "DK": 3}
    with QRELS.open("rb") as stream:
        left_out = qrels_by_topic(stream, Problems())
    with QRELS.open("rb") as stream:
        as_zero = qrels_by_topic(stream, Problems(), sf_dk=0)
    assert sum(map(len, left_out.values())) == 722 and sum(map(len, as_zero.values())) == 792
    assert len(as_zero) == 78
    sf = next(r for r in records if r.mark == "SF")
    assert sf.item_id not in left_out.get(sf.topic_id, {}) and as_zero[sf.topic_id][sf.item_id] == 0


def test_prime_measures_take_sf_and_dk_as_unjudged_not_as_grades_5_and_6(tmp_path):
    complete = tmp_path / "complete.txt"
    complete.write_text("A.1\t0\t1\t5\nA.1\t0\t2\t2\nA.1\t0\t3\t6\n")
    plain = tmp_path / "plain.txt"
    plain.write_text("A.1\t0\t2\t2\n")
    run = tmp_path / "run.tsv"
    run.write_text("A.1\t1\t1\t3.0\tt\nA.1\t3\t2\t2.0\tt\nA.1\t2\t3\t1.0\tt\n")
    out, _err = command_output("evaluate", "--ar-p1", "--qrels", str(complete), str(run))
    # Posts 1 and 3 (SF, DK) are unjudged: the same as the qrels without them; the first result (1) scores AR 0.
    assert out == command_output("evaluate", "--ar-p1", "--qrels", str(plain), str(run))[0]
    assert "run.tsv\tndcg_prime\tall\t1.0000" in out and "run.tsv\tunjudged_10\tall\t0.6667" in out
    assert "run.tsv\tar\tall\t0.0000" in out


@pytest.mark.django_db
def test_a_gold_qrels_leaves_sf_and_dk_out(answers, ada):
    gold = b"A.1\t0\t10\t3\nA.1\t0\t11\t5\nA.1\t0\t12\t6\nA.1\t0\t13\t0\n"
    result = rounds.training_round_create(campaign=answers, topic_ids=["A.1"], assessors=[ada], gold=io.BytesIO(gold))
    assert (result.gold, result.gold_other_topics) == (2, 0)

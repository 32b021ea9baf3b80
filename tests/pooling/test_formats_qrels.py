"""TREC qrels reader on the six real ARQMath qrels files (cut to a few topics) and on malformed qrels."""
from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest

from ir.formats.qrels import read_qrels
from ir.problems import Problems

QRELS = Path(__file__).resolve().parents[1] / "data" / "arqmath" / "qrels"


def qrels(data: bytes) -> tuple[list, Problems]:
    problems = Problems()
    return list(read_qrels(io.BytesIO(data), problems)), problems


@pytest.mark.parametrize(
    ("name", "rows", "topics"),
    [
        # The real files cut to a few topics (tests/data/arqmath/README.md): every row of those topics, as it was.
        ("qrels.arqmath-2020-task1.txt", 1941, 4),
        ("qrels.arqmath-2021-task1-official.txt", 1264, 3),
        ("qrels.arqmath-2022-task1-official.txt", 1172, 3),
        # The two task 2 files below end without a final line break.
        ("qrels.arqmath-2020-task2.txt", 524, 3),
        ("qrels.arqmath-2021-task2-official.txt", 451, 3),
        ("qrels.arqmath-2022-task2-official.v3.txt", 414, 3),
    ],
)
def test_real_qrels_files_are_read_whole(name, rows, topics):
    with (QRELS / name).open("rb") as stream:
        problems = Problems()
        records = list(read_qrels(stream, problems))

    assert not problems, problems.messages()
    assert len(records) == rows
    assert len({r.topic_id for r in records}) == topics
    assert set(Counter(r.grade for r in records)) == {0, 1, 2, 3}
    assert records[-1].line == rows


def test_first_rows_of_2022_task1_keep_string_ids():
    with (QRELS / "qrels.arqmath-2022-task1-official.txt").open("rb") as stream:
        first, second = list(read_qrels(stream, Problems()))[:2]

    assert tuple(first) == (1, "A.301", "2329004", 2)
    assert tuple(second) == (2, "A.301", "2649752", 1)


def test_bom_lf_and_space_separated_qrels_read_the_same(tmp_path):
    original = (QRELS / "qrels.arqmath-2021-task2-official.txt").read_bytes()
    variant = tmp_path / "qrels.txt"
    variant.write_bytes(b"\xef\xbb\xbf" + original.replace(b"\r\n", b"\n").replace(b"\t", b"  "))

    with (QRELS / "qrels.arqmath-2021-task2-official.txt").open("rb") as plain, variant.open("rb") as other:
        problems = Problems()
        assert list(read_qrels(other, problems)) == list(read_qrels(plain, Problems()))
    assert not problems


def test_blank_lines_are_skipped_and_ids_stay_strings():
    records, problems = qrels(b"\nA.1 0 007 3\n\n B.2\t0\t12\t-1 \n")
    assert not problems
    assert [tuple(r) for r in records] == [(2, "A.1", "007", 3), (4, "B.2", "12", -1)]


MALFORMED = [
    (b"A.1\t0\t1\t2\nA.1\t0\t2\n", 2, "expected 4 columns (topic iteration doc_id grade), found 3"),
    (b"A.1 0 1 2 extra\n", 1, "expected 4 columns (topic iteration doc_id grade), found 5"),
    (b"A.1\t0\t1\thigh\n", 1, "grade 'high' is not an integer"),
    (b"A.1\t0\t1\t1.5\n", 1, "grade '1.5' is not an integer"),
    (b"A.1\t0\t\t2\n", 1, "empty doc id"),
    (b"\t0\t5\t2\n", 1, "empty topic id"),
    (b"A.1\t0\t5\t2\nA.2\t0\t5\t1\nA.1\t0\t5\t0\n", 3, "doc '5' judged twice for topic 'A.1' (first on line 1)"),
    (b"A.1\t0\t5\t2\nA.1\t0\t\xe96\t1\n", 2, "not UTF-8 (byte 7 of the line)"),
]


@pytest.mark.parametrize(("data", "line", "message"), MALFORMED)
def test_malformed_qrels_report_line_and_message(data, line, message):
    records, problems = qrels(data)

    assert [(p.line, p.message) for p in problems.items] == [(line, message)]
    assert all(r.line != line for r in records)

"""The run reader on the real ARQMath runs and on broken files: every problem with its line."""
import io
import itertools

import pytest

from ir.formats.runs import ARQMATH_TASK1, ARQMATH_TASK2, TREC, RunSummary, read_run
from ir.problems import Problems

TOPICS = {"A.1": 1, "A.2": 2, "A.10": 3}


def read(data: bytes, task="answers", topics=TOPICS, max_depth=1000):
    problems, warnings, summary = Problems(), Problems(), RunSummary()
    rows = list(read_run(io.BytesIO(data), problems, warnings, topics=topics, task=task, max_depth=max_depth,
                         summary=summary))
    return rows, problems, warnings, summary


def real_topics(prefix: str, n: int) -> dict:
    return {f"{prefix}.{i}": i for i in range(1, n + 1)}


@pytest.mark.parametrize("name, task, fmt, prefix", [
    ("psu-task1-auto-both-A.tsv", "answers", TREC, "A"),
    ("ensemble-task1.tsv", "answers", ARQMATH_TASK1, "A"),
    ("ensemble-task2.tsv", "formulas", ARQMATH_TASK2, "B"),
])
def test_real_runs_are_read_whole(arqmath_data, name, task, fmt, prefix):
    with open(arqmath_data / "runs" / name, "rb") as stream:
        problems, warnings, summary = Problems(), Problems(), RunSummary()
        rows = list(read_run(stream, problems, warnings, topics=real_topics(prefix, 200), task=task,
                             summary=summary))
    assert not problems, problems.messages()
    assert summary.format == fmt
    assert len(rows) == summary.rows == 5000  # the first five topics of the real run, whole (1000 rows each)
    assert rows[0].rank == 1 and rows[0].topic_id == f"{prefix}.1"
    if fmt == TREC:
        # Ranked 1, 2, 3, ..., but in four topics two rows of equal score come in increasing doc id order, where
        # trec_eval (and so pooling) takes the higher doc id first: those topics are pooled by numbering the rows.
        assert summary.irregular_topics == {"A.1", "A.3", "A.4", "A.5"}
    else:
        assert not summary.irregular_topics  # real runs rank 1, 2, 3, ... in every topic
    if fmt == ARQMATH_TASK2:
        assert rows[0].item_id == "10159237" and rows[0].post_id == "1075828"
    # The real files cover fewer than 200 topics: a warning, not an error.
    assert any("does not cover" in m for m in warnings.messages())


def test_crlf_and_bom_are_accepted():
    data = "\ufeffA.1\t11\t1\t2.5\trun\r\nA.1\t12\t2\t1.5\trun\r\n".encode()
    rows, problems, _, summary = read(data)
    assert not problems
    assert [r.item_id for r in rows] == ["11", "12"]
    assert summary.format == ARQMATH_TASK1


def test_ids_stay_strings():
    rows, problems, _, _ = read(b"A.10 Q0 007 1 3 run\n")
    assert not problems
    assert rows[0].item_id == "007" and rows[0].topic_id == "A.10"


def test_whitespace_separated_trec_is_read():
    rows, problems, _, summary = read(b"A.1  Q0  5  1  0.9  tag\nA.1 Q0 6 2 0.8 tag\n")
    assert not problems and summary.format == TREC and len(rows) == 2


MALFORMED = [
    # (file content, task, line, message fragment)
    (b"A.1\t11\t1\t2.5\trun\nA.1\t12\t2\trun\n", "answers", 2, "expected 5 columns"),
    (b"A.1\t11\t1\t2.5\trun\nA.1\t12\t2\t1\trun\textra\n", "answers", 2, "expected 5 columns"),
    (b"A.1 11 1\n", "answers", 1, "expected 5 or 6 columns"),
    (b"A.1\t11\tone\t2.5\trun\n", "answers", 1, "rank 'one' is not a whole number"),
    (b"A.1\t11\t0\t2.5\trun\n", "answers", 1, "rank '0' is not a whole number >= 1"),
    (b"A.1\t11\t-3\t2.5\trun\n", "answers", 1, "rank '-3'"),
    (b"A.1\t11\t1.5\t2.5\trun\n", "answers", 1, "rank '1.5'"),
    (b"A.1\t11\t1\tabc\trun\n", "answers", 1, "score 'abc' is not a finite number"),
    (b"A.1\t11\t1\tnan\trun\n", "answers", 1, "score 'nan'"),
    (b"A.1\t11\t1\tinf\trun\n", "answers", 1, "score 'inf'"),
    (b"A.1\t11\t1\t-Infinity\trun\n", "answers", 1, "score '-Infinity'"),
    (b"A.1\t\t1\t2\trun\n", "answers", 1, "empty item id"),
    (b"\t11\t1\t2\trun\n", "answers", 1, "empty topic id"),
    (b"B.1\t55\t\t1\t2\trun\n", "formulas", 1, "empty post id"),
    (b"A.1\t11\t1\t2\trun\nA.1\t11\t2\t1\trun\n", "answers", 2, "'11' appears twice for topic A.1 (first on line 1)"),
    (b"A.1\t11\t1\t2\trun\nA.9\t12\t1\t1\trun\n", "answers", 2, "topic 'A.9' is not a topic of this campaign"),
    (b"A.1\t11\t1\t2\trun\n\xff\xfe\t12\t2\t1\trun\n", "answers", 2, "not UTF-8"),
    (b"A.1\t11\t1\t2\trun\nA.1\t12\t2\t1\trun\nA.1\t13\t3\t1\trun\n", "answers-depth2", 3,
     "more than 2 rows for topic A.1"),
    (b"A.1\t5\t11\t1\t2\trun\n", "answers", 1, "ARQMath Task 2 (6-column) format; a campaign of task 'answers'"),
    (b"A.1\t11\t1\t2\trun\n", "formulas", 1, "ARQMath Task 1 (5-column) format; a campaign of task 'formulas'"),
    (b"A.1\tQ0\t11\t1\t2\trun\nA.1\tQ0\t12\tx\t1\trun\n", "answers", 2, "rank 'x'"),
    (b"B.1\t55\t9\t1\t2\trun\nB.1\t55\t9\t2\t1\trun\n", "formulas", 2, "'55' appears twice"),
    (b"\n\n", "answers", None, "the file has no rows"),
    (b"A.1 Q0 11 1 2 run\nA.1 Q0 12 2 1\n", "answers", 2, "expected 6 columns"),
    (b"A.1\t11\t1\t2\trun\n\nA.2\t11\t1\t2\trun\nA.10\t11\t1e400\t2\trun\n", "answers", 4, "rank '1e400'"),
    (b"A.1\t11\t1\t1e400\trun\n", "answers", 1, "score '1e400' is not a finite number"),
]


@pytest.mark.parametrize("data, task, line, fragment", MALFORMED)
def test_malformed_run_is_rejected_with_its_line(data, task, line, fragment):
    max_depth = 1000
    if task == "answers-depth2":
        task, max_depth = "answers", 2
    topics = {"B.1": 1} if task == "formulas" else TOPICS
    _, problems, _, _ = read(data, task=task, topics=topics, max_depth=max_depth)
    assert problems, f"no problem found for {data!r}"
    first = problems.items[0]
    assert first.line == line
    assert fragment in first.message


def test_every_problem_is_reported_not_only_the_first():
    data = b"A.1\t11\t1\t2\trun\nA.1\tx\tbad\t2\trun\nA.9\t12\t1\t1\trun\nA.2\t13\t1\tnope\trun\n"
    _, problems, _, _ = read(data)
    assert [p.line for p in problems.items] == [2, 3, 4]


def test_warnings_keep_the_file():
    data = (b"A.1\t11\t1\t1.0\trunA\n"
            b"A.1\t12\t2\t5.0\trunA\n"     # rank 2 scores higher than rank 1
            b"A.2\t13\t1\t1.0\trunB\n")    # a second run tag; topic A.10 not covered
    rows, problems, warnings, _ = read(data)
    assert not problems and len(rows) == 3
    text = "\n".join(warnings.messages())
    assert "does not cover 1 of the campaign's 3 topics: A.10" in text
    assert "several run tags in one file: runA (2 rows), runB (1 rows)" in text


@pytest.mark.parametrize("ranks, irregular", [
    ({"A.1": [1, 2, 3], "A.2": [1, 2]}, set()),
    ({"A.1": [1, 2, 4], "A.2": [1, 2]}, {"A.1"}),  # a gap
    ({"A.1": [1, 2, 2], "A.2": [1, 2]}, {"A.1"}),  # a tie
    ({"A.1": [2, 3, 4], "A.2": [1, 2]}, {"A.1"}),  # starts above 1
    ({"A.1": [1, 3, 2], "A.2": [2, 1]}, {"A.1", "A.2"}),  # out of order
])
def test_topics_whose_ranks_are_not_their_positions_are_named(ranks, irregular):
    # The topics' rows alternate in the file: each topic's ranks are followed across the whole file.
    per_topic = [[(topic, f"{topic}-{i}", rank) for i, rank in enumerate(topic_ranks)]
                 for topic, topic_ranks in ranks.items()]
    lines = [line for group in itertools.zip_longest(*per_topic) for line in group if line]
    data = "".join(f"{topic}\t{item}\t{rank}\t{10 - rank}\tr\n" for topic, item, rank in lines).encode()
    rows, problems, _, summary = read(data)
    assert not problems and len(rows) == len(lines)
    assert summary.irregular_topics == irregular


def test_without_duplicate_finding_the_reader_remembers_no_items():
    # The service leaves repeated items to the database key; the rest of the checks still apply.
    problems, warnings, summary = Problems(), Problems(), RunSummary()
    data = b"A.1\t11\t1\t2\tr\nA.1\t11\t2\t1\tr\nA.1\t12\tx\t1\tr\n"
    rows = list(read_run(io.BytesIO(data), problems, warnings, topics=TOPICS, task="answers", summary=summary,
                         find_duplicates=False))
    assert len(rows) == 2 and [p.line for p in problems.items] == [3]


def test_an_overlong_line_is_a_problem_and_is_not_held_in_memory():
    problems, warnings = Problems(), Problems()
    data = b"A.1\t11\t1\t2\trun\n" + b"x" * 5000 + b"\nA.1\t12\t2\t1\trun\n"
    from ir.formats.textio import iter_lines

    lines = list(iter_lines(io.BytesIO(data), problems, line_max=1000))
    assert [n for n, _ in lines] == [1, 3]
    assert [(p.line, p.message) for p in problems.items] == [(2, "the line is longer than 1,000 bytes")]
    rows = list(read_run(io.BytesIO(data), Problems(), warnings, topics=TOPICS, task="answers"))
    assert len(rows) == 2


@pytest.mark.parametrize("data, rows, lines", [
    (b"A.1\t11\t1\t2\trun\t\nA.1\t12\t2\t1\trun \n", 2, []),   # trailing tab or space: still 5 columns
    (b"A.1\t11\t1\t2\trun\n\t\t\n \n", 1, []),                # lines of white space only are blank
    (b"A.1\t11\t1\t2\t\n", 0, [1]),                          # an empty run tag leaves 4 columns
])
def test_white_space_at_the_ends_of_lines(data, rows, lines):
    got, problems, _, _ = read(data)
    assert len(got) == rows and [p.line for p in problems.items] == lines


def test_absurd_fields_give_short_messages_not_crashes():
    data = b"A.1\t11\t" + b"9" * 5000 + b"\t2\trun\n" + b"X" * 100000 + b"\t12\t1\t1\trun\n"
    _, problems, _, _ = read(data)
    assert [p.line for p in problems.items] == [1, 2]
    assert problems.items[0].message.startswith("rank 9999") and "out of range" in problems.items[0].message
    assert len(problems.items[1].message) < 100


def test_leading_zeros_do_not_count_towards_a_ranks_length():
    # 13 characters, but rank 1: read, not dropped (it once failed the quick check and got no message either).
    rows, problems, _, _ = read(b"A.1\t11\t0000000000001\t2\trun\nA.1\t12\t00000000000000002\t1\trun\n"
                                b"A.1\t13\t0001000000000000\t1\trun\n")
    assert [(r.item_id, r.rank) for r in rows] == [("11", 1), ("12", 2)]
    assert [(p.line, p.message) for p in problems.items] == [(3, "rank 0001000000000000 is out of range")]


def test_a_row_the_quick_checks_refuse_is_never_dropped_without_a_problem(monkeypatch):
    # Should the quick checks ever refuse what the detailed ones accept, the row is still reported.
    monkeypatch.setattr("ir.formats.runs._isfinite", lambda score: score != 2.0)
    rows, problems, _, _ = read(b"A.1\t11\t1\t2\trun\nA.1\t12\t2\t1\trun\n")
    assert [r.item_id for r in rows] == ["12"]
    assert [(p.line, p.message) for p in problems.items] == [(1, "this row could not be read")]


@pytest.mark.parametrize("path, task, kind", [
    ("qrels/qrels.arqmath-2020-task1.txt", "answers", "a qrels file (topic iteration doc_id grade)"),
    ("qrels/qrels.arqmath-2021-task2-official.txt", "formulas", "a qrels file (topic iteration doc_id grade)"),
    ("topics/topics.arqmath-2020-task1-origin.xml", "answers", "an ARQMath Task 1 (or Task 3) topic file"),
    ("formulas/formula_index_v2_sample.tsv", "formulas", "a formula index TSV"),
])
def test_file_of_another_kind_as_a_run_says_what_it_looks_like(arqmath_data, path, task, kind):
    rows, problems, _warnings, _summary = read((arqmath_data / path).read_bytes(), task=task,
                                               topics=real_topics(task == "answers" and "A" or "B", 300))

    assert rows == []
    assert problems.messages() == [f"line 1: this looks like {kind}, not a run file"]

"""The ARQMath-3 Task 3 run reader (issue 17 point 1): the organizers' validator's rules, each with its line, on a
run written as their tools write runs and on broken ones; and the recognition of the shape beside the run formats."""
import csv
import io
from pathlib import Path

import pytest

from ir.formats.runs import ARQMATH_TASK2, ARQMATH_TASK3, TREC, detect_format, read_run
from ir.formats.task3_answers import ANSWER_MAX, read_answers, read_answers_file
from ir.problems import InputError, Problems

TASK3 = Path(__file__).resolve().parent.parent / "data" / "arqmath" / "task3"
RUN = TASK3 / "synthetic-task3-generate-A.tsv"
TOPICS = ("A.301", "A.302", "A.305", "A.330")


def tsv(*rows) -> bytes:
    """Rows written as the organizers' tools write a run: csv.writer, tab delimiter, minimal quoting, CRLF."""
    out = io.StringIO(newline="")
    csv.writer(out, delimiter="\t", quoting=csv.QUOTE_MINIMAL).writerows(rows)
    return out.getvalue().encode("utf-8")


def row(topic="A.301", answer="The norm is $x$.", rank="1", score="1.0", run="r1", sources="GPT3"):
    return (topic, rank, score, run, sources, answer)


def read(data: bytes, topics=None):
    problems, warnings = Problems(), Problems()
    rows = read_answers(io.BytesIO(data), problems, warnings, topics=topics)
    return rows, [(p.line, p.message) for p in problems.items], [(w.line, w.message) for w in warnings.items]


def test_a_run_as_the_organizers_write_them_is_read_whole_with_its_quoted_multiline_answers():
    run = read_answers_file(RUN, topics=set(TOPICS))
    assert [r.topic_id for r in run.rows] == list(TOPICS)
    assert [r.line for r in run.rows] == [1, 4, 7, 8]  # each record's first line; quoted answers span lines
    assert {(r.rank, r.run_id, r.sources) for r in run.rows} == {(1, "synthetic-task3-generate-A", "GPT-like")}
    assert run.rows[0].score == 13.7
    assert run.rows[1].answer.startswith("Write $z = re^{i\\theta}$. The $n$-th roots of $z$ are\n$$w_k")
    assert '"the floor of the limit"' in run.rows[2].answer  # doubled quotes undone
    assert not run.warnings


def test_the_run_answers_the_topics_of_the_real_qrels_and_map():
    qrels_topics = {line.split("\t")[0] for line in (TASK3 / "qrels.arqmath-2022-task3-official.txt").open()}
    with (TASK3 / "teams_document_id.tsv").open(newline="") as f:
        mapped = list(csv.reader(f, delimiter="\t"))
    assert len({run for run, _topic, _id in mapped}) == 14
    assert len(qrels_topics) == 78 and {topic for _run, topic, _id in mapped} > qrels_topics  # 100 topics answered
    assert {r.topic_id for r in read_answers_file(RUN).rows} == set(TOPICS) < qrels_topics


def test_rank_other_than_1_warns_with_its_line():
    rows, problems, warnings = read(tsv(row("A.1"), row("A.2", rank="2"), row("A.3", rank="0")))
    assert not problems and len(rows) == 3
    assert warnings == [(2, "rank 2 for topic A.2: every answer should have rank 1"),
                        (3, "rank 0 for topic A.3: every answer should have rank 1")]


def test_a_second_answer_to_a_topic_is_an_error_naming_both_lines():
    rows, problems, _ = read(tsv(row("A.1"), row("A.2"), row("A.1", answer="Another answer.")))
    assert rows == []  # nothing of a bad file is taken
    assert problems == [(3, "a second answer to topic A.1 (the first is on line 1); a run gives one answer per topic")]


def test_an_answer_over_1200_unicode_characters_is_an_error():
    wide = "é∑𝔸"  # 2, 3 and 4 bytes in UTF-8: characters are counted, not bytes
    exact = (wide * ANSWER_MAX)[:ANSWER_MAX]
    rows, problems, _ = read(tsv(row("A.1", answer=exact), row("A.2", answer=exact + "x")))
    assert rows == []
    assert problems == [(2, "the answer to topic A.2 has 1,201 characters; at most 1,200 are allowed")]
    rows, problems, _ = read(tsv(row("A.1", answer=exact)))
    assert not problems and rows[0].answer == exact


@pytest.mark.parametrize("answer, odd", [
    ("It costs $5.", True),
    ("Let $x$ be $y$.", False),
    ("$$x^2$$ and $y$", False),
    ("$$x^2$", True),
    (r"An escaped \$ sign and $x$.", False),
    (r"An escaped backslash before a sign: \\$x$.", False),
    (r"\\\$ is escaped, so $x is open.", True),
])
def test_an_odd_number_of_dollar_signs_warns(answer, odd):
    rows, problems, warnings = read(tsv(row("A.1"), row("A.2", answer=answer)))
    assert not problems and len(rows) == 2
    expected = [(2, "an odd number of $ in the answer to topic A.2: the TeX may be broken")] if odd else []
    assert warnings == expected


def test_utf8_with_bom_lf_or_crlf_and_line_numbers_after_a_multiline_answer():
    crlf = tsv(row("A.1", answer="two\nlines"), row("A.2", rank="3"))
    lf = crlf.replace(b"\r\n", b"\n")
    for data in (crlf, lf, b"\xef\xbb\xbf" + crlf):
        rows, problems, warnings = read(data)
        assert not problems
        assert [(r.topic_id, r.answer) for r in rows] == [("A.1", "two\nlines"), ("A.2", "The norm is $x$.")]
        assert warnings == [(3, "rank 3 for topic A.2: every answer should have rank 1")]


@pytest.mark.parametrize("data, line, message", [
    (b"A.1\t1\t1.0\tr1\tGPT3\tok\nA.2\t1\t1.0\tr1\tGPT3\tbad \x00 byte\n", 2, "a NUL character (byte 23 of the line)"),
    (b"A.1\t1\t1.0\tr1\tGPT3\tok\nA.2\t1\t1.0\tr1\tGPT3\t\xff\n", 2, "not UTF-8 (byte 19 of the line)"),
    (b"A.1\t1\t1.0\tr1\tGPT3\n", 1, "expected 6 columns (topic rank score run_id sources answer), found 5"),
    (b"A.1\t1\t1.0\tr1\tGPT3\ta\tb\n", 1, "expected 6 columns (topic rank score run_id sources answer), found 7 "
                                      "(a tab inside an answer must be quoted)"),
    (b"A.1\tfirst\t1.0\tr1\tGPT3\tok\n", 1, "rank 'first' is not a whole number"),
    (b"A.1\t1\tnan\tr1\tGPT3\tok\n", 1, "score 'nan' is not a finite number"),
    (b"\t1\t1.0\tr1\tGPT3\tok\n", 1, "empty topic id"),
    (b"A.1\t1\t1.0\t\tGPT3\tok\n", 1, "empty run id"),
    (b"A.1\t1\t1.0\tr1\tGPT3\t \n", 1, "the answer to topic A.1 is empty (leave a topic without an answer out)"),
    (b"A.1\t1\t1.0\tr1\tGPT3\tok\nA.2\t1\t1.0\tr1\tGPT3\t\"Yes\", he said\n", 2,
     "bad quoting: a closing quote must be followed by a tab or the line end"),
    (b"A.1\t1\t1.0\tr1\tGPT3\t\"never closed\nA.2\t1\t1.0\tr1\tGPT3\tok\n", 1,
     "bad quoting: a quoted field is not closed before the end of the file"),
    (b"\n\n", None, "the file has no answers"),
])
def test_each_problem_with_its_line(data, line, message):
    rows, problems, _ = read(data)
    assert rows == []
    assert (line, message) in problems, problems


def test_topics_of_the_campaign_and_several_run_ids():
    rows, problems, warnings = read(tsv(row("A.301"), row("A.999", run="r2")), topics={"A.301"})
    assert problems == [(2, "topic 'A.999' is not a topic of this campaign")]
    assert (None, "several run ids in one file: r1 (1 rows), r2 (1 rows)") in warnings


def test_a_bad_file_is_refused_whole_with_every_problem(tmp_path):
    path = TASK3 / "synthetic-task3-generate-A.tsv"
    broken = path.read_bytes() + tsv(row("A.301", answer="x" * 1300))
    tmp = tmp_path / "broken.tsv"
    tmp.write_bytes(broken)
    with pytest.raises(InputError) as caught:
        read_answers_file(tmp)
    assert [str(p) for p in caught.value.problems] == [
        "broken.tsv:line 10: the answer to topic A.301 has 1,300 characters; at most 1,200 are allowed",
        "broken.tsv:line 10: a second answer to topic A.301 (the first is on line 1); a run gives one answer "
        "per topic",
    ]


def test_the_shape_is_recognised_beside_the_three_run_formats():
    first = RUN.read_bytes().split(b"\r\n")[0].split(b"\n")[0].decode().split("\t")
    assert detect_format(first) == ARQMATH_TASK3  # its answer is quoted and goes on past this line
    assert detect_format(["A.1", "1", "1.0", "GPT3", "GPT3", "one"]) == ARQMATH_TASK3
    assert detect_format(["A.1", "1", "1.0", "run", "12345", "an answer"]) == ARQMATH_TASK3
    assert detect_format(["B.1", "123", "456", "1", "0.5", "run"]) == ARQMATH_TASK2
    assert detect_format(["B.1", "123", "456", "x", "0.5", "run"]) == ARQMATH_TASK2  # a bad Task 2 rank stays Task 2
    assert detect_format(["A.1", "Q0", "123", "1", "0.5", "run"]) == TREC
    # The ranked-list reader names the format it does not read (run_ingest hands Task 3 files to their own reader).
    problems, warnings = Problems(), Problems()
    with RUN.open("rb") as stream:
        rows = list(read_run(stream, problems, warnings, topics=dict.fromkeys(TOPICS), task="answers"))
    assert rows == []
    assert [(p.line, p.message) for p in problems.items] == [
        (1, "the file is in ARQMath-3 Task 3 (answers) format; a campaign of task 'answers' takes "
            "ARQMath Task 1 (5-column) or TREC (Q0)")]

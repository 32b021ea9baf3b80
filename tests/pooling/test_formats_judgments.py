"""The judgments TSV reader (import_judgments' file, SPEC 9) on its own: the file's shape, without a database."""
from __future__ import annotations

import io

from ir.formats.judgments_tsv import JudgmentRecord, binary_lines, read_judgments
from ir.problems import Problems


def judgments(data: bytes) -> tuple[list[JudgmentRecord], list[str]]:
    problems = Problems(file="j.tsv")
    return list(read_judgments(io.BytesIO(data), problems)), problems.messages()


def test_a_header_blank_lines_and_crlf_are_skipped_and_kind_and_round_are_optional():
    records, problems = judgments(b"\xef\xbb\xbfAssessor\tTopic\tItem_ID\tgrade\tcomment\r\n\r\n"
                                  b"ada\tA.1\t10\t3\t\r\n"
                                  b"ada\tA.1\t11\tDK\tunsure\ttraining\t2\n"
                                  b" bo \t A.2 \t12\t0\t\tdual\n")
    assert problems == []
    assert [(r.line, r.assessor, r.topic_id, r.item_id, r.grade, r.comment, r.kind, r.round) for r in records] == [
        (3, "ada", "A.1", "10", "3", "", "", None),
        (4, "ada", "A.1", "11", "DK", "unsure", "training", 2),
        (5, "bo", "A.2", "12", "0", "", "dual", None)]
    assert not any(r.refused for r in records)


def test_a_line_with_a_problem_comes_refused_with_every_problem_of_its_shape():
    records, problems = judgments(b"ada\t\t10\t3\t\n"
                                  b"ada\tA.1\t11\t3\t\ttraining\tsecond\n"
                                  b"ada\tA.1\t12\n"
                                  b"ada\tA.1\t13\t3\t\n")
    assert problems == [
        "j.tsv:line 1: empty topic",
        "j.tsv:line 2: round 'second' is not a number",
        "j.tsv:line 3: expected 5 to 7 tab-separated columns (assessor, topic, item_id, grade, comment[, kind[, "
        "round]]), found 3"]
    assert [(r.line, r.refused) for r in records] == [(1, True), (2, True), (4, False)]


def test_a_file_without_rows_is_a_problem_but_a_file_of_refused_rows_is_not_said_to_be_empty():
    assert judgments(b"assessor\ttopic\titem_id\tgrade\tcomment\n\n") == ([], ["j.tsv: the file has no rows"])
    records, problems = judgments(b"ada\tA.1\t10\n")
    assert (records, len(problems)) == ([], 1) and "no rows" not in problems[0]


def test_lines_given_as_a_list_read_as_the_same_file():
    as_file = judgments(b"ada\tA.1\t10\t3\t\nada\tA.1\t11\t2\tfine\n")
    problems = Problems(file="j.tsv")
    as_lines = list(read_judgments(binary_lines(["ada\tA.1\t10\t3\t", "ada\tA.1\t11\t2\tfine\n"]), problems))
    assert (as_lines, problems.messages()) == as_file

"""Streaming reader of a judgments TSV (import_judgments, docs/formats.md): assessor, topic, item id, grade, comment and
optionally the assignment's kind and round, one judgment a line.

The reader checks the file's shape (columns, empty fields, a round that is a number); what a grade, a kind and a
round may be is the judging app's rule (assessor/rules.py), applied by the import to every record.
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import BinaryIO, NamedTuple, cast

from ir.formats.qrels import read_qrels, split_columns
from ir.formats.se_xml import parse_int
from ir.formats.textio import FIELD_MAX, iter_lines, no_rows, shown
from ir.problems import Problems

COLUMNS = "assessor, topic, item_id, grade, comment[, kind[, round]]"
HEADER = ["assessor", "topic", "item_id"]
TSV, QRELS = "tsv", "qrels"
# What a 4-column line is told: a TREC qrels file is imported whole, with its assessor and kind chosen beside it.
QRELS_HINT = ("a TREC qrels file (topic iteration item grade) is imported whole, with the assessor and kind chosen on "
              "the form (import_judgments --assessor USER --kind KIND)")


class JudgmentRecord(NamedTuple):
    line: int
    assessor: str
    topic_id: str
    item_id: str
    grade: str
    comment: str
    kind: str  # '' when the line gives none
    round: int | None  # None when the line gives none
    refused: bool  # the reader reported a problem on the line: the record is for further checks only


def binary_lines(lines: BinaryIO | Iterable[str | bytes]) -> BinaryIO:
    """A file as it is (read line by line, each line bounded); lines given as a list (the tests, a caller with the
    text at hand) joined into one stream, so that both go through the same reader."""
    if hasattr(lines, "readline"):
        return cast("BinaryIO", lines)  # a file: mypy's hasattr narrowing cannot tell it from an iterable of lines
    return io.BytesIO(b"".join(
        (line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")).rstrip(b"\r\n") + b"\n"
        for line in lines))


def read_judgments(stream: BinaryIO, problems: Problems) -> Iterator[JudgmentRecord]:
    """A record for every line of 5 to 7 columns, as the file is read; blank lines and a header line are skipped.
    A record the reader found a problem in comes `refused`, so that the caller can still report the line's other
    problems; a file without a record is itself a problem."""
    found = False
    # A line is at most FIELD_MAX bytes: a longer one is reported and skipped without ever being held whole.
    for number, text in iter_lines(stream, problems, line_max=FIELD_MAX):
        if not text.strip():
            continue
        fields = text.split("\t")
        if number == 1 and [f.strip().lower() for f in fields[:3]] == HEADER:
            continue
        if not 5 <= len(fields) <= 7:
            hint = f": {QRELS_HINT}" if len(split_columns(text)) == 4 else ""
            problems.add(number, f"expected 5 to 7 tab-separated columns ({COLUMNS}), found {len(fields)}{hint}")
            continue
        found = True
        assessor, topic_id, item_id, grade, comment = (f.strip() for f in fields[:5])
        kind = fields[5].strip() if len(fields) > 5 else ""
        round_text = fields[6].strip() if len(fields) > 6 else ""
        refused = False
        for label, value in (("assessor", assessor), ("topic", topic_id), ("item_id", item_id)):
            if not value:
                problems.add(number, f"empty {label}")
                refused = True
        round_ = parse_int(round_text) if round_text else None
        if round_text and round_ is None:
            problems.add(number, f"round '{shown(round_text)}' is not a number")
            refused = True
        yield JudgmentRecord(number, assessor, topic_id, item_id, grade, comment, kind, round_, refused)
    no_rows(found, problems)


def judgments_format(stream: BinaryIO) -> str:
    """TSV or QRELS, by the first line that holds something: 5 to 7 tab-separated fields are the judgments TSV,
    4 whitespace-separated ones a TREC qrels file (anything else is read as the TSV, whose reader says what is
    wrong). The stream is read from its start and put back there."""
    found = TSV
    for _number, text in iter_lines(stream, Problems(), line_max=FIELD_MAX):
        if not text.strip():
            continue
        if not 5 <= len(text.split("\t")) <= 7 and len(split_columns(text)) == 4:
            found = QRELS
        break
    stream.seek(0)
    return found


def qrels_judgments(stream: BinaryIO, problems: Problems, *, assessor: str, kind: str, round_: int | None,
                    filename: str = "") -> Iterator[JudgmentRecord]:
    """The lines of a TREC qrels file (ir/formats/qrels.py reads them) as judgments of `assessor` in assignments of
    `kind` and `round_`: the grade as given, and the qrels' System failure (5) and Do not know (6) as SF and DK with a
    comment saying where they come from (the judging page requires one)."""
    found = False
    for record in read_qrels(stream, problems):
        found = True
        mark = record.mark
        comment = f"{mark} in the qrels file {filename}".rstrip() if mark else ""
        yield JudgmentRecord(record.line, assessor, record.topic_id, record.item_id, mark or str(record.grade),
                             comment, kind, round_, False)
    no_rows(found, problems)

"""Streaming reader of TREC qrels: topic, iteration, item id and integer grade per line.

The organizers' "complete" qrels (ARQMath-3 Task 3) also hold an assessor's System failure as grade 5 and Do not
know as 6 (ir/grades.py); `QrelRecord.mark` and `qrels_by_topic` read them so for every reader of qrels."""
from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from ir.formats.se_xml import int_refusal, parse_int
from ir.formats.textio import iter_lines, shown
from ir.grades import MARKS
from ir.problems import Problems

COLUMNS = "topic iteration doc_id grade"


class QrelRecord(NamedTuple):
    line: int
    topic_id: str
    item_id: str
    grade: int

    @property
    def mark(self) -> str | None:
        """"SF" or "DK" for a line of grade 5 or 6 (not a relevance grade), else None."""
        return MARKS.get(self.grade)


def split_columns(text: str) -> list[str]:
    """Tab-separated if the line has a tab (so empty fields show), else whitespace-separated."""
    text = text.rstrip()
    if "\t" in text:
        return [field.strip() for field in text.split("\t")]
    return text.split()


def read_qrels(stream: BinaryIO, problems: Problems) -> Iterator[QrelRecord]:
    """Judgments of a qrels file, as the file is read; blank lines are skipped."""
    seen: dict[tuple[str, str], int] = {}
    for line, text in iter_lines(stream, problems):
        if not text.strip():
            continue
        fields = split_columns(text)
        if len(fields) != 4:
            problems.add(line, f"expected 4 columns ({COLUMNS}), found {len(fields)}")
            continue
        topic_id, _iteration, item_id, raw_grade = fields
        grade = parse_int(raw_grade)
        errors = _errors(topic_id, item_id, raw_grade, grade, seen.get((topic_id, item_id)))
        problems.add_all(line, errors)
        if errors:
            continue
        assert grade is not None  # _errors refuses a grade that is no integer
        seen[(topic_id, item_id)] = line
        yield QrelRecord(line, topic_id, item_id, grade)


def qrels_by_topic(stream: BinaryIO, problems: Problems, *, sf_dk: int | None = None) -> dict[str, dict[str, int]]:
    """topic -> item id -> grade of a whole qrels file. SF and DK lines (5 and 6) are left out, counting as unjudged
    as in the product's own qrels (a topic that has only such lines is then not in the result); `sf_dk` keeps them
    with that grade instead (0 for ARQMath-3's AR and P@1, where a system failure or an unknown answer scores 0)."""
    qrels: dict[str, dict[str, int]] = {}
    for record in read_qrels(stream, problems):
        if record.mark is None:
            qrels.setdefault(record.topic_id, {})[record.item_id] = record.grade
        elif sf_dk is not None:
            qrels.setdefault(record.topic_id, {})[record.item_id] = sf_dk
    return qrels


def _errors(topic_id: str, item_id: str, raw_grade: str, grade: int | None, earlier: int | None) -> list[str]:
    errors = []
    if not topic_id:
        errors.append("empty topic id")
    if not item_id:
        errors.append("empty doc id")
    if grade is None:
        errors.append(f"grade '{shown(raw_grade)}' {int_refusal(raw_grade)}")
    if earlier is not None:
        errors.append(f"doc '{item_id}' judged twice for topic '{topic_id}' (first on line {earlier})")
    return errors

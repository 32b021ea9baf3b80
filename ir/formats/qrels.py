"""Streaming reader of TREC qrels: topic, iteration, item id and integer grade per line; and of qrels whose lines
go on with one probability per grade (`read_qrels_probabilities`: an LLM's grades made elsewhere, docs/llm.md).

The organizers' "complete" qrels (ARQMath-3 Task 3) also hold an assessor's System failure as grade 5 and Do not
know as 6 (ir/grades.py); `QrelRecord.mark` and `qrels_by_topic` read them so for every reader of qrels."""
from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from typing import BinaryIO, NamedTuple

from ir.formats.se_xml import int_refusal, parse_int
from ir.formats.textio import iter_lines, shown
from ir.grades import MARKS
from ir.problems import Problems

COLUMNS = "topic iteration doc_id grade"
# How far from 1 a line's probabilities may sum (rounding in the tool that wrote them).
PROBABILITY_SUM_TOLERANCE = 1e-3  # as written to three decimals, a row of thirds still sums to 1
TOLERANCE_SHOWN = "1e-3"
# A probability as written: plain ASCII decimals, with an exponent or not (float() alone takes "1_0" and "nan").
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


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
    for record, _rest in _records(stream, problems, expected=f"expected 4 columns ({COLUMNS})"):
        yield record


def read_qrels_probabilities(stream: BinaryIO, problems: Problems, *, grades: Sequence[int]
                             ) -> Iterator[tuple[QrelRecord, dict[int, float] | None]]:
    """The lines of a qrels file, each with the probability of every one of `grades` when the line goes on with one
    probability per grade, in the order of `grades` (None when it has the 4 columns only). The file's first line
    decides: with probabilities, every line must give them; without, none may. Each probability is a number from 0
    to 1, and a line's sum to 1 within PROBABILITY_SUM_TOLERANCE."""
    grades = list(grades)
    width = len(grades)
    named = ", ".join(map(str, grades))
    with_them = f"{COLUMNS} then {width} probabilities (of grades {named}, in that order)"
    expected = f"expected 4 columns ({COLUMNS}) or {4 + width} ({with_them})"
    decided: int | None = None  # the number of extra columns, once the first line has told
    for record, rest in _records(stream, problems, expected=expected, widths=(0, width)):
        if decided is None:
            decided = len(rest)
        elif len(rest) != decided:
            problems.add(record.line, f"{4 + len(rest)} columns, but the file's first line has {4 + decided}: "
                                      f"every line gives the {width} probabilities, or none does")
            continue
        if not rest:
            yield record, None
            continue
        probabilities = _probabilities(rest, grades, record.line, problems)
        if probabilities is not None:
            yield record, probabilities


def _probabilities(fields: Sequence[str], grades: Sequence[int], line: int, problems: Problems
                   ) -> dict[int, float] | None:
    values: dict[int, float] = {}
    bad = False
    for grade, text in zip(grades, fields, strict=True):
        value = float(text) if _DECIMAL.fullmatch(text) else math.nan
        if not math.isfinite(value):
            problems.add(line, f"the probability of grade {grade}, '{shown(text)}', is not a number")
            bad = True
        elif not 0.0 <= value <= 1.0:
            problems.add(line, f"the probability of grade {grade}, '{shown(text)}', is not between 0 and 1")
            bad = True
        values[grade] = value
    if bad:
        return None
    total = math.fsum(values.values())
    if abs(total - 1.0) > PROBABILITY_SUM_TOLERANCE:
        problems.add(line, f"the probabilities sum to {total:.9g}, not 1 (within {TOLERANCE_SHOWN})")
        return None
    return values


def _records(stream: BinaryIO, problems: Problems, *, expected: str, widths: Sequence[int] = (0,)
             ) -> Iterator[tuple[QrelRecord, list[str]]]:
    """Each line's record and the columns after its fourth, whose number must be one of `widths`."""
    seen: dict[tuple[str, str], int] = {}
    for line, text in iter_lines(stream, problems):
        if not text.strip():
            continue
        fields = split_columns(text)
        if len(fields) - 4 not in widths:
            problems.add(line, f"{expected}, found {len(fields)}")
            continue
        topic_id, _iteration, item_id, raw_grade = fields[:4]
        grade = parse_int(raw_grade)
        errors = _errors(topic_id, item_id, raw_grade, grade, seen.get((topic_id, item_id)))
        problems.add_all(line, errors)
        if errors:
            continue
        assert grade is not None  # _errors refuses a grade that is no integer
        seen[(topic_id, item_id)] = line
        yield QrelRecord(line, topic_id, item_id, grade), fields[4:]


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

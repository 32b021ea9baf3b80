"""Streaming readers of the ARQMath formula index TSV (v2 and v3) and its optional slt/opt extra files."""
from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from ir.formats.textio import BOM, LINE_MAX, csv_lines, iter_lines, no_rows
from ir.problems import Problems

V2_HEADER = ["id", "post_id", "thread_id", "type", "visual_id", "formula"]
V3_HEADER = ["id", "post_id", "thread_id", "type", "comment_id", "old_visual_id", "visual_id", "issue", "formula"]
# 'title' is not in the spec, but the real ARQMath v2 index marks formulas of question titles so.
FORMULA_TYPES = ("question", "answer", "comment", "title")
ISSUES = ("", "d", "v", "dv")
EXTRA_COLUMNS = ("slt", "opt")


class FormulaRecord(NamedTuple):
    line: int
    formula_id: str
    post_id: str
    thread_id: str
    type: str
    comment_id: str  # '' in v2
    visual_id: str
    old_visual_id: str  # '' in v2
    issue: str  # '' in v2
    latex: str


class ExtraRecord(NamedTuple):
    line: int
    formula_id: str
    column: str  # 'slt' or 'opt'
    value: str


def is_formula_index_header(header: list[str]) -> bool:
    return header in (V2_HEADER, V3_HEADER)


def extra_columns(header: list[str]) -> list[str]:
    """The slt/opt columns of an extra file's header; [] if the header is not one."""
    if "id" not in header:
        return []
    return [name for name in header if name in EXTRA_COLUMNS]


def tsv_header(source: str | os.PathLike | BinaryIO, problems: Problems | None = None) -> list[str]:
    """Column names of the first line, lower-cased; [] if it is not UTF-8 text or holds a NUL, which is then added
    to `problems` with its line (iter_lines's rule for every other line)."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as stream:
            return _header_of(stream, problems)
    start = source.tell() if source.seekable() else None
    try:
        return _header_of(source, problems)
    finally:
        if start is not None:
            source.seek(start)


def _header_of(stream: BinaryIO, problems: Problems | None) -> list[str]:
    found = Problems()
    for _, text in iter_lines(io.BytesIO(stream.readline(LINE_MAX + 2)), found):
        return [name.strip().lower() for name in text.split("\t")] if text.strip() else []
    if problems is not None:
        for problem in found.items:
            problems.add(problem.line, problem.message)
    return []


def header_guess(source: str | os.PathLike) -> str:
    """What an unreadable first line (bad bytes, a NUL) would be with those bytes left out: "a formula index header",
    "an slt/opt file's header" or ""."""
    with open(source, "rb") as stream:
        raw = stream.readline().removeprefix(BOM).replace(b"\0", b"")
    names = [name.strip().lower() for name in raw.decode("utf-8", "ignore").rstrip("\r\n").split("\t")]
    if is_formula_index_header(names):
        return "a formula index header"
    return "an slt/opt file's header" if extra_columns(names) else ""


def tsv_records(stream: BinaryIO, problems: Problems) -> Iterator[tuple[int, list[str]]]:
    """(first line, fields) of every non-blank TSV record; bad quoting is reported once and ends it."""
    reader = csv.reader(csv_lines(stream, problems), delimiter="\t", strict=True)
    while True:
        line = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            problems.add(line, _quoting_message(exc))
            return
        if any(field.strip() for field in fields):
            yield line, fields


def _quoting_message(exc: csv.Error) -> str:
    text = str(exc)
    if "expected after" in text:
        return "bad quoting: a closing quote must be followed by a tab or the line end"
    if "end of data" in text:
        return "bad quoting: a quoted field is not closed before the end of the file"
    if "field limit" in text:
        return f"field longer than {csv.field_size_limit()} characters (a quote not closed?)"
    return f"bad quoting: {text}"


def _rows(
    records: Iterator[tuple[int, list[str]]], header: list[str], problems: Problems
) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows as {column: value}; fields beyond the header's width belong to the last column."""
    width = len(header)
    for line, fields in records:
        if len(fields) < width:
            problems.add(line, f"expected {width} columns ({' '.join(header)}), found {len(fields)}")
            continue
        fields = fields[: width - 1] + ["\t".join(fields[width - 1 :])]
        yield line, dict(zip(header, fields, strict=True))


def _header(records: Iterator[tuple[int, list[str]]], problems: Problems) -> tuple[int, list[str]]:
    """(line, lower-cased names) of the first non-blank record; (0, []) if there is none."""
    first = next(records, None)
    if first is None:
        if not problems:  # else the reason was already given (bad bytes or quoting)
            problems.add(1, "empty file, expected a header line")
        return 0, []
    return first[0], [name.strip().lower() for name in first[1]]


def read_formula_index(stream: BinaryIO, problems: Problems) -> Iterator[FormulaRecord]:
    """Formulas of a v2 or v3 formula index, as the file is read."""
    records = tsv_records(stream, problems)
    line, header = _header(records, problems)
    if not header:
        return
    if not is_formula_index_header(header):
        problems.add(
            line,
            f"unknown header '{' '.join(header)}'; expected '{' '.join(V2_HEADER)}' (v2) "
            f"or '{' '.join(V3_HEADER)}' (v3)",
        )
        return
    rows = 0
    for line, row in _rows(records, header, problems):
        rows += 1
        errors: list[str] = []
        record = _formula(line, row, errors)
        problems.add_all(line, errors)
        if record is not None:
            yield record
    no_rows(rows, problems)


def _formula(line: int, row: dict[str, str], errors: list[str]) -> FormulaRecord | None:
    formula_id = row["id"].strip()
    if not formula_id:
        errors.append("empty id")
    if not row["post_id"].strip():
        errors.append("empty post_id")
    kind = row["type"].strip()
    if kind not in FORMULA_TYPES:
        errors.append(f"type '{kind}' is not one of {', '.join(FORMULA_TYPES)}")
    issue = row.get("issue", "").strip()
    if issue not in ISSUES:
        errors.append(f"issue '{issue}' is not one of '', 'd', 'v', 'dv'")
    if errors:
        return None
    return FormulaRecord(
        line=line,
        formula_id=formula_id,
        post_id=row["post_id"].strip(),
        thread_id=row["thread_id"].strip(),
        type=kind,
        comment_id=row.get("comment_id", "").strip(),
        visual_id=row["visual_id"].strip(),
        old_visual_id=row.get("old_visual_id", "").strip(),
        issue=issue,
        latex=row["formula"],
    )


def read_formula_extra(stream: BinaryIO, problems: Problems) -> Iterator[ExtraRecord]:
    """One record per non-empty slt/opt value of an extra file, as the file is read."""
    records = tsv_records(stream, problems)
    line, header = _header(records, problems)
    if not header:
        return
    columns = extra_columns(header)
    if not columns:
        problems.add(line, f"unknown header '{' '.join(header)}'; expected an id column and an slt or opt column")
        return
    rows = 0
    for line, values in _rows(records, header, problems):
        rows += 1
        formula_id = values["id"].strip()
        if not formula_id:
            problems.add(line, "empty id")
            continue
        for column in columns:
            if values[column].strip():
                yield ExtraRecord(line, formula_id, column, values[column])
    no_rows(rows, problems)

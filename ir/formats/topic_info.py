"""A topic information file (docs/analysis.md): a CSV with a `Topic` column and any others (category, difficulty,
...), read with a line-numbered problem for every bad row, for the means by topic category of `ir.statistics`.
Pure Python: no Django (a campaign's stored copy is evaluation/topic_info.py's)."""
from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ir.formats.runs import cut_short
from ir.formats.textio import csv_lines
from ir.problems import InputError, Problem, Problems

TOPIC_COLUMN = "Topic"


@dataclass
class TopicInfo:
    """A topic information file: its columns (Topic first) and, per topic, column -> value."""

    columns: list[str]
    topics: dict[str, dict[str, str]]


def parse_topic_info(lines: Iterable[str], *, file: str = "", problems: Problems | None = None,
                     ends_with_line_end: bool = True) -> TopicInfo:
    """Reads a topic information CSV (a `Topic` column and any others); every bad row is a line-numbered problem.
    `problems` may hold those the text reader found already (NULs, bytes that are not UTF-8); a file that does not end
    with a line end is checked for a last field cut short (the rule of run files, `cut_short`)."""
    problems = problems if problems is not None else Problems(file)
    records = _records(csv.reader(lines, strict=True), problems)
    first = next(records, None)
    header = first[1] if first else None
    if header is None or not any(cell.strip() for cell in header):
        problems.raise_if_any()
        raise InputError(Problem(1, "the file is empty: a header with a Topic column is needed", file))
    columns = [cell.strip() for cell in header]
    if TOPIC_COLUMN not in columns:
        raise InputError(Problem(1, f"no {TOPIC_COLUMN} column in the header ({', '.join(columns)})", file))
    for column in sorted({c for c in columns if columns.count(c) > 1}):
        problems.add(1, f"the column {column} appears twice in the header")
    topic_at = columns.index(TOPIC_COLUMN)
    topics: dict[str, dict[str, str]] = {}
    seen: dict[str, int] = {}
    before: list[str] | None = None  # the row before the last
    row: list[str] = header
    line = 1
    for line, fields in records:
        before, row = row, fields
        if not any(cell.strip() for cell in fields):
            continue  # a blank line (a trailing one, say)
        if len(fields) != len(columns):
            problems.add(line, f"{len(fields)} fields, the header has {len(columns)}")
            continue
        topic = fields[topic_at].strip()
        if not topic:
            problems.add(line, "the topic is empty")
        elif topic in seen:
            problems.add(line, f"topic {topic} appears twice (first on line {seen[topic]})")
        else:
            seen[topic] = line
            cells = zip(columns, fields, strict=True)
            topics[topic] = {column: cell.strip() for column, cell in cells if column != TOPIC_COLUMN}
    if not ends_with_line_end and before is not None and before is not header and cut_short(before[-1], row[-1]):
        problems.add(line, f"the file ends inside this line: its last field '{row[-1]}' is the start of the field "
                           f"'{before[-1]}' of the line before (the file looks truncated)")
    problems.raise_if_any()
    return TopicInfo(columns=columns, topics=topics)


def _records(reader, problems: Problems) -> Iterator[tuple[int, list[str]]]:
    """(first line, fields) of every record; a quoting error (a quote not closed at the end of the file, a field
    over the csv module's limit) is reported with its line and ends the file."""
    while True:
        line = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            text = str(exc)
            if "field limit" in text:
                text = f"a field longer than {csv.field_size_limit():,} characters (a quote not closed?)"
            elif "end of data" in text:
                text = "a quoted field is not closed before the end of the file (the file looks truncated)"
            problems.add(line, f"bad CSV: {text}")
            return
        yield line, fields


def read_topic_info(path: str | os.PathLike, *, name: str | None = None) -> TopicInfo:
    """`decode_topic_info` of a file; problems name the file `name`, else the path's."""
    return decode_topic_info(Path(path).read_bytes(), name=name or Path(path).name)


def decode_topic_info(data: bytes, *, name: str = "") -> TopicInfo:
    """`parse_topic_info` of a file's bytes, read by the shared text reader (`iter_lines`: UTF-8 with or without a
    byte-order mark, as Excel writes; a NUL or bytes that are not UTF-8 are a problem with their line)."""
    problems = Problems(name)
    return parse_topic_info(csv_lines(io.BytesIO(data), problems), file=name, problems=problems,
                            ends_with_line_end=not data or data.endswith((b"\n", b"\r")))


def has_column(info: TopicInfo, column: str) -> bool:
    """Whether `column` is one of the information's columns to group by (its Topic column is not)."""
    return column in info.columns and column != TOPIC_COLUMN


def check_column(info: TopicInfo, column: str) -> None:
    """Refuses a column the topic information does not have (or its Topic column), naming those it has."""
    if not has_column(info, column):
        choices = ", ".join(c for c in info.columns if c != TOPIC_COLUMN)
        raise InputError(f"no column {column} in the topic information (columns: {choices})")

"""A topic information file (SPEC 6.2, issue 18): a CSV with a `Topic` column and any others (category, difficulty,
...), read with a line-numbered problem for every bad row, for the means by topic category of `evaluation.analysis`.
Pure Python: no Django (a campaign's stored copy is evaluation/topic_info.py's)."""
from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.errors import InputError, Problem, Problems

TOPIC_COLUMN = "Topic"


@dataclass
class TopicInfo:
    """A topic information file: its columns (Topic first) and, per topic, column -> value."""

    columns: list[str]
    topics: dict[str, dict[str, str]]


def parse_topic_info(lines: Iterable[str], *, file: str = "") -> TopicInfo:
    """Reads a topic information CSV (a `Topic` column and any others); every bad row is a line-numbered problem."""
    problems = Problems(file)
    reader = csv.reader(lines)
    header = next(reader, None)
    if header is None or not any(cell.strip() for cell in header):
        raise InputError(Problem(1, "the file is empty: a header with a Topic column is needed", file))
    columns = [cell.strip() for cell in header]
    if TOPIC_COLUMN not in columns:
        raise InputError(Problem(1, f"no {TOPIC_COLUMN} column in the header ({', '.join(columns)})", file))
    for column in sorted({c for c in columns if columns.count(c) > 1}):
        problems.add(1, f"the column {column} appears twice in the header")
    topic_at = columns.index(TOPIC_COLUMN)
    topics: dict[str, dict[str, str]] = {}
    seen: dict[str, int] = {}
    end = reader.line_num
    for row in reader:
        line, end = end + 1, reader.line_num  # where the record starts: a quoted field may span lines
        if not any(cell.strip() for cell in row):
            continue  # a blank line (a trailing one, say)
        if len(row) != len(columns):
            problems.add(line, f"{len(row)} fields, the header has {len(columns)}")
            continue
        topic = row[topic_at].strip()
        if not topic:
            problems.add(line, "the topic is empty")
        elif topic in seen:
            problems.add(line, f"topic {topic} appears twice (first on line {seen[topic]})")
        else:
            seen[topic] = line
            cells = zip(columns, row, strict=True)
            topics[topic] = {column: cell.strip() for column, cell in cells if column != TOPIC_COLUMN}
    problems.raise_if_any()
    return TopicInfo(columns=columns, topics=topics)


def read_topic_info(path: str | os.PathLike, *, name: str | None = None) -> TopicInfo:
    """`decode_topic_info` of a file; problems name the file `name`, else the path's."""
    return decode_topic_info(Path(path).read_bytes(), name=name or Path(path).name)


def decode_topic_info(data: bytes, *, name: str = "") -> TopicInfo:
    """`parse_topic_info` of a file's bytes in UTF-8 (a byte-order mark is allowed; Excel writes one)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(Problem(line, "not UTF-8 text", name)) from None
    return parse_topic_info(text.splitlines(keepends=True), file=name)


def has_column(info: TopicInfo, column: str) -> bool:
    """Whether `column` is one of the information's columns to group by (its Topic column is not)."""
    return column in info.columns and column != TOPIC_COLUMN


def check_column(info: TopicInfo, column: str) -> None:
    """Refuses a column the topic information does not have (or its Topic column), naming those it has."""
    if not has_column(info, column):
        choices = ", ".join(c for c in info.columns if c != TOPIC_COLUMN)
        raise InputError(f"no column {column} in the topic information (columns: {choices})")

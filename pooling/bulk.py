"""Bulk loading of rows into a table: PostgreSQL `COPY` fed from a generator, batched inserts elsewhere.

The rows are consumed lazily, so the reader that produces them keeps parsing while the database
server stores what it has already received: memory stays flat and the two overlap on two cores.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from itertools import islice
from typing import Any

from django.db import connection
from django.db.models import Field, Model

BATCH = 5000
# A row of column values, in the order of its columns: whatever each column's database adapter takes.
Row = Sequence[Any]
# (character, its COPY text escape); backslash first. str.translate with a table is a Python-level loop per
# character and cost a quarter of a Posts.xml ingest; `in` and replace are C scans.
_ESCAPES = (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r"))


_NEEDS_ESCAPE = re.compile("[\\\\\t\n\r\x00]").search


def copy_text(value: str) -> str:
    if _NEEDS_ESCAPE(value) is None:  # most fields: one C scan and done
        return value
    if "\x00" in value:
        # PostgreSQL's text cannot hold a NUL. The readers refuse one with its line (textio); dropping it here would
        # store '2\x00x' as '2x' without a word, so a NUL that gets this far is a bug to hear about.
        raise ValueError("a NUL character cannot be stored in a text column")
    for char, escaped in _ESCAPES:
        if char in value:
            value = value.replace(char, escaped)
    return value


NULL = "\\N"


def copy_value(value: object) -> str:
    """One field in PostgreSQL's COPY text format."""
    if value is None:
        return NULL
    if isinstance(value, str):
        return copy_text(value)
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


class _LineStream(io.RawIOBase):
    """A read-only binary file over an iterator of text lines, for psycopg2's copy_expert."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self._buffer = b""

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        want = size if size and size > 0 else 1 << 16
        parts = [self._buffer]
        have = len(self._buffer)
        for line in self._lines:
            data = line.encode("utf-8")
            parts.append(data)
            have += len(data)
            if have >= want:
                break
        data = b"".join(parts)
        self._buffer = data[want:]
        return data[:want]


def bulk_insert(model: type[Model], columns: Sequence[str], rows: Iterable[Row], *,
                use_copy: bool | None = None, copy_line: Callable[[Row], str] | None = None) -> int:
    """Inserts the rows (tuples in `columns` order) into the model's table; returns how many.

    `use_copy` defaults to COPY on PostgreSQL and batched inserts elsewhere. `copy_line` formats one row as
    a line of COPY text (with its newline) faster than the generic formatting can, for a hot path.
    """
    table = model._meta.db_table
    db_columns: list[str] = []
    datetimes: list[int] = []  # the positions of datetime columns
    for i, name in enumerate(columns):
        field = model._meta.get_field(name)
        assert isinstance(field, Field) and field.column is not None, f"{name} is not a column of {table}"
        db_columns.append(field.column)
        if field.get_internal_type() == "DateTimeField":
            datetimes.append(i)
    if use_copy is None:
        use_copy = connection.vendor == "postgresql"
    if use_copy:
        return _copy(table, db_columns, rows, copy_line)
    if datetimes:
        rows = _adapt_datetimes(rows, datetimes)
    return _executemany(table, db_columns, rows)


def insert_rows(table: str, columns: Sequence[str], rows: Iterable[Row], *,
                copy_line: Callable[[Row], str] | None = None) -> int:
    """Bulk insert into a table that has no model (a temporary table of a check); `copy_line` as bulk_insert's."""
    if connection.vendor == "postgresql":
        return _copy(table, list(columns), rows, copy_line)
    return _executemany(table, list(columns), rows)


def _adapt_datetimes(rows: Iterable[Row], indexes: list[int]) -> Iterator[list[Any]]:
    adapt = connection.ops.adapt_datetimefield_value
    for row in rows:
        row = list(row)
        for i in indexes:
            row[i] = adapt(row[i])
        yield row


def copy_line_of(row: Row) -> str:
    return "\t".join(map(copy_value, row)) + "\n"


def _copy(table: str, columns: list[str], rows: Iterable[Row], copy_line: Callable[[Row], str] | None = None) -> int:
    count = 0
    format_row = copy_line or copy_line_of

    def lines() -> Iterator[str]:
        nonlocal count
        for row in rows:
            count += 1
            yield format_row(row)

    qn = connection.ops.quote_name
    sql = f"COPY {qn(table)} ({', '.join(qn(c) for c in columns)}) FROM STDIN"
    # wrap_database_errors turns psycopg2's errors into Django's (IntegrityError for a repeated id).
    with connection.cursor() as cursor, connection.wrap_database_errors:
        cursor.cursor.copy_expert(sql, _LineStream(lines()), size=1 << 16)
    return count


def _executemany(table: str, columns: list[str], rows: Iterable[Row]) -> int:
    qn = connection.ops.quote_name
    sql = (f"INSERT INTO {qn(table)} ({', '.join(qn(c) for c in columns)}) "
           f"VALUES ({', '.join(['%s'] * len(columns))})")
    count = 0
    iterator = iter(rows)
    with connection.cursor() as cursor:
        while batch := list(islice(iterator, BATCH)):
            cursor.executemany(sql, batch)
            count += len(batch)
    return count

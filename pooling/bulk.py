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
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import Field, Model, QuerySet

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


# -- statements the ORM cannot say, each for any model: the one place outside the job runner that writes SQL by hand


def analyze(models: Iterable[type[Model]]) -> None:
    """Fresh planner statistics after a bulk load (PostgreSQL; nothing elsewhere): without them PostgreSQL takes a
    table of a million rows for an empty one."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


def rows_delete(rows: QuerySet) -> int:
    """Deletes the rows of a query in one statement, without reading them first as QuerySet.delete does (to send
    signals and follow relations): for rows no signal listens to and no relation reaches but those the caller
    deleted already. Returns how many."""
    meta = rows.model._meta
    qn = connection.ops.quote_name
    assert meta.pk is not None
    select, params = rows.order_by().values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {qn(meta.db_table)} WHERE {qn(meta.pk.column)} IN ({select})", params)
        return max(cursor.rowcount, 0)


def _column(model: type[Model], name: str) -> str:
    field = model._meta.get_field(name)
    assert isinstance(field, Field) and field.column is not None, f"{name} is not a column of {model.__name__}"
    return connection.ops.quote_name(field.column)


class Found(NamedTuple):
    """Rows a check found, the first `limit` of them (line, key, other), and how many there are in all."""
    rows: list[tuple[int, str, int]]
    total: int


def _found(cursor, select: str, count: str, params: list, limit: int) -> Found:
    cursor.execute(f"{select} LIMIT {int(limit)}", params)
    rows = cursor.fetchall()
    if len(rows) < limit:
        return Found(rows, len(rows))
    cursor.execute(count, params)
    return Found(rows, cursor.fetchone()[0])


def keys_repeated(lines: Iterable[tuple[int, str]], *, model: type[Model], key: str, scope: str, scope_value: int,
                  limit: int) -> tuple[Found, Found]:
    """The keys of (line, key) rows repeated among them, as (line, key, its first line) in line order, and those the
    model's rows of the scope hold already, as (line, key, 0). The rows go into a temporary table and the database
    finds both, so the check streams: nothing is held in memory."""
    table, key_column, scope_column = connection.ops.quote_name(model._meta.db_table), _column(model, key), \
        _column(model, scope)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bulk_keys")
        cursor.execute("CREATE TEMPORARY TABLE bulk_keys (line bigint, item_id varchar(64))")
        insert_rows("bulk_keys", ["line", "item_id"], lines)
        cursor.execute("CREATE INDEX bulk_keys_item ON bulk_keys (item_id)")
        repeated = ("FROM bulk_keys d JOIN (SELECT item_id, MIN(line) AS first FROM bulk_keys GROUP BY item_id "
                    "HAVING COUNT(*) > 1) f ON f.item_id = d.item_id WHERE d.line > f.first")
        twice = _found(cursor, f"SELECT d.line, d.item_id, f.first {repeated} ORDER BY d.line",
                       f"SELECT COUNT(*) {repeated}", [], limit)
        existing = f"FROM bulk_keys d JOIN {table} t ON t.{scope_column} = %s AND t.{key_column} = d.item_id"
        there = _found(cursor, f"SELECT d.line, d.item_id, 0 {existing} ORDER BY d.line",
                       f"SELECT COUNT(*) {existing}", [scope_value], limit)
        cursor.execute("DROP TABLE bulk_keys")
    return twice, there


def columns_update(values: Iterable[tuple[str, str, str]], *, model: type[Model], key: str, scope: str,
                   scope_value: int, columns: Sequence[str], write: Callable[[], bool]) -> tuple[int, int]:
    """Sets text columns of rows already stored from (key, column name, value) rows, through a temporary table and
    one UPDATE per column. `write` is asked once every value is read (reading them may find problems): when it says
    no, nothing is written. Returns the columns set, and how many keys the scope's rows do not have (0 when nothing
    was written)."""
    table, key_column, scope_column = connection.ops.quote_name(model._meta.db_table), _column(model, key), \
        _column(model, scope)
    updated = missing = 0
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bulk_values")
        cursor.execute("CREATE TEMPORARY TABLE bulk_values (item_id varchar(64), kind varchar(16), value text)")
        insert_rows("bulk_values", ["item_id", "kind", "value"], values)
        if write():
            cursor.execute("CREATE INDEX bulk_values_id ON bulk_values (item_id)")
            for name in columns:
                cursor.execute(
                    f"UPDATE {table} SET {_column(model, name)} = e.value FROM bulk_values e "
                    f"WHERE e.kind = %s AND {table}.{scope_column} = %s AND {table}.{key_column} = e.item_id",
                    [name, scope_value])
                updated += max(cursor.rowcount, 0)
            cursor.execute(f"SELECT COUNT(DISTINCT e.item_id) FROM bulk_values e WHERE NOT EXISTS (SELECT 1 FROM "
                           f"{table} f WHERE f.{scope_column} = %s AND f.{key_column} = e.item_id)", [scope_value])
            missing = cursor.fetchone()[0]
        cursor.execute("DROP TABLE bulk_values")
    return updated, missing


def stamps_upsert(marks: Iterable[tuple[tuple[int, str], bool]], *, model: type[Model], keys: tuple[str, str],
                  first: str, done: str, zero: Sequence[str], at: datetime) -> dict[tuple[int, str], datetime]:
    """PostgreSQL: a row of the model for each (bigint, text) key of `marks`, stamped `at` in `first` (and in `done`
    when its mark is true), `zero` columns 0. A row already there keeps its `first`, and takes `done` only where it has
    none. Returns the `first` of the rows already there whose time is not `at`.

    The thousands go by COPY into a temporary table, then one INSERT ... ON CONFLICT, which the ORM cannot say:
    bulk_create builds a model object per row and can neither keep a `done` time (COALESCE) nor return the `first`
    ones."""
    table = connection.ops.quote_name(model._meta.db_table)
    a, i = _column(model, keys[0]), _column(model, keys[1])
    stamped, completed = _column(model, first), _column(model, done)
    zeros = [_column(model, name) for name in zero]
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE bulk_marks (a bigint, i varchar(64), c boolean)")
        insert_rows("bulk_marks", ["a", "i", "c"], marks,
                    copy_line=lambda r: f"{r[0][0]}\t{copy_text(r[0][1])}\t{'t' if r[1] else 'f'}\n")
        # Only the rows there before come back: the thousands just made hold `at`.
        cursor.execute(
            f"WITH w AS (INSERT INTO {table} AS v ({a}, {i}, {stamped}, {completed}"
            + "".join(f", {z}" for z in zeros) + ") SELECT a, i, %s, CASE WHEN c THEN %s::timestamptz END"
            + ", 0" * len(zeros) + f" FROM bulk_marks ON CONFLICT ({a}, {i}) DO UPDATE SET {completed} = "
            f"COALESCE(v.{completed}, EXCLUDED.{completed}) RETURNING {a}, {i}, {stamped}) "
            f"SELECT * FROM w WHERE {stamped} <> %s",
            [at, at, at])
        shown = {(key, item): stamp for key, item, stamp in cursor.fetchall()}
        cursor.execute("DROP TABLE bulk_marks")
    return shown

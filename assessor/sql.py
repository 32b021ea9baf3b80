"""The pieces of the judging requests' written-out SQL: table names and column lists from the models, model
instances from rows and datetime parameters as the ORM makes them. Built once per process where they can be."""
from __future__ import annotations

import functools
from datetime import datetime

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Model
from django.utils import timezone


@functools.cache
def table(model: type[Model]) -> str:
    """The model's table name (Model._meta.db_table), quoted for the database."""
    return connection.ops.quote_name(model._meta.db_table)


@functools.cache
def sql_columns(model: type[Model], alias: str, names: tuple[str, ...] | None = None) -> tuple[str, tuple]:
    """The select list of a model's columns (all, or those of `names`) under a table alias, and their fields in
    that order."""
    fields = tuple(f for f in model._meta.concrete_fields if names is None or f.attname in names)
    return ", ".join(f"{alias}.{connection.ops.quote_name(f.column)}" for f in fields), fields


@functools.cache
def _conversions(fields: tuple) -> tuple[list[str], tuple]:
    """The attribute names of `fields`, and the ORM's converters of those that need one (none on PostgreSQL for
    these columns; SQLite's datetimes do)."""
    converters = []
    for n, f in enumerate(fields):
        found = connection.ops.get_db_converters(f.cached_col) + f.get_db_converters(connection)
        if found:
            converters.append((n, f.cached_col, tuple(found)))
    return [f.attname for f in fields], tuple(converters)


def sql_instance(model: type[Model], fields: tuple, values) -> Model:
    """A model instance from raw column values of `fields` (from sql_columns), converted as the ORM would."""
    names, converters = _conversions(fields)
    if converters:
        values = list(values)
        for n, column, convert_all in converters:
            for convert in convert_all:
                values[n] = convert(values[n], column, connection)
    return model.from_db(DEFAULT_DB_ALIAS, names, values)


def db_datetime(value: datetime | None):
    """A datetime parameter as the ORM passes it: unchanged on PostgreSQL; on SQLite naive UTC text, so that the
    ORM's own lookups on the column still match (a raw aware datetime is stored with '+00:00')."""
    return connection.ops.adapt_datetimefield_value(value)


def db_now():
    """timezone.now() as a datetime parameter (db_datetime)."""
    return db_datetime(timezone.now())

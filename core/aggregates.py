"""SQL the ORM lacks, on PostgreSQL and SQLite both: the median as an aggregate, seconds between two times and a
time's seconds since 1970."""
from __future__ import annotations

import statistics

from django.db.backends.signals import connection_created
from django.db.models import Aggregate, FloatField, Func


class Median(Aggregate):
    """The median of the non-null values (the mean of the two middle ones for an even count, as statistics.median)."""

    function = "PERCENTILE_CONT"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def as_sqlite(self, compiler, connection, **extra_context):
        median = self.copy()  # MEDIAN is registered on each SQLite connection below
        median.function, median.template = "MEDIAN", Aggregate.template
        return median.as_sql(compiler, connection, **extra_context)


class Seconds(Func):
    """Seconds from the first time to the second, as a float."""

    arity = 2
    output_field = FloatField()
    # julianday() is a float of days: about 20 microseconds off, so rounded to the millisecond it keeps.
    template = "ROUND((julianday(%(later)s) - julianday(%(earlier)s)) * 86400.0, 3)"

    def as_sql(self, compiler, connection, function=None, template=None, arg_joiner=None, **extra_context):
        (earlier, params_a), (later, params_b) = (compiler.compile(e) for e in self.get_source_expressions())
        return (template or self.template) % {"earlier": earlier, "later": later}, (*params_b, *params_a)

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, template="EXTRACT(EPOCH FROM %(later)s - %(earlier)s)::float8")


class Epoch(Func):
    """A time's seconds since 1970 as a float: PostgreSQL's date_part, a float, not EXTRACT's numeric (which took
    twice as long over the 15,000 visits of a full campaign)."""

    arity = 1
    output_field = FloatField()
    template = "date_part('epoch', %(expressions)s)"

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, template="((julianday(%(expressions)s) - 2440587.5) * 86400.0)",
                           **extra_context)


class _SqliteMedian:
    def __init__(self) -> None:
        self.values: list[float] = []

    def step(self, value: float | None) -> None:
        if value is not None:
            self.values.append(value)

    def finalize(self) -> float | None:
        return statistics.median(self.values) if self.values else None


def _sqlite_functions(sender, connection, **kwargs) -> None:
    if connection.vendor == "sqlite":
        connection.connection.create_aggregate("MEDIAN", 1, _SqliteMedian)


connection_created.connect(_sqlite_functions, dispatch_uid="core.aggregates.sqlite_functions")

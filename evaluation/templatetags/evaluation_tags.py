"""Score formatting for the leaderboard pages."""
import math

from django import template

from ir.prime import REPORTED, format_value
from ir.statistics import format_p
from ir.task3_measures import TASK3_REPORTED
from nuggets.scores import nugget_columns

register = template.Library()


@register.filter
def measures(values: dict, table: str = "") -> list:
    """The values of the leaderboard's columns, in column order; None where a topic has no such value. `table`
    "task3": the columns of ARQMath-3 Task 3 runs (AR, P@1, LO)."""
    return [values.get(name) for name in (TASK3_REPORTED if table == "task3" else REPORTED)]


register.filter("score", format_value)
register.filter("nugget_columns", nugget_columns)


@register.filter
def nugget_values(values: dict, measures: list) -> list:
    """A run's values of the leaderboard's nugget and support columns (`nugget_columns` of the evaluation's
    measures), None where it has none."""
    return [values.get(name) for name in nugget_columns(measures)]

LABELS = {"ndcg_prime": "nDCG′", "map_prime": "MAP′", "p10_prime": "P′@10", "unjudged_10": "Unjudged@10"}


@register.filter
def measure_label(name: str) -> str:
    """A measure as the pages name it: the prime ones with their prime mark, any other by its ir_measures name."""
    return LABELS.get(name, name)


@register.filter
def signed(value: float | None) -> str:
    """A difference with its sign and trec_eval's four decimals."""
    return "n/a" if value is None or math.isnan(value) else f"{value:+.4f}"


@register.filter
def p_value(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else format_p(value)


@register.filter
def breakdown(categories: dict, run: str) -> list:
    """A run's means per group, in the groups' order (None for a group it has no mean for)."""
    groups: dict = next(iter(categories.values()), {})
    return [categories.get(run, {}).get(group) for group in groups]


@register.filter
def of_run(means: dict, run: str) -> float | None:
    """A run's value in a run -> value dict (None when it has none)."""
    return means.get(run)


@register.filter
def thousands(number: int) -> str:
    return f"{number:,}"

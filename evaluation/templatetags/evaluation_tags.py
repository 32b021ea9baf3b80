"""Score formatting for the leaderboard pages."""
from django import template

from evaluation.answers import TASK3_REPORTED
from evaluation.prime import REPORTED, format_value

register = template.Library()


@register.filter
def measures(values: dict, table: str = "") -> list:
    """The values of the leaderboard's columns, in column order; None where a topic has no such value. `table`
    "task3": the columns of ARQMath-3 Task 3 runs (AR, P@1, LO)."""
    return [values.get(name) for name in (TASK3_REPORTED if table == "task3" else REPORTED)]


register.filter("score", format_value)

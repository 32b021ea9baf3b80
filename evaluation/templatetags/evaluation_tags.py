"""Score formatting for the leaderboard pages."""
from django import template

from evaluation.prime import REPORTED, format_value

register = template.Library()


@register.filter
def measures(values: dict) -> list:
    """The values of the leaderboard's columns, in column order; None where a topic has no such value."""
    return [values.get(name) for name in REPORTED]


register.filter("score", format_value)

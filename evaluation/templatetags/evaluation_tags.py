"""Score formatting for the leaderboard pages."""
from django import template

from evaluation.prime import MEASURES, UNJUDGED

register = template.Library()


@register.filter
def measures(values: dict) -> list:
    """The values of the leaderboard's columns, in column order; None where a topic has no such value."""
    return [values.get(name) for name in (*MEASURES, UNJUDGED)]


@register.filter
def score(value) -> str:
    return "n/a" if value is None else f"{value:.4f}"

"""Score formatting for the leaderboard pages."""
from django import template

from evaluation.prime import REPORTED, format_value

register = template.Library()


@register.filter
def measures(values: dict) -> list:
    """The values of the leaderboard's columns, in column order; None where a topic has no such value."""
    return [values.get(name) for name in REPORTED]


register.filter("score", format_value)

LABELS = {"ndcg_prime": "nDCG′", "map_prime": "MAP′", "p10_prime": "P′@10", "unjudged_10": "Unjudged@10"}


@register.filter
def measure_label(name: str) -> str:
    """A measure as the pages name it: the prime ones with their prime mark, any other by its ir_measures name."""
    return LABELS.get(name, name)

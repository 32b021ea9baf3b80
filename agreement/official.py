"""Which grade of a unit is the official one: the rule the qrels export (evaluation/selectors.py) and the LLM's
agreement with the official qrels (assessor/llm_review.py) both read. A unit is (item id, formula id) within a topic.
"""
from __future__ import annotations

from datetime import UTC, datetime

from django.db.models import Max, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from agreement.models import Adjudication
from judging.models import Assignment, Judgment
from pooling.models import Campaign

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def official_judgments(*, campaign: Campaign):
    """Every judgment of the campaign's official assignments, withdrawn ones included (see `unit_grades`)."""
    return Judgment.objects.filter(assignment__campaign=campaign, assignment__kind=Assignment.Kind.OFFICIAL)


def official_stamp_columns(*, campaign: Campaign) -> tuple[Coalesce, Subquery]:
    """The official judgments' revision numbers summed and when one last changed, as expressions over the campaign's
    row: the judgments' part of every cache stamp that reads them (evaluation's scores, the progress page's 'When to
    stop'). A new judgment (revision 1) or a revision adds one to the sum, a judgment removed takes its number off;
    unlike a count with the latest time, the sum also sees a revision that commits after a later submit of another
    topic (its time is not the latest)."""
    rows = official_judgments(campaign=campaign).order_by().values("assignment__campaign")
    return (Coalesce(Subquery(rows.annotate(summed=Sum("revision")).values("summed")[:1]), Value(0)),
            Subquery(rows.annotate(last=Max("updated_at")).values("last")[:1]))


def official_adjudications(*, campaign: Campaign):
    """The dual assessment's adjudicated grades recorded as official: each one is its unit's grade in the official
    qrels, in place of the official assessor's (whose judgment stays as it was)."""
    return Adjudication.objects.filter(campaign=campaign, kind=Assignment.Kind.DUAL, official=True)


def official_overrides(campaign: Campaign) -> dict[int, dict[tuple[str, str], str]]:
    """topic pk -> (item, instance) -> the official adjudicated grade."""
    overrides: dict[int, dict[tuple[str, str], str]] = {}
    for topic_pk, item_id, formula_id, grade in official_adjudications(campaign=campaign).values_list(
            "topic_id", "item_id", "formula_id", "grade"):
        overrides.setdefault(topic_pk, {})[(item_id, formula_id)] = grade
    return overrides


def unit_grades(rows) -> dict[tuple[str, str], str]:
    """(item, instance) -> grade from a topic's official (withdrawn_at, item, instance, grade) rows, the topic's
    current official assessor first: a unit they judged (even SF or DK) is theirs; a unit only withdrawn assessors
    judged keeps the grade of the latest withdrawn one."""
    chosen: dict[tuple[str, str], tuple[tuple, str]] = {}
    for withdrawn_at, item_id, formula_id, grade in rows:
        rank = (withdrawn_at is None, withdrawn_at or EPOCH)
        unit = (item_id, formula_id)
        if unit not in chosen or rank > chosen[unit][0]:
            chosen[unit] = (rank, grade)
    return {unit: grade for unit, (_rank, grade) in chosen.items()}


def official_unit_grades(*, campaign: Campaign) -> dict[tuple[str, str, str], str]:
    """(topic id, item id, formula id) -> the official grade of every officially judged unit, as given ('3'..'0',
    'SF', 'DK'), official adjudicated grades in place of the official assessor's."""
    by_topic: dict[str, list[tuple]] = {}
    for topic_id, *row in official_judgments(campaign=campaign).order_by().values_list(
            "assignment__topic__topic_id", "assignment__withdrawn_at", "item_id", "formula_id", "grade"):
        by_topic.setdefault(topic_id, []).append(row)
    overrides: dict[str, dict[tuple[str, str], str]] = {}
    for topic_id, item_id, formula_id, grade in official_adjudications(campaign=campaign).values_list(
            "topic__topic_id", "item_id", "formula_id", "grade"):
        overrides.setdefault(topic_id, {})[(item_id, formula_id)] = grade
    result = {}
    for topic_id in by_topic.keys() | overrides.keys():
        for (item_id, formula_id), grade in {**unit_grades(by_topic.get(topic_id, [])),
                                             **overrides.get(topic_id, {})}.items():
            result[(topic_id, item_id, formula_id)] = grade
    return result

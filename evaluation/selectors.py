"""Reads for qrels and evaluation: a campaign's official judgments as qrels, and its runs' rows."""
from __future__ import annotations

import hashlib
from collections.abc import Iterator

from django.db import connection
from django.db.models import Count, IntegerField, Max
from django.db.models.functions import Cast

from assessor.models import Assignment, Grade, Judgment
from pooling.models import Campaign, Formula, Run, RunEntry, Topic

from .prime import Qrels, natural_key

VISUAL, INSTANCE = "visual", "instance"
LEVELS = (VISUAL, INSTANCE)
# SF and DK are not grades: their items count as unjudged, never as 0 (SPEC 6.1).
NUMERIC_GRADES = (Grade.HIGH, Grade.MEDIUM, Grade.LOW, Grade.NOT_RELEVANT)
CHUNK = 20_000


def official_judgments(*, campaign: Campaign):
    """The judgments that make the qrels: of the campaign's active official assignments, with a grade 0-3.

    A withdrawn official assignment keeps its judgments, but they are no longer the topic's official ones."""
    return Judgment.objects.filter(assignment__campaign=campaign, assignment__kind=Assignment.Kind.OFFICIAL,
                                   assignment__withdrawn_at__isnull=True, grade__in=NUMERIC_GRADES)


def qrels_by_topic(*, campaign: Campaign, level: str = VISUAL) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """(topic id, [(item id, grade), ...]) for every topic with official judgments, topics and items in natural
    order. Answers: one row per post. Formulas: per visual id, the highest grade of its judged instances
    (`level="visual"`), or one row per judged instance (`level="instance"`).

    One query per topic: memory holds one topic's judgments, whatever the size of the campaign."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    judgments = official_judgments(campaign=campaign)
    judged_topics = set(judgments.values_list("assignment__topic_id", flat=True).distinct())
    topics = sorted(Topic.objects.filter(pk__in=judged_topics).values_list("pk", "topic_id"),
                    key=lambda pair: natural_key(pair[1]))
    grade = Cast("grade", IntegerField())
    for topic_pk, topic_id in topics:
        of_topic = judgments.filter(assignment__topic_id=topic_pk)
        if campaign.task == Campaign.Task.ANSWERS:
            rows = of_topic.values_list("item_id").annotate(value=grade)
        elif level == INSTANCE:
            rows = of_topic.values_list("formula_id").annotate(value=grade)
        else:
            rows = of_topic.values_list("item_id").annotate(value=Max(grade))
        yield topic_id, sorted(rows, key=lambda row: natural_key(row[0]))


def qrels_topic_counts(*, campaign: Campaign, level: str = VISUAL) -> list[tuple[str, int, int]]:
    """(topic id, judged items, items of grade >= 2) per topic with official judgments, in natural order: what
    the minimum-relevant filter of the qrels export looks at."""
    return [(topic_id, len(rows), sum(1 for _item, grade in rows if grade >= 2))
            for topic_id, rows in qrels_by_topic(campaign=campaign, level=level)]


def campaign_qrels(*, campaign: Campaign) -> Qrels:
    """The campaign's qrels as evaluation reads them: posts (answers) or visual ids (formulas)."""
    return {topic_id: dict(rows) for topic_id, rows in qrels_by_topic(campaign=campaign, level=VISUAL)}


def judgments_stamp(*, campaign: Campaign) -> tuple:
    """Changes whenever the campaign's qrels or runs may have changed: the key of its cached scores. A judgment
    revised, added, or leaving the qrels with its withdrawn assignment changes the count or the latest update."""
    official = official_judgments(campaign=campaign).aggregate(count=Count("pk"), last=Max("updated_at"))
    runs = tuple(Run.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "created_at"))
    return official["count"], official["last"], runs


def scores_version(*, campaign: Campaign) -> tuple[int, str]:
    """(official judgments, a short digest of `judgments_stamp`): pages compare digests to see a change."""
    stamp = judgments_stamp(campaign=campaign)
    return stamp[0], hashlib.sha256(repr(stamp).encode()).hexdigest()[:32]


def run_rows(*, run: Run) -> Iterator[tuple[str, str | None, float]]:
    """A stored run's rows for the prime filter, in rank order (the order of the file, for a file in rank order).

    Answers: (topic id, post id, score). Formulas: (topic id, visual id of the instance or None, score)."""
    topic_ids = dict(Topic.objects.filter(campaign_id=run.campaign_id).values_list("pk", "topic_id"))
    campaign = run.campaign
    if campaign.task == Campaign.Task.ANSWERS:
        rows = (RunEntry.objects.filter(run=run).order_by("topic_id", "rank", "item_id")
                .values_list("topic_id", "item_id", "score").iterator(chunk_size=CHUNK))
        for topic_pk, item_id, score in rows:
            yield topic_ids[topic_pk], item_id, score
        return
    # Formulas: each instance's visual id from the collection's formula index, in the same query.
    entry, formula = RunEntry._meta.db_table, Formula._meta.db_table
    sql = (f"SELECT e.topic_id, f.visual_id, e.score FROM {entry} e "
           f"LEFT JOIN {formula} f ON f.collection_id = %s AND f.formula_id = e.item_id "
           f"WHERE e.run_id = %s ORDER BY e.topic_id, e.rank, e.item_id")
    with connection.chunked_cursor() as cursor:  # server-side on PostgreSQL: memory holds one chunk
        cursor.execute(sql, [campaign.collection_id or 0, run.pk])
        while chunk := cursor.fetchmany(CHUNK):
            for topic_pk, visual_id, score in chunk:
                yield topic_ids[topic_pk], visual_id or None, score

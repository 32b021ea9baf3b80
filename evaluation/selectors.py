"""Reads for qrels and evaluation: a campaign's official judgments as qrels, and its runs' rows."""
from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from datetime import UTC, datetime

from django.db import connection, transaction
from django.db.models import Count, Max

from assessor.models import GRADE_VALUES, Assignment, Judgment
from pooling.models import Campaign, Formula, Run, RunEntry, Topic
from pooling.services.pools import visual_id_resolver

from .prime import Qrels, natural_key

VISUAL, INSTANCE = "visual", "instance"
LEVELS = (VISUAL, INSTANCE)
CHUNK = 20_000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def official_judgments(*, campaign: Campaign):
    """Every judgment of the campaign's official assignments, withdrawn ones included (see `qrels_by_topic`)."""
    return Judgment.objects.filter(assignment__campaign=campaign, assignment__kind=Assignment.Kind.OFFICIAL)


def _unit_grades(rows) -> dict[tuple[str, str], str]:
    """(item, instance) -> grade, the topic's current official assessor first: a unit they judged (even SF or DK)
    is theirs; a unit only withdrawn assessors judged keeps the grade of the latest withdrawn one."""
    chosen: dict[tuple[str, str], tuple[tuple, str]] = {}
    for withdrawn_at, item_id, formula_id, grade in rows:
        rank = (withdrawn_at is None, withdrawn_at or EPOCH)
        unit = (item_id, formula_id)
        if unit not in chosen or rank > chosen[unit][0]:
            chosen[unit] = (rank, grade)
    return {unit: grade for unit, (_rank, grade) in chosen.items()}


def qrels_by_topic(*, campaign: Campaign, level: str = VISUAL) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """(topic id, [(item id, grade), ...]) for every topic with official judgments, topics and items in natural
    order; SF and DK left out. Answers: one row per post. Formulas: per visual id, the highest grade of its judged
    instances (`level="visual"`), or one row per judged instance (`level="instance"`).

    A topic handed from one official assessor to another (the first assignment withdrawn) keeps the first one's
    grades for the units the second has not judged: nothing submitted is lost by reassignment (SPEC 5.3).
    One query per topic: memory holds one topic's judgments, whatever the size of the campaign."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    judgments = official_judgments(campaign=campaign)
    judged_topics = set(judgments.filter(grade__in=GRADE_VALUES).values_list("assignment__topic_id", flat=True)
                        .distinct())
    topics = sorted(Topic.objects.filter(pk__in=judged_topics).values_list("pk", "topic_id"),
                    key=lambda pair: natural_key(pair[1]))
    for topic_pk, topic_id in topics:
        grades = _topic_grades(campaign, level, judgments.filter(assignment__topic_id=topic_pk).values_list(
            "assignment__withdrawn_at", "item_id", "formula_id", "grade"))
        if grades:
            yield topic_id, sorted(grades.items(), key=lambda row: natural_key(row[0]))


def _topic_grades(campaign: Campaign, level: str, rows) -> dict[str, int]:
    """One topic's item -> grade from its official judgments' (withdrawn_at, item, formula, grade) rows."""
    grades: dict[str, int] = {}
    for (item_id, formula_id), grade in _unit_grades(rows).items():
        if grade not in GRADE_VALUES:  # SF and DK: unjudged, never 0 (SPEC 6.1)
            continue
        if campaign.task == Campaign.Task.FORMULAS and level == INSTANCE:
            grades[formula_id] = GRADE_VALUES[grade]
        else:
            grades[item_id] = max(grades.get(item_id, 0), GRADE_VALUES[grade])
    return grades


def qrels_topic_counts(*, campaign: Campaign, level: str = VISUAL) -> list[tuple[str, int, int]]:
    """(topic id, judged items, items of grade >= 2) per topic with official judgments, in natural order: what
    the minimum-relevant filter of the qrels export looks at."""
    return [(topic_id, len(rows), sum(1 for _item, grade in rows if grade >= 2))
            for topic_id, rows in qrels_by_topic(campaign=campaign, level=level)]


def qrels_row_count(*, campaign: Campaign, level: str = VISUAL) -> int:
    """How many lines the qrels export writes at `level` (without a minimum-relevant filter): its own selection,
    `qrels_by_topic`, counted. What the leaderboard calls the official judgments (formulas: with the instances)."""
    return sum(len(rows) for _topic, rows in qrels_by_topic(campaign=campaign, level=level))


def campaign_qrels(*, campaign: Campaign) -> Qrels:
    """The campaign's qrels as evaluation reads them: posts (answers) or visual ids (formulas); what
    `qrels_by_topic` gives, in its order, from one query (evaluation holds every topic's judgments anyway)."""
    by_topic: dict[int, list[tuple]] = {}
    for topic_pk, *row in official_judgments(campaign=campaign).values_list(
            "assignment__topic_id", "assignment__withdrawn_at", "item_id", "formula_id", "grade"
    ).iterator(chunk_size=CHUNK):
        by_topic.setdefault(topic_pk, []).append(row)
    names = dict(Topic.objects.filter(pk__in=by_topic).values_list("pk", "topic_id"))
    qrels: dict[str, dict[str, int]] = {}
    for topic_pk in sorted(by_topic, key=lambda pk: natural_key(names[pk])):
        grades = _topic_grades(campaign, VISUAL, by_topic[topic_pk])
        if grades:
            qrels[names[topic_pk]] = dict(sorted(grades.items(), key=lambda row: natural_key(row[0])))
    return qrels


def judgments_stamp(*, campaign: Campaign) -> tuple:
    """Changes whenever the campaign's qrels or scores may have changed: the key of its cached scores. A judgment
    added or revised (the count or the latest update), an official assignment withdrawn or revived, a run added
    or removed, formulas added to the collection (Task 2 maps runs through them)."""
    official = official_judgments(campaign=campaign).aggregate(count=Count("pk"), last=Max("updated_at"))
    assignments = tuple(Assignment.objects.filter(campaign=campaign, kind=Assignment.Kind.OFFICIAL)
                        .order_by("pk").values_list("pk", "withdrawn_at"))
    runs = tuple(Run.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "created_at"))
    formulas = campaign.collection.formula_count if campaign.collection_id else 0
    return official["count"], official["last"], assignments, runs, formulas


def scores_version(*, campaign: Campaign) -> tuple[int, str]:
    """(official judgments, a short digest of `judgments_stamp`): pages compare digests to see a change."""
    stamp = judgments_stamp(campaign=campaign)
    return stamp[0], hashlib.sha256(repr(stamp).encode()).hexdigest()[:32]


def campaign_topic_ids(*, campaign: Campaign) -> dict[int, str]:
    return dict(Topic.objects.filter(campaign=campaign).values_list("pk", "topic_id"))


def run_text_available() -> bool:
    """Whether `run_text` gives runs as text here: on PostgreSQL (COPY), not on another database."""
    return connection.vendor == "postgresql"


def run_text(*, run: Run) -> bytes | None:
    """A stored answer run as the text of a Task 1 run file (`topic item rank score tag`, tab-separated), written by
    PostgreSQL's COPY: what evaluation's whole-file reader takes. Scores are written with every digit they need
    (`extra_float_digits`), so each reads back as the same double. Rows come in the order the table keeps them
    (for a run loaded by COPY, the file's), not sorted: a sort would double the query's time, and the reader takes
    rows in any order (a (topic, item) is stored once, so no row is a repeat whose place would matter). None on
    another database. A TREC run's rank 0 is written as 1 (the Task 1 shape ranks from 1; the reader orders by score,
    not rank)."""
    if not run_text_available():
        return None
    entry, topic = RunEntry._meta.db_table, Topic._meta.db_table
    sql = (f"COPY (SELECT t.topic_id, e.item_id, GREATEST(e.rank, 1), e.score, 'run' FROM {entry} e "
           f"JOIN {topic} t ON t.id = e.topic_id WHERE e.run_id = {int(run.pk)}) TO STDOUT")
    out = io.BytesIO()
    # In a transaction (a savepoint inside the caller's): a COPY that fails takes the setting with it when it rolls
    # back, and nothing runs after it in the aborted transaction to hide its error. A setting made LOCAL lasts to
    # the end of the outermost transaction, so after a COPY that succeeds the caller's value is put back.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SHOW extra_float_digits")
        previous = cursor.fetchone()[0]
        cursor.execute("SET LOCAL extra_float_digits = 3")
        with connection.wrap_database_errors:  # Django's error types, as from execute()
            cursor.copy_expert(sql, out)
        cursor.execute("SELECT set_config('extra_float_digits', %s, true)", [previous])
    return out.getvalue()


def run_rows(*, run: Run, campaign: Campaign, topic_ids: dict[int, str]) -> Iterator[tuple[str, str | None, float]]:
    """A stored run's rows for the prime filter, in rank order (the order of the file, for a file in rank order).

    Answers: (topic id, post id, score). Formulas: (topic id, visual id of the instance, score), the visual id
    given as the pools give it (`visual_id_resolver`): what assessors judged is what the run is scored on."""
    if campaign.task == Campaign.Task.ANSWERS:
        rows = (RunEntry.objects.filter(run=run).order_by("topic_id", "rank", "item_id")
                .values_list("topic_id", "item_id", "score").iterator(chunk_size=CHUNK))
        for topic_pk, item_id, score in rows:
            yield topic_ids[topic_pk], item_id, score
        return
    resolve = visual_id_resolver(campaign)
    entry, formula = RunEntry._meta.db_table, Formula._meta.db_table
    sql = (f"SELECT e.topic_id, e.item_id, f.visual_id, e.score FROM {entry} e "
           f"LEFT JOIN {formula} f ON f.collection_id = %s AND f.formula_id = e.item_id "
           f"WHERE e.run_id = %s ORDER BY e.topic_id, e.rank, e.item_id")
    with connection.chunked_cursor() as cursor:  # server-side on PostgreSQL: memory holds one chunk
        cursor.execute(sql, [campaign.collection_id or 0, run.pk])
        while chunk := cursor.fetchmany(CHUNK):
            for topic_pk, formula_id, visual_id, score in chunk:
                yield topic_ids[topic_pk], resolve(formula_id, visual_id), score

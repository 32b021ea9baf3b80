"""Reads for qrels and evaluation: a campaign's official judgments as qrels, and its runs' rows."""
from __future__ import annotations

import hashlib
import heapq
from collections.abc import Collection, Iterator, Sequence
from itertools import groupby
from operator import itemgetter

from django.db import connection
from django.db.models import (
    Case,
    Count,
    F,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Collate, RowNumber

from agreement.models import Adjudication

# Which grade of a unit is official is assessor's rule (the LLM's agreement with the official qrels reads it too).
from agreement.official import official_adjudications, official_judgments, official_stamp_columns
from agreement.official import official_overrides as _official_overrides
from agreement.official import unit_grades as _unit_grades
from ir.grades import MARK_NUMBERS, is_relevant
from ir.prime import TOP, Qrels, natural_key
from judging.models import GRADE_VALUES, Assignment
from nuggets import scores as nugget_scores
from pooling.models import AnswerText, Campaign, Formula, PoolInstance, PoolItem, Run, RunAnswer, RunEntry, Topic
from pooling.ranking import visual_id_resolver

VISUAL, INSTANCE = "visual", "instance"
LEVELS = (VISUAL, INSTANCE)
CHUNK = 20_000


def official_facets(*, campaign: Campaign) -> list[tuple[str, str, dict[str, str], str]]:
    """(topic, item, facet answers, grade) of every official judgment answered with facets, in topic order and
    then by item id."""
    rows = (official_judgments(campaign=campaign).filter(facets__isnull=False)
            .values_list("assignment__topic__position", "assignment__topic__topic_id", "item_id", "facets", "grade"))
    return [row[1:] for row in sorted(rows, key=lambda row: (row[0], natural_key(row[2])))]


def qrels_by_topic(*, campaign: Campaign, level: str = VISUAL, complete: bool = False,
                   topics: Collection[str] | None = None) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """(topic id, [(item id, grade), ...]) for every topic with official judgments, topics and items in natural
    order; SF and DK left out, or with `complete` given as 5 and 6 (the organizers' complete qrels of ARQMath-3 Task
    3). Answers: one row per post or Task 3 answer id. Formulas: per visual id, the highest grade of its judged
    instances (`level="visual"`; complete: SF or DK when none of them has a grade), or one row per judged instance
    (`level="instance"`). `topics`: those topic ids only (None: every one).

    A topic handed from one official assessor to another (the first assignment withdrawn) keeps the first one's
    grades for the units the second has not judged: nothing submitted is lost by reassignment (docs/judging.md).
    One query, ordered by topic in natural order and read in chunks: memory holds a chunk and one topic's
    judgments, whatever the size of the campaign."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    overrides = _official_overrides(campaign)
    asked = campaign.topics.all() if topics is None else campaign.topics.filter(topic_id__in=list(topics))
    pairs = sorted(asked.values_list("pk", "topic_id"), key=lambda pair: natural_key(pair[1]))
    if not pairs:
        return
    in_order = Case(*(When(assignment__topic_id=pk, then=Value(n)) for n, (pk, _) in enumerate(pairs)),
                    output_field=IntegerField())
    judged = official_judgments(campaign=campaign)
    if topics is not None:
        judged = judged.filter(assignment__topic_id__in=[pk for pk, _ in pairs])
    rows = judged.order_by(in_order).values_list(
        "assignment__topic_id", "assignment__withdrawn_at", "item_id", "formula_id", "grade").iterator(chunk_size=CHUNK)
    groups = groupby(rows, key=itemgetter(0))
    group = next(groups, None)
    for topic_pk, topic_id in pairs:
        topic_rows = []
        if group is not None and group[0] == topic_pk:
            topic_rows = [row[1:] for row in group[1]]
            group = next(groups, None)
        grades = _topic_grades(campaign, level, topic_rows, complete=complete, overrides=overrides.get(topic_pk, {}))
        if grades:
            yield topic_id, sorted(grades.items(), key=lambda row: natural_key(row[0]))


def _topic_grades(campaign: Campaign, level: str, rows, complete: bool = False,
                  overrides: dict[tuple[str, str], str] | None = None) -> dict[str, int]:
    """One topic's item -> grade from its official judgments' (withdrawn_at, item, formula, grade) rows, with the
    units of `overrides` (official adjudicated grades) taking their grade from there; with `complete`, SF and DK as
    5 and 6 where a unit (a visual id: every instance of it) has no relevance grade."""
    grades: dict[str, int] = {}
    marks: dict[str, int] = {}
    for (item_id, formula_id), grade in {**_unit_grades(rows), **(overrides or {})}.items():
        unit = formula_id if campaign.task == Campaign.Task.FORMULAS and level == INSTANCE else item_id
        if grade not in GRADE_VALUES:  # SF and DK: unjudged, never 0 (docs/evaluation.md)
            if complete:
                marks[unit] = min(marks.get(unit, MARK_NUMBERS[grade]), MARK_NUMBERS[grade])
            continue
        grades[unit] = max(grades.get(unit, 0), GRADE_VALUES[grade])
    return {**{unit: mark for unit, mark in marks.items() if unit not in grades}, **grades}


def adjudicated_qrels_by_topic(*, campaign: Campaign, kind: str, round: int = 0, level: str = VISUAL,
                               complete: bool = False) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """The adjudicated grades of a training round (kind training, its round) or of the dual assessment (kind dual,
    round 0) as `qrels_by_topic` gives the official ones: the same units, levels and SF/DK rule."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    by_topic: dict[str, list[tuple]] = {}
    for topic_id, item_id, formula_id, grade in Adjudication.objects.filter(
            campaign=campaign, kind=kind, round=round).values_list("topic__topic_id", "item_id", "formula_id", "grade"):
        by_topic.setdefault(topic_id, []).append((None, item_id, formula_id, grade))
    for topic_id in sorted(by_topic, key=natural_key):
        grades = _topic_grades(campaign, level, by_topic[topic_id], complete=complete)
        if grades:
            yield topic_id, sorted(grades.items(), key=lambda row: natural_key(row[0]))


def qrels_topic_counts(*, campaign: Campaign, level: str = VISUAL) -> list[tuple[str, int, int]]:
    """(topic id, judged items, items relevant at the campaign's relevance level) per topic with official judgments,
    in natural order: what the minimum-relevant filter of the qrels export looks at."""
    return [(topic_id, len(rows), sum(1 for _item, grade in rows if is_relevant(grade, campaign.relevance_level)))
            for topic_id, rows in qrels_by_topic(campaign=campaign, level=level)]


def qrels_row_count(*, campaign: Campaign, level: str = VISUAL) -> int:
    """How many lines the qrels export writes at `level` (without a minimum-relevant filter): its own selection,
    `qrels_by_topic`, counted. What the leaderboard calls the official judgments (formulas: with the instances)."""
    return sum(len(rows) for _topic, rows in qrels_by_topic(campaign=campaign, level=level))


def campaign_qrels(*, campaign: Campaign, complete: bool = False, topics: Collection[str] | None = None) -> Qrels:
    """The campaign's qrels as evaluation reads them: posts and Task 3 answer ids (answers) or visual ids (formulas);
    what `qrels_by_topic` gives (with `complete`: SF and DK as 5 and 6), in its order, from one query (evaluation holds
    every topic's judgments anyway); of the topic ids `topics` only when given."""
    found = dict(qrels_topic_grades(campaign=campaign, complete=complete, topics=topics))
    return {topic: dict(sorted(found[topic].items(), key=lambda row: natural_key(row[0])))
            for topic in sorted(found, key=natural_key)}


def qrels_topic_grades(*, campaign: Campaign, complete: bool = False, topics: Collection[str] | None = None
                       ) -> Iterator[tuple[str, dict[str, int]]]:
    """`campaign_qrels` in no order, topics nor items: what a count of its grades reads (sorting 30,000 item ids in
    natural order is most of the time of `campaign_qrels` at ARQMath-3's size)."""
    judged = official_judgments(campaign=campaign)
    overrides = _official_overrides(campaign)
    if topics is not None:
        pks = set(campaign.topics.filter(topic_id__in=list(topics)).values_list("pk", flat=True))
        judged = judged.filter(assignment__topic_id__in=pks)
        overrides = {pk: units for pk, units in overrides.items() if pk in pks}
    by_topic: dict[int, list[tuple]] = {}
    for topic_pk, *row in judged.order_by().values_list(
            "assignment__topic_id", "assignment__withdrawn_at", "item_id", "formula_id", "grade"
    ).iterator(chunk_size=CHUNK):
        by_topic.setdefault(topic_pk, []).append(row)
    for topic_pk in overrides:
        by_topic.setdefault(topic_pk, [])
    names = dict(Topic.objects.filter(pk__in=by_topic).values_list("pk", "topic_id"))
    for topic_pk, rows in by_topic.items():
        grades = _topic_grades(campaign, VISUAL, rows, complete=complete, overrides=overrides.get(topic_pk, {}))
        if grades:
            yield names[topic_pk], grades


def judgments_stamp(*, campaign: Campaign) -> tuple:
    """Changes whenever the campaign's qrels or scores may have changed: the key of its cached scores. A judgment
    added or revised (the summed revision numbers, the latest update), an official assignment withdrawn or revived, a
    run added or removed, formulas added to the collection (Task 2 maps runs through them), an official support
    label of a generated answer added or revised (`support_stamp`)."""
    official = Campaign.objects.filter(pk=campaign.pk).values_list(*official_stamp_columns(campaign=campaign)).get()
    adjudicated = tuple(Adjudication.objects.filter(campaign=campaign, kind=Assignment.Kind.DUAL)
                        .aggregate(count=Count("pk"), last=Max("at")).values())
    assignments = tuple(Assignment.objects.filter(campaign=campaign, kind=Assignment.Kind.OFFICIAL)
                        .order_by("pk").values_list("pk", "withdrawn_at"))
    runs, formulas = runs_stamp(campaign=campaign)
    return *official, assignments, runs, formulas, adjudicated, nugget_scores.support_stamp(campaign=campaign)


def runs_stamp(*, campaign: Campaign) -> tuple:
    """The part of `judgments_stamp` that is no topic's: the runs (added, removed, replaced) and how many formulas
    the collection has."""
    runs = tuple(Run.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "created_at"))
    return runs, campaign.collection.formula_count if campaign.collection is not None else 0


def topic_stamps(*, campaign: Campaign) -> dict[str, str]:
    """The rest of `judgments_stamp`, topic by topic: topic id -> a digest of its official judgments (how many, their
    summed revision numbers, the latest update), its official assignments (withdrawn or not) and its dual assessment's
    adjudications (how many, the latest); a topic with none of these left out. A judgment changes its topic's stamp
    only: what evaluation/topic_scores.py recomputes."""
    parts: dict[int, list] = {}
    for topic_pk, *row in (official_judgments(campaign=campaign).order_by().values("assignment__topic_id")
                           .annotate(count=Count("pk"), summed=Sum("revision"), last=Max("updated_at"))
                           .values_list("assignment__topic_id", "count", "summed", "last")):
        parts.setdefault(topic_pk, [(), [], ()])[0] = tuple(row)
    for topic_pk, pk, withdrawn_at in (Assignment.objects.filter(campaign=campaign, kind=Assignment.Kind.OFFICIAL)
                                       .order_by("pk").values_list("topic_id", "pk", "withdrawn_at")):
        parts.setdefault(topic_pk, [(), [], ()])[1].append((pk, withdrawn_at))
    for topic_pk, *row in (Adjudication.objects.filter(campaign=campaign, kind=Assignment.Kind.DUAL).order_by()
                           .values("topic_id").annotate(count=Count("pk"), last=Max("at"))
                           .values_list("topic_id", "count", "last")):
        parts.setdefault(topic_pk, [(), [], ()])[2] = tuple(row)
    names = campaign_topic_ids(campaign=campaign)
    return {names[pk]: hashlib.sha256(repr(found).encode()).hexdigest()[:16] for pk, found in parts.items()}


NO_RUNS = "No run yet: the leaderboard lists the runs once they are uploaded and judged."
NO_JUDGMENTS = "No official judgment yet: the runs are scored once assessors have judged."


def nothing_to_score(*, campaign: Campaign) -> str:
    """Why the campaign's scores are an empty table with nothing to compute (no run, or no official judgment,
    official adjudication nor official support label yet); "" when there is something to score. A few existence
    queries: a new campaign's score pages answer at once, never "being computed" (docs/evaluation.md)."""
    if not Run.objects.filter(campaign=campaign).exists():
        return NO_RUNS
    if (not official_judgments(campaign=campaign).exists() and not official_adjudications(campaign=campaign).exists()
            and not nugget_scores.support_labelled(campaign=campaign)):
        return NO_JUDGMENTS
    return ""




def scores_version(*, campaign: Campaign) -> str:
    """A short digest of `judgments_stamp`: pages compare digests to see a change."""
    return hashlib.sha256(repr(judgments_stamp(campaign=campaign)).encode()).hexdigest()[:32]


def topic_parents(*, campaign: Campaign) -> dict[str, str]:
    """micro-topic id -> its parent topic's id (topics ingested with micro-topics); empty without micro-topics."""
    return dict(Topic.objects.filter(campaign=campaign).exclude(parent="").values_list("topic_id", "parent"))


def campaign_topic_ids(*, campaign: Campaign) -> dict[int, str]:
    return dict(Topic.objects.filter(campaign=campaign).values_list("pk", "topic_id"))


def answer_rows_to_score(*, campaign: Campaign, runs: Sequence[Run], topic_ids: dict[int, str],
                         judged_items: QuerySet | None = None, topics: Collection[int] | None = None
                         ) -> dict[int, dict[str, dict[str, float]]]:
    """Per answer run (by pk), topic id -> post id -> score of the rows enough for the prime filter: every row of a
    post with an official judgment, and each topic's first 10 by score (score descending, then post id descending,
    as trec_eval orders them), for its Unjudged@10. The rule is `ir.prime.prime_answers`; this is its cut done in the
    database, so that the rest of a run (about three rows in four of a deep one) stays there: prime_answers gives on
    these rows what it gives on the whole run (tests/evaluation/test_campaign_rows.py checks both on the same runs).

    One scan reads the rows ranked 1 to 10 and those of every post judged in the campaign (for any topic: a post
    judged for another topic only is one more unjudged row, which cannot enter the top 10, see below); a second gives
    the best score of each topic's rows ranked below 10. A topic whose rows ranked below 10 all score under its 10th
    best row read (a run whose ranks follow its scores, as nearly all do) has its first 10 among the rows read; any
    other topic (ranks against the scores, a tie at the 10th place, fewer than 10 rows ranked 1 to 10) is read
    whole.

    `judged_items`: the items of another source's qrels (a `values("item_id")` query, as the LLM's grades)
    instead of the official judgments: the same cut, for the same reason. `topics`: the rows of those topics (pks)
    only (None: every one)."""
    if judged_items is None:
        judged = official_judgments(campaign=campaign).filter(grade__in=GRADE_VALUES).order_by().values("item_id")
        adjudicated = (official_adjudications(campaign=campaign).filter(grade__in=GRADE_VALUES).order_by()
                       .values("item_id"))
        kept = Q(item_id__in=Subquery(judged)) | Q(item_id__in=Subquery(adjudicated))
    else:
        kept = Q(item_id__in=Subquery(judged_items.order_by().values("item_id")))
    entries = _of_topics(RunEntry.objects.filter(run__in=runs), topics)
    found: dict[tuple[int, int], dict[str, float]] = {}  # (run, topic) -> post -> score
    for run_pk, topic_pk, item_id, score in entries.filter(Q(rank__lte=TOP) | kept
                                                           ).values_list("run_id", "topic_id", "item_id", "score"):
        found.setdefault((run_pk, topic_pk), {})[item_id] = score
    for row in entries.filter(rank__gt=TOP).values("run_id", "topic_id").annotate(best=Max("score")).order_by():
        key = (row["run_id"], row["topic_id"])
        read = found.setdefault(key, {})
        if len(read) < TOP or row["best"] >= heapq.nlargest(TOP, read.values())[-1]:
            read.update(RunEntry.objects.filter(run_id=key[0], topic_id=key[1]).values_list("item_id", "score"))
    by_run: dict[int, dict[str, dict[str, float]]] = {run.pk: {} for run in runs}
    for (run_pk, topic_pk), items in found.items():
        by_run[run_pk][topic_ids[topic_pk]] = items
    return by_run


def answer_run_tops(*, runs: Sequence[Run], topic_ids: dict[int, str], depth: int) -> dict[int, dict[str, list[str]]]:
    """Per answer run (by pk), topic id -> its first `depth` posts in trec_eval's order (score descending, then post
    id descending, compared as Python compares strings: the "C" collation): what `ir.statistics.top_items` takes
    from the run read whole, ranked by the database so that only those rows leave it (reusability)."""
    by_id = Collate("item_id", "C" if connection.vendor == "postgresql" else "BINARY")
    place = Window(RowNumber(), partition_by=[F("run_id"), F("topic_id")], order_by=[F("score").desc(), by_id.desc()])
    tops: dict[int, dict[str, list[str]]] = {run.pk: {} for run in runs}
    for run_pk, topic_pk, item_id in (RunEntry.objects.filter(run__in=runs).annotate(place=place)
                                      .filter(place__lte=depth).order_by("run_id", "topic_id", "place")
                                      .values_list("run_id", "topic_id", "item_id").iterator(chunk_size=CHUNK)):
        tops[run_pk].setdefault(topic_ids[topic_pk], []).append(item_id)
    return tops


def _of_topics(entries: QuerySet, topics: Collection[int] | None) -> QuerySet:
    return entries if topics is None else entries.filter(topic_id__in=list(topics))


def answer_run_rows(*, run: Run, topic_ids: dict[int, str], topics: Collection[int] | None = None
                    ) -> Iterator[tuple[str, str, float]]:
    """A stored answer run's every (topic id, post id, score) row, in rank order: what measures other than the prime
    ones need (a post's place among the unjudged ones counts); of the topics (pks) `topics` only when given."""
    rows = (_of_topics(RunEntry.objects.filter(run=run), topics).order_by("topic_id", "rank", "item_id")
            .values_list("topic_id", "item_id", "score").iterator(chunk_size=CHUNK))
    for topic_pk, item_id, score in rows:
        yield topic_ids[topic_pk], item_id, score


def formula_run_rows(*, run: Run, campaign: Campaign, topic_ids: dict[int, str],
                     topics: Collection[int] | None = None) -> Iterator[tuple[str, str | None, float]]:
    """A stored formula run's (topic id, visual id of the instance, score) rows for the prime filter, in rank order
    (the order of the file, for a file in rank order); the visual id given as the pools give it
    (`visual_id_resolver`): what assessors judged is what the run is scored on. `topics`: as for answer_run_rows."""
    resolve = visual_id_resolver(campaign)
    visual_id = Formula.objects.filter(collection_id=campaign.collection_id or 0,
                                       formula_id=OuterRef("item_id")).values("visual_id")
    rows = (_of_topics(RunEntry.objects.filter(run=run), topics).order_by("topic_id", "rank", "item_id")
            .annotate(visual_id=Subquery(visual_id)).values_list("topic_id", "item_id", "visual_id", "score")
            .iterator(chunk_size=CHUNK))
    for topic_pk, formula_id, visual, score in rows:
        yield topic_ids[topic_pk], resolve(formula_id, visual), score


def campaign_answer_ids(*, campaign: Campaign) -> set[str]:
    """The ids of the campaign's distinct ARQMath-3 Task 3 answers (d_N): the items of its qrels that are no posts."""
    return set(AnswerText.objects.filter(campaign=campaign).values_list("answer_id", flat=True))


def task3_answers(*, runs: Sequence[Run]) -> dict[str, dict[str, tuple[str, str]]]:
    """Run name -> topic id -> (answer id, the run's text) of the given ARQMath-3 Task 3 runs' answers."""
    found: dict[str, dict[str, tuple[str, str]]] = {run.name: {} for run in runs}
    for run, topic, answer_id, text in (RunAnswer.objects.filter(run__in=runs)
                                        .values_list("run__name", "topic__topic_id", "answer__answer_id", "text")):
        found[run][topic] = (answer_id, text)
    return found


def pool_units(*, campaign: Campaign, level: str = VISUAL) -> set[tuple[str, str]]:
    """(topic id, unit) of every item in the campaign's pools, as qrels name them: posts (answers), visual ids
    (formulas), or the selected instances' formula ids (formulas at the instance level). What the combined qrels
    may fill with an LLM's grade."""
    if campaign.task == Campaign.Task.FORMULAS and level == INSTANCE:
        return set(PoolInstance.objects.filter(item__campaign=campaign, selected=True)
                   .values_list("item__topic__topic_id", "formula_id"))
    return set(PoolItem.objects.filter(campaign=campaign).values_list("topic__topic_id", "item_id"))

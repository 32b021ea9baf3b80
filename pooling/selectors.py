"""Reads of the pooling app for pages and APIs."""
from __future__ import annotations

import hashlib
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Exists, IntegerField, Max, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from ir.citations import Question, citation_candidates, link_pattern
from ir.formats.candidates import Candidate as CandidateLine
from ir.pools.ids import id_order_key
from ir.pools.stats import Contribution, PlanRow, judging_hours, plan_pool_sizes
from ir.problems import InputError
from pooling.models import (
    AnswerText,
    Campaign,
    Candidate,
    Collection,
    Comment,
    PoolInstance,
    PoolItem,
    Post,
    Run,
    RunAnswer,
    Topic,
)
from pooling.ranking import WHOLE_FORMATS, formula_prefixes, pooled_whole, run_depth, suspect_items, top_entries


def campaign_named(name: str) -> Campaign:
    """The campaign of a command's argument, with its collection; an unknown name is rejected input."""
    try:
        return Campaign.objects.select_related("collection").get(name=name)
    except Campaign.DoesNotExist:
        raise InputError(f"no campaign named '{name}'") from None


def citation_candidates_compute(*, collection_name: str, topics: list[tuple[str, str]],
                                pattern: str) -> list[CandidateLine]:
    """The candidates the accepted answers of the topics' source questions cite, in the stored dump of a
    collection (`extract_citations`): the asker's comments under each accepted answer are the note."""
    links = link_pattern(pattern)
    collection = Collection.objects.filter(name=collection_name).first()
    if collection is None:
        raise InputError(f"there is no collection named '{collection_name}'")
    posts = Post.objects.filter(collection=collection)
    asked = {qid: (accepted, owner) for qid, accepted, owner in posts.filter(
        post_id__in=[question for _topic, question in topics], kind=Post.Kind.QUESTION)
        .exclude(accepted_answer_id="").values_list("post_id", "accepted_answer_id", "owner_user_id")}
    bodies = dict(posts.filter(post_id__in=[accepted for accepted, _owner in asked.values()])
                  .values_list("post_id", "body"))
    comments: dict[tuple[str, str], list[str]] = {}  # (answer id, user id) -> texts, oldest first
    for post_id, user_id, text in (Comment.objects.filter(collection=collection, post_id__in=list(bodies))
                                   .order_by("created_at", "comment_id").values_list("post_id", "user_id", "text")):
        comments.setdefault((post_id, user_id), []).append(text)
    questions = {qid: Question(bodies[accepted], tuple(comments.get((accepted, owner), ()) if owner else ()))
                 for qid, (accepted, owner) in asked.items() if accepted in bodies}
    return citation_candidates(topics, questions, links)


def candidate_notes(*, topic: Topic, item_id: str) -> list[str]:
    """The notes of an item's candidates in its topic (the judging page shows them when the campaign says so),
    without their sources; empty ones left out."""
    return list(Candidate.objects.filter(topic=topic, item_id=item_id).exclude(note="").order_by("position")
                .values_list("note", flat=True).distinct())


def pool_item_suspect(*, item: PoolItem) -> bool:
    """Whether every run that pooled the item is one most of whose ids the collection lacks (`Run.mostly_missing`):
    the post shown is most likely another one that shares the number (docs/pooling.md, "Suspect matches")."""
    names = {pair[0] for pair in item.provenance}
    return bool(names) and Run.objects.filter(campaign_id=item.campaign_id, name__in=names,
                                              mostly_missing=True).count() == len(names)


def campaign_list() -> QuerySet[Campaign]:
    return (Campaign.objects.select_related("collection")
            .annotate(topic_count=Count("topics", distinct=True), run_count=Count("runs", distinct=True)))


def collection_list() -> QuerySet[Collection]:
    return Collection.objects.annotate(campaign_count=Count("campaigns", distinct=True))


def pool_export_rows(*, campaign: Campaign) -> Generator[tuple[str, ...], None, None]:
    """The items to judge, header first (docs/pooling.md): answers (topic, post_id); formulas (topic, visual_id,
    formula_id, post_id), one per selected instance. Topics in campaign order, items in display order,
    instances by formula id."""
    if not PoolItem.objects.filter(campaign=campaign).exists():
        raise InputError(f"campaign '{campaign.name}' has no pools yet: build them first (build_pools)")
    if campaign.task == Campaign.Task.ANSWERS:
        yield ("topic", "post_id")
        yield from (PoolItem.objects.filter(campaign=campaign).order_by("topic__position", "topic_id", "position")
                    .values_list("topic__topic_id", "item_id").iterator(chunk_size=5000))
        return
    yield ("topic", "visual_id", "formula_id", "post_id")
    rows = (PoolInstance.objects.filter(item__campaign=campaign, selected=True)
            .order_by("item__topic__position", "item__topic_id", "item__position")
            .values_list("item_id", "item__topic__topic_id", "item__item_id", "formula_id", "post_id")
            .iterator(chunk_size=5000))
    item: int | None = None
    group: list[tuple[str, ...]] = []
    for item_pk, *row in rows:
        if item_pk != item and group:
            yield from sorted(group, key=lambda r: id_order_key(r[2]))
            group = []
        item = item_pk
        group.append(tuple(row))
    yield from sorted(group, key=lambda r: id_order_key(r[2]))


def answer_id_rows(*, campaign: Campaign) -> QuerySet[RunAnswer, tuple[str, str, str]]:
    """(run name, topic id, answer id) of every answer of the campaign's ARQMath-3 Task 3 runs, runs by name and topics
    in campaign order: the organizers' map from run and topic to answer id (teams_document_id.tsv). A TREC RAG run's
    answers are not in it: they are judged by their nuggets and citations, not pooled by answer id."""
    answers = RunAnswer.objects.filter(run__campaign=campaign, run__format=Run.Format.ARQMATH_TASK3)
    if not answers.exists():
        raise InputError(f"campaign '{campaign.name}' has no ARQMath-3 Task 3 runs: there are no answer ids")
    return (answers.order_by("run__name", "topic__position", "topic_id")
            .values_list("run__name", "topic__topic_id", "answer__answer_id"))


def pool_topic_items(*, topic: Topic) -> list[dict]:
    """One topic's pool in display order: [{"position", "item_id", "runs": [(run name, rank), ...],
    "instances": [{"formula_id", "post_id", "vote", "selected"}, ...] (formulas; best vote first),
    "answer": the text of an ARQMath-3 Task 3 answer (answers; None for a post)}]."""
    items = list(PoolItem.objects.filter(topic=topic).order_by("position")
                 .values_list("pk", "position", "item_id", "provenance"))
    instances: dict[int, list[dict]] = {}
    for item_pk, formula_id, post_id, vote, selected in (
            PoolInstance.objects.filter(item__topic=topic).order_by("item_id", "-vote", "formula_id")
            .values_list("item_id", "formula_id", "post_id", "vote", "selected")):
        instances.setdefault(item_pk, []).append(
            {"formula_id": formula_id, "post_id": post_id, "vote": vote, "selected": selected})
    answers = dict(AnswerText.objects.filter(topic=topic).values_list("answer_id", "text"))
    return [{"position": position, "item_id": item_id, "runs": [tuple(pair) for pair in provenance],
             "instances": instances.get(pk, []), "answer": answers.get(item_id)}
            for pk, position, item_id, provenance in items]


def pool_statistics(*, campaign: Campaign, pool_rows: list[int] | None = None) -> dict:
    """What the campaign's built pools hold (docs/pooling.md), by aggregate queries: their number does not grow with the
    items, topics or runs.

    {"built", "topics": [{"topic_id", "items", "candidates", "selected", "overflow"}],
     "runs": [{"name", "kind", "depth", "whole", "contributed", "unique"}], "total": {same keys as a topic}} ("whole":
    the run is pooled whole, every entry, whatever its depth).
    items counts pooled items (formulas: visual ids); candidates, selected and overflow (visual ids with more
    than campaign.instances candidates) are 0 for answers. `pool_rows`: the pool_stamp, when the caller has read it.
    """
    zero = Value(0, output_field=IntegerField())
    candidates = PoolInstance.objects.filter(item__topic=OuterRef("pk"))
    counted = {"items": _subquery_count(PoolItem.objects.filter(topic=OuterRef("pk")), "topic"),
               "candidates": zero, "selected": zero, "overflow": zero}
    if campaign.task == Campaign.Task.FORMULAS:
        overflowing = (PoolItem.objects.filter(topic=OuterRef("pk"))
                       .alias(n=_subquery_count(PoolInstance.objects.filter(item=OuterRef("pk")), "item"))
                       .filter(n__gt=campaign.instances))
        counted.update(candidates=_subquery_count(candidates, "item__topic"),
                       selected=_subquery_count(candidates.filter(selected=True), "item__topic"),
                       overflow=_subquery_count(overflowing, "topic"))
    per_topic: list[dict[str, Any]] = list(campaign.topics.order_by("position", "pk")
                                           .annotate(**counted).values("topic_id", *counted))
    runs = list(campaign.runs.order_by("name"))
    contributions = ({run.name: Contribution(0, 0) for run in runs}
                     | run_contributions(campaign=campaign, pool_rows=pool_rows))
    by_name = {run.name: run for run in runs}
    per_run = [{"name": name, "kind": by_name[name].kind if name in by_name else "",
                "pk": by_name[name].pk if name in by_name else None,
                "own_depth": by_name[name].depth if name in by_name else None,
                "depth": run_depth(run=by_name[name], campaign=campaign) if name in by_name else None,
                "whole": name in by_name and pooled_whole(by_name[name]),
                "contributed": c.contributed, "unique": c.unique}
               for name, c in sorted(contributions.items())]
    total = {key: sum(t[key] for t in per_topic) for key in ("items", "candidates", "selected", "overflow")}
    return {"built": total["items"] > 0, "topics": per_topic, "runs": per_run, "total": total}


def _subquery_count(queryset: QuerySet, field: str) -> Coalesce:
    """The rows of `queryset` (filtered on one outer row, grouped by `field`), as a column beside that row."""
    counted = queryset.order_by().values(field).annotate(n=Count("*")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def pool_stamp(campaign: Campaign) -> list[int]:
    """What tells the campaign's pool rows apart from any earlier ones: how many there are and the newest one's id (a
    build deletes them all and writes new ones, a topic delete removes some, and ids only grow)."""
    found = PoolItem.objects.filter(campaign=campaign).order_by().aggregate(n=Count("pk"), last=Max("pk"))
    return [found["n"], found["last"] or 0]


def run_contributions(*, campaign: Campaign, pool_rows: list[int] | None = None) -> dict[str, Contribution]:
    """Per run named in the pools' provenance: the items it pooled and those no other run pooled; those the last
    pool build counted while the pool rows are still the ones it counted (`pool_rows`: their pool_stamp, read here
    unless given), else counted now."""
    stored = campaign.pool_contributions or {}
    if stored.get("stamp") == (pool_stamp(campaign) if pool_rows is None else pool_rows):
        return {name: Contribution(contributed, unique) for name, (contributed, unique) in stored["runs"].items()}
    return run_contributions_compute(campaign=campaign)


def run_contributions_compute(*, campaign: Campaign) -> dict[str, Contribution]:
    """Per run named in the pools' provenance: the items it pooled and those no other run pooled, counted by the
    database over the provenance's [run, rank] pairs (a run may name an item more than once: formulas, one pair per
    instance)."""
    table = connection.ops.quote_name(PoolItem._meta.db_table)
    if connection.vendor == "postgresql":
        pairs, run = "jsonb_array_elements(i.provenance) p", "p ->> 0"
    else:
        pairs, run = "json_each(i.provenance) p", "json_extract(p.value, '$[0]')"
    # Each item's distinct runs once, then how many runs pooled it by a window over them (not a walk per pair).
    sql = (f"SELECT run, count(*), sum(CASE WHEN runs = 1 THEN 1 ELSE 0 END) FROM ("
           f"SELECT run, count(*) OVER (PARTITION BY id) AS runs FROM ("
           f"SELECT DISTINCT i.id AS id, {run} AS run FROM {table} i, {pairs} WHERE i.campaign_id = %s) AS pairs"
           f") AS pooled GROUP BY run")
    with connection.cursor() as cursor:
        cursor.execute(sql, [campaign.pk])
        return {name: Contribution(contributed, unique) for name, contributed, unique in cursor.fetchall()}


# The planner's time per judgment before judging measures it (docs/pooling.md); setting POOL_PLAN_SECONDS_PER_JUDGMENT.
PLAN_SECONDS_PER_JUDGMENT = 60.0
# The fewest judgments whose mean time the planner trusts: a handful of judgments (the first ones, read slowly, or a
# few quick not-relevant ones) says little about the hundreds to come.
PLAN_MIN_JUDGMENTS = 30


@dataclass(frozen=True)
class PlanTime:
    """The planner's seconds per judgment and where they come from: measured from `judgments` judgments when
    `measured`, else the default assumption (`judgments` then says how many have been measured so far)."""

    seconds: float
    measured: bool
    judgments: int


def plan_seconds_per_judgment(*, measured: tuple[float, int] | None) -> PlanTime:
    """The measured mean seconds per judgment once at least PLAN_MIN_JUDGMENTS judgments measure it, else the
    default. The one rule for the planner, the pools page and the progress page.

    `measured` is (mean seconds per judgment, judgments measured), None before anything is judged: the judging
    app's measure (assessor.progress.judging_time), which the caller reads and gives."""
    if measured:
        seconds, judgments = measured
        if judgments >= PLAN_MIN_JUDGMENTS:
            return PlanTime(round(seconds, 1), True, judgments)
        return PlanTime(_default_seconds(), False, judgments)
    return PlanTime(_default_seconds(), False, 0)


def _default_seconds() -> float:
    return float(getattr(settings, "POOL_PLAN_SECONDS_PER_JUDGMENT", PLAN_SECONDS_PER_JUDGMENT))


# The depths the planner shows unless the organizer asks for others: the ones each pool build computes and stores.
PLAN_DEPTHS: dict[str, list[int]] = {Campaign.Task.ANSWERS: list(range(5, 51, 5)),
                                     Campaign.Task.FORMULAS: list(range(5, 31, 5))}


def plan_stamp(campaign: Campaign) -> list:
    """What the planner's rows depend on besides the runs' rows (a replaced run is a new run): a stored plan with
    another stamp is stale."""
    return [campaign.primary_depth, campaign.alternate_depth, campaign.instances, campaign.max_depth,
            [list(run) for run in campaign.runs.order_by("pk").values_list("pk", "alternate", "format",
                                                                           "mostly_missing", "matches_confirmed")],
            list(campaign.topics.order_by("pk").values_list("pk", flat=True))]


def pool_plan(*, campaign: Campaign, depths: list[int], seconds_per_judgment: float) -> list[PlanRow]:
    """The planner's rows at `depths`: those the last pool build stored when it computed these depths from what the
    campaign still holds, else computed now (pool_plan_compute)."""
    stored = campaign.pool_plan or {}
    rows = stored.get("rows", [])
    if [row[0] for row in rows] == depths and stored.get("stamp") == plan_stamp(campaign):
        return [PlanRow(depth, alternate, items, judgments, judging_hours(judgments, seconds_per_judgment))
                for depth, alternate, items, judgments in rows]
    return pool_plan_compute(campaign=campaign, depths=depths, seconds_per_judgment=seconds_per_judgment)


def pool_plan_compute(*, campaign: Campaign, depths: list[int], seconds_per_judgment: float | None
                      ) -> list[PlanRow]:
    """The planner (docs/pooling.md): pool size and assessor hours if primary runs were pooled to each depth.

    Alternate runs are pooled to a depth scaled as the campaign's alternate depth is to its primary depth
    (45 and 20 in ARQMath-3: 20 at depth 45, 10 at depth 22). Only the ranks the deepest row needs are read;
    formulas map to visual ids as pool_build maps them, so the row at the campaign's own depths is its pool.
    """
    if not depths:
        return []
    primary, alternate = campaign.primary_depth, campaign.alternate_depth

    def alternate_depth(depth: int) -> int:
        return depth * alternate // primary if primary else depth

    deepest = max(max(depths), *(alternate_depth(d) for d in depths))
    runs = dict(campaign.runs.values_list("pk", "name"))
    # A Task 3 run has one answer per topic, pooled whatever its depth (at least 1): never scaled down to 0.
    alternates = set(campaign.runs.filter(alternate=True).exclude(format=Run.Format.ARQMATH_TASK3)
                     .values_list("name", flat=True))
    # A RAG answer run is pooled whole at every depth: every id it cites (top_entries reads it whole).
    whole = set(campaign.runs.filter(format__in=WHOLE_FORMATS).values_list("name", flat=True))
    topics = dict(campaign.topics.values_list("pk", "topic_id"))
    ranked: dict[str, dict[str, list]] = {}
    task: Literal["answers", "formulas"]
    if campaign.task == Campaign.Task.ANSWERS:
        # The same top-k read as pool_build, so the row at the campaign's own depths is its pool.
        for run_pk, topic_pk, item_id, _post_id in top_entries(campaign, deepest):
            items = ranked.setdefault(topics[topic_pk], {}).setdefault(runs[run_pk], [])
            if len(items) < deepest or runs[run_pk] in whole:
                items.append(item_id)
        task = "answers"
    else:
        prefixes, _posts, _threads = formula_prefixes(campaign, dict.fromkeys(runs.values(), deepest))
        ranked = {topics[topic_pk]: lists for topic_pk, lists in prefixes.items()}
        task = "formulas"
    return plan_pool_sizes(ranked, depths, task=task, alternate_runs=alternates, alternate_depth=alternate_depth,
                           instances_per_formula=campaign.instances, seconds_per_judgment=seconds_per_judgment,
                           left_out=suspect_items(campaign), whole_runs=whole)


def pool_sizes(*, campaign: Campaign) -> dict:
    """Per topic of the campaign (in campaign order): pool items and, for formulas, instances selected to judge."""
    items = dict(PoolItem.objects.filter(campaign=campaign).order_by()
                 .values_list("topic_id").annotate(n=Count("id")).values_list("topic_id", "n"))
    formulas = campaign.task == Campaign.Task.FORMULAS
    selected: dict[int, int] = {}
    if formulas:
        selected = dict(PoolInstance.objects.filter(item__campaign=campaign, selected=True).order_by()
                        .values_list("item__topic_id").annotate(n=Count("id")).values_list("item__topic_id", "n"))
    topics = [{"topic": topic_id, "items": items.get(pk, 0), "selected": selected.get(pk, 0) if formulas else None}
              for pk, topic_id in campaign.topics.order_by("position", "pk").values_list("pk", "topic_id")]
    return {"campaign": campaign.name, "task": campaign.task, "built": bool(items),
            "items": sum(items.values()), "selected": sum(selected.values()) if formulas else None,
            "topics": topics}


# -- items that cannot be judged (docs/judging.md, "Items missing from the collection")


def unjudgeable_items_count(*, campaign: Campaign) -> dict[str, int]:
    """Per topic id, the pooled units whose post the campaign's collection lacks, which can only be graded System
    failure or Do not know: answers, the items (a Task 3 answer is no post and is not counted); formulas, the selected
    instances (the units judged). Topics with none are left out; {} for a campaign without a collection, or whose
    collection has no post yet (nothing can be said to be missing from it, as run_ingest does not check runs
    against it)."""
    if campaign.collection_id is None or not collection_has_posts(collection_id=campaign.collection_id):
        return {}
    in_collection = Post.objects.filter(collection_id=campaign.collection_id)
    units: QuerySet[Any]
    if campaign.task == Campaign.Task.ANSWERS:
        topic = "topic__topic_id"
        units = (PoolItem.objects.filter(campaign=campaign)
                 .exclude(Exists(in_collection.filter(post_id=OuterRef("item_id"))))
                 .exclude(Exists(AnswerText.objects.filter(campaign=campaign, answer_id=OuterRef("item_id")))))
    else:
        topic = "item__topic__topic_id"
        units = (PoolInstance.objects.filter(item__campaign=campaign, selected=True)
                 .exclude(Exists(in_collection.filter(post_id=OuterRef("post_id")))))
    return dict(units.values(topic).annotate(n=Count("pk")).values_list(topic, "n"))


def unjudgeable_items_total(*, campaign: Campaign, pool_rows: list[int] | None = None) -> int:
    """How many pooled units cannot be judged (`unjudgeable_items_count`, summed), for the pools page: kept in the
    cache under what the count reads (the pool rows; the posts, which are only ever added, by their newest id; the
    campaign's Task 3 answers), as a probe into the collection per pooled item took a tenth of a second at
    ARQMath-3's size. `pool_rows`: the pool_stamp, when the caller has read it."""
    if campaign.collection_id is None:
        return 0
    answers = AnswerText.objects.filter(campaign=campaign).order_by().aggregate(n=Count("pk"), last=Max("pk"))
    newest_post = Post.objects.order_by("-pk").values_list("pk", flat=True).first()
    stamp = (pool_stamp(campaign) if pool_rows is None else pool_rows, campaign.collection_id, newest_post,
             tuple(answers.values()))
    key = f"unjudgeable:v1:{campaign.pk}:{hashlib.sha256(repr(stamp).encode()).hexdigest()[:32]}"
    found = cache.get(key)
    if found is None:
        found = sum(unjudgeable_items_count(campaign=campaign).values())
        cache.set(key, found, UNJUDGEABLE_SECONDS)
    return found


UNJUDGEABLE_SECONDS = 24 * 3600  # how long a count stays in the cache when nothing it reads changes


def posts_not_in_collection(*, collection_id: int, post_ids: Iterable[str]) -> set[str]:
    """The ids among `post_ids` that the collection has no post of; none when it has no post at all (not loaded
    yet: nothing is missing from it)."""
    wanted = set(post_ids)
    lacking = wanted - set(Post.objects.filter(collection_id=collection_id, post_id__in=wanted)
                           .values_list("post_id", flat=True))
    return lacking if lacking and collection_has_posts(collection_id=collection_id) else set()


def collection_has_posts(*, collection_id: int) -> bool:
    """Whether the collection's posts are known, so that an id it lacks is missing: it has posts, or it is read from a
    corpus (which names every document; the pooled ones are stored with the pools)."""
    return (Post.objects.filter(collection_id=collection_id).exists()
            or Collection.objects.filter(pk=collection_id).exclude(corpus_path="").exists())


def sibling_topics(*, topic: Topic) -> list[Topic]:
    """The other micro-topics of a micro-topic's parent, in file order; none for a topic of its own."""
    if not topic.parent:
        return []
    return list(Topic.objects.filter(campaign_id=topic.campaign_id, parent=topic.parent).exclude(pk=topic.pk)
                .only("topic_id", "title").order_by("position"))

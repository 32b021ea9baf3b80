"""Pool building (docs/pooling.md): the campaign's runs read in rank order, pooled per topic, stored as pool rows.

Pooling does not know what is judged: the caller tells it (`judged_items`), and the judging app's
`assessor.services.pools_rebuild` is the caller that reads the judgments and recounts what each assessor has
completed after a rebuild (docs/architecture.md, "Which app imports which").
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace

from django.db import transaction
from django.db.models import Max

from ir.pools.formulas import overflow_count, pool_formulas, rr_vote, select_instances
from ir.pools.ids import id_order_key
from ir.pools.order import display_order
from ir.pools.posts import pool_answers
from ir.problems import InputError
from pooling.bulk import bulk_insert, rows_delete
from pooling.models import Campaign, Candidate, PoolInstance, PoolItem, Post
from pooling.ranking import LOOKUP_CHUNK, formula_prefixes, pooled_whole, run_depth, suspect_items, top_entries
from pooling.selectors import PLAN_DEPTHS, plan_stamp, pool_plan_compute, pool_stamp, run_contributions_compute
from pooling.services.common import Progress
from pooling.services.corpus import missing_documents_warnings, pool_texts_fetch

# Topic pk -> ids of the items with at least one judgment: what the judging app tells pooling before a change that
# could take items out of the pools (assessor.selectors.judged_items_of_campaign).
JudgedItems = dict[int, set[str]]
CANDIDATES = "candidates:"  # a candidate's provenance: [candidates:<source>, its position among the topic's]
IMPORTED = "imported-judgments"  # the candidates' source of items an import of judgments added to the pools


def campaign_lock(*, campaign: Campaign, being_deleted: bool = False) -> None:
    """One pool build or change at a time per campaign, inside the caller's transaction; the caller that reads what
    is judged takes it first, so that what it reads stays true until it commits. A campaign being deleted is
    refused: nothing new starts on it (`being_deleted`: the delete's own steps, which take it)."""
    deleting = Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("deleting", flat=True).first()
    if deleting and not being_deleted:
        raise campaign_deleting_error(campaign)


def campaign_deleting_error(campaign: Campaign) -> InputError:
    """The refusal of anything new on a campaign being deleted (docs/pooling.md, "Deleting a campaign")."""
    return InputError(f"campaign '{campaign.name}' is being deleted: nothing new is started on it")


def judged_count(judged_items: JudgedItems) -> tuple[int, int]:
    """(judged items, topics with a judged item): what the refusals and the confirmation pages count."""
    return sum(len(items) for items in judged_items.values()), len(judged_items)


@dataclass(frozen=True)
class PoolBuildResult:
    """What a build made. None: not for this build (a field of formulas only, or of a rebuild once judging has
    started); `as_json` leaves those out, as the job's result and the API show it."""

    sizes: dict[str, int]  # topic id -> pooled items (post ids, or visual ids)
    items: int
    overflow: dict[str, int] | None = None  # formulas: topic id -> visual ids with more than N candidate instances
    selected: int | None = None  # formulas: instances selected to judge
    unpooled: list[list[str]] | None = None  # a forced rebuild: [topic id, item id] of judged items left out
    # A pool-only collection: the pooled documents read from its corpus by this build, and those it lacks.
    documents_stored: int | None = None
    documents_missing: list[str] | None = None

    def as_json(self) -> dict:
        return {key: value for key, value in asdict(self).items() if value is not None}

    def warnings(self) -> list[str]:
        return unpooled_warnings(self.unpooled or []) + missing_documents_warnings(self.documents_missing or [])


def unpooled_warnings(unpooled: list[list[str]]) -> list[str]:
    """The judged items new pools left out, as job warnings, command lines and pages say them."""
    return [f"topic {topic}: judged item {item} is no longer in the pool; its judgments are kept"
            for topic, item in unpooled]


@transaction.atomic
def pool_build(*, campaign: Campaign, judged_items: JudgedItems, force: bool = False,
               progress: Progress = None) -> PoolBuildResult:
    """Pools every topic of the campaign and replaces its pool rows; building twice gives identical rows. When the
    collection is read from a corpus, the pooled documents not stored yet are then read from it (pool_texts_fetch,
    whose pass over the corpus is what `progress` reports).

    `judged_items` says what is judged so far (nothing: {}). Once judging has started it refuses, unless `force`:
    then the judgments stay as they are (they name their items by id), and the result lists under `unpooled` the
    judged items the new pools no longer hold.
    """
    campaign_lock(campaign=campaign)
    runs = {run.pk: run for run in campaign.runs.all()}
    if not runs and not Candidate.objects.filter(campaign=campaign).exists():
        raise InputError(f"campaign '{campaign.name}' has no runs: ingest its runs before building pools")
    if judged_items and not force:
        count, judged_topics = judged_count(judged_items)
        raise InputError(
            f"judging has started in campaign '{campaign.name}' ({count} judged items in {judged_topics} topics): "
            "the pools were not rebuilt. A forced rebuild (build_pools --force) keeps every judgment and "
            "reports the judged items that the new pools leave out")
    depths = {run.name: run_depth(run=run, campaign=campaign) for run in runs.values()}
    topics = list(campaign.topics.order_by("position", "pk").values_list("pk", "topic_id"))

    pool_rows_delete(campaign)
    if campaign.task == Campaign.Task.ANSWERS:
        result = _build_answers(campaign, runs, depths, topics)
    else:
        result = _build_formulas(campaign, depths, topics)
    if judged_items:
        result = replace(result, unpooled=_unpooled(campaign, judged_items, dict(topics)))
    texts = pool_texts_fetch(campaign=campaign, progress=progress)
    if texts is not None:
        result = replace(result, documents_stored=texts.stored, documents_missing=texts.missing)
    pool_plan_store(campaign=campaign)
    pool_contributions_store(campaign=campaign)
    return result


def pool_plan_store(*, campaign: Campaign) -> None:
    """Computes the planner at its default depths and stores it on the campaign (the pool build calls it)."""
    rows = pool_plan_compute(campaign=campaign, depths=PLAN_DEPTHS[campaign.task], seconds_per_judgment=None)
    campaign.pool_plan = {"stamp": plan_stamp(campaign),
                          "rows": [[r.depth, r.alternate_depth, r.items, r.judgments] for r in rows]}
    Campaign.objects.filter(pk=campaign.pk).update(pool_plan=campaign.pool_plan)


def pool_contributions_store(*, campaign: Campaign) -> None:
    """Counts each run's contribution to the pools just built and stores it on the campaign with the pool rows it
    was counted from (selectors.run_contributions reads it while they stay the same)."""
    counted = run_contributions_compute(campaign=campaign)
    campaign.pool_contributions = {"stamp": pool_stamp(campaign),
                                   "runs": {name: [c.contributed, c.unique] for name, c in counted.items()}}
    Campaign.objects.filter(pk=campaign.pk).update(pool_contributions=campaign.pool_contributions)


def _unpooled(campaign: Campaign, judged: JudgedItems, topic_ids: dict[int, str]) -> list[list[str]]:
    """[topic id, item id] of the judged items that are not in the (new) pools, in topic and id order."""
    pooled = set(PoolItem.objects.filter(campaign=campaign).values_list("topic_id", "item_id"))
    missing = [(topic_pk, item) for topic_pk, items in judged.items() for item in items
               if (topic_pk, item) not in pooled]
    missing.sort(key=lambda pair: (pair[0], id_order_key(pair[1])))
    return [[topic_ids.get(topic_pk, str(topic_pk)), item] for topic_pk, item in missing]


def pool_rows_delete(campaign: Campaign) -> None:
    """Deletes the campaign's pool rows in two statements (Django's delete would first load every row)."""
    rows_delete(PoolInstance.objects.filter(item__campaign=campaign))
    rows_delete(PoolItem.objects.filter(campaign=campaign))


def _items_insert(campaign: Campaign, rows: list[tuple[int, str, int, list]]) -> None:
    """Stores pool items given as (topic pk, item id, position, provenance), by COPY on PostgreSQL."""
    bulk_insert(PoolItem, ["campaign", "topic", "item_id", "position", "provenance"],
                ((campaign.pk, topic_pk, item_id, position, json.dumps(provenance))
                 for topic_pk, item_id, position, provenance in rows))


@transaction.atomic
def pool_items_add(*, campaign: Campaign, items: dict[int, list[str]]) -> int:
    """Adds these answers (topic pk -> post ids that its pool lacks, in order) at the end of their topics' pools, for
    an import of judgments made elsewhere (docs/judging.md, "Importing judgments"). Each is also a candidate of the
    source IMPORTED, so that a later pool build pools it again, and its provenance says so. Returns how many were
    added."""
    campaign_lock(campaign=campaign)
    if campaign.task != Campaign.Task.ANSWERS:
        raise InputError(f"campaign '{campaign.name}' pools formulas, whose pool items are built with their "
                         "instances from the runs: items outside the pools can be skipped, not added")
    wanted = {topic_pk: listed for topic_pk, listed in items.items() if listed}
    last_item = {topic_pk: last for topic_pk, last in PoolItem.objects.filter(topic__in=wanted).values("topic")
                 .annotate(last=Max("position")).values_list("topic_id", "last")}
    last_candidate = {topic_pk: last for topic_pk, last in Candidate.objects.filter(topic__in=wanted)
                      .values("topic").annotate(last=Max("position")).values_list("topic_id", "last")}
    candidates, pooled = [], []
    for topic_pk, listed in wanted.items():
        start, first = last_item.get(topic_pk, -1) + 1, last_candidate.get(topic_pk, 0) + 1
        for n, item_id in enumerate(listed):
            candidates.append((campaign.pk, topic_pk, item_id, IMPORTED, "", first + n))
            pooled.append((topic_pk, item_id, start + n, [[CANDIDATES + IMPORTED, first + n]]))
    bulk_insert(Candidate, ["campaign", "topic", "item_id", "source", "note", "position"], candidates)
    _items_insert(campaign, pooled)
    pool_texts_fetch(campaign=campaign)
    pool_contributions_store(campaign=campaign)
    return len(pooled)


def _build_answers(campaign, runs, depths, topics) -> PoolBuildResult:
    # topic pk -> run name -> post ids in rank order, cut at the run's depth so memory stays small; a run pooled whole
    # (a RAG answer run: the ids it cites) is read whole and pooled to the length of its longest list.
    whole = {run.name for run in runs.values() if pooled_whole(run)}
    deepest = max((depth for name, depth in depths.items() if name not in whole), default=1)
    depths = dict(depths)
    ranked: dict[int, dict[str, list[str]]] = {}
    for run_pk, topic_pk, item_id, _post_id in (top_entries(campaign, deepest) if depths else ()):
        name = runs[run_pk].name
        items = ranked.setdefault(topic_pk, {}).setdefault(name, [])
        if name in whole:
            items.append(item_id)
            depths[name] = max(depths[name], len(items))
        elif len(items) < depths[name]:
            items.append(item_id)
    # Candidates are pooled as runs named by their source, `candidates:<source>`, at every depth: their provenance.
    for topic_pk, lists in _candidate_lists(campaign).items():
        for name, listed in lists.items():
            ranked.setdefault(topic_pk, {})[name] = listed
            depths[name] = max(depths.get(name, 0), len(listed))

    rows: list[tuple[int, str, int, list]] = []
    sizes: dict[str, int] = {}
    left_out = suspect_items(campaign)
    for topic_pk, topic_id in topics:
        pool = pool_answers(ranked.get(topic_pk, {}), depths, left_out)
        order = display_order(pool, seed=campaign.seed, topic_id=topic_id)
        rows += [(topic_pk, item_id, position, pool[item_id]) for position, item_id in enumerate(order)]
        sizes[topic_id] = len(order)
    _items_insert(campaign, rows)
    return PoolBuildResult(sizes=sizes, items=len(rows))


def _candidate_lists(campaign: Campaign) -> dict[int, dict[str, list[str]]]:
    """topic pk -> `candidates:<source>` -> the topic's candidates from that source, in the file's order."""
    lists: dict[int, dict[str, list[str]]] = {}
    for topic_pk, item_id, source in (Candidate.objects.filter(campaign=campaign).order_by("topic", "position")
                                      .values_list("topic_id", "item_id", "source")):
        lists.setdefault(topic_pk, {}).setdefault(CANDIDATES + source, []).append(item_id)
    return lists


def _threads(campaign: Campaign, post_ids: set[str]) -> dict[str, str]:
    """post id -> thread id from the collection's posts, for instances whose formula row has no thread."""
    if campaign.collection_id is None or not post_ids:
        return {}
    wanted = sorted(post_ids, key=id_order_key)
    found: dict[str, str] = {}
    for start in range(0, len(wanted), LOOKUP_CHUNK):
        found.update(Post.objects.filter(collection_id=campaign.collection_id,
                                         post_id__in=wanted[start:start + LOOKUP_CHUNK])
                     .values_list("post_id", "thread_id"))
    return found


def _build_formulas(campaign, depths, topics) -> PoolBuildResult:
    ranked, post_of, thread_of = formula_prefixes(campaign, depths)

    posts: dict[str, tuple[str, str]] | None = None
    if campaign.selection == Campaign.Selection.THREAD_SPREAD:
        threads = _threads(campaign, {p for f, p in post_of.items() if f not in thread_of})
        # A post the collection does not know is taken as a thread of its own.
        posts = {f: (p, thread_of.get(f) or threads.get(p) or p) for f, p in post_of.items()}

    items: list[tuple[int, str, int, list]] = []
    candidates: list[tuple[int, str, str, str, float, bool]] = []
    sizes: dict[str, int] = {}
    overflow: dict[str, int] = {}
    selected_total = 0
    left_out = suspect_items(campaign)
    for topic_pk, topic_id in topics:
        pool = pool_formulas(ranked.get(topic_pk, {}), depths, left_out)
        chosen = select_instances(pool, n=campaign.instances, policy=campaign.selection, seed=campaign.seed,
                                  topic_id=topic_id, posts=posts)
        for position, visual_id in enumerate(display_order(pool, seed=campaign.seed, topic_id=topic_id)):
            instances = pool[visual_id]
            items.append((topic_pk, visual_id, position, _best_ranks(instances)))
            picked = set(chosen[visual_id])
            selected_total += len(picked)
            candidates += [(topic_pk, visual_id, formula_id, post_of[formula_id],
                            float(rr_vote(instances[formula_id])), formula_id in picked)
                           for formula_id in sorted(instances, key=id_order_key)]
        sizes[topic_id] = len(pool)
        overflow[topic_id] = overflow_count(pool, campaign.instances)
    _items_insert(campaign, items)
    item_pk = {(topic_pk, item_id): pk for topic_pk, item_id, pk in
               PoolItem.objects.filter(campaign=campaign).values_list("topic_id", "item_id", "pk")}
    bulk_insert(PoolInstance, ["item", "formula_id", "post_id", "vote", "selected"],
                ((item_pk[(topic_pk, visual_id)], formula_id, post_id, vote, selected)
                 for topic_pk, visual_id, formula_id, post_id, vote, selected in candidates))
    return PoolBuildResult(sizes=sizes, items=len(items), overflow=overflow, selected=selected_total)


def _best_ranks(instances: dict[str, list[tuple[str, int]]]) -> list[list]:
    """A visual id's provenance: each run that pooled one of its instances, at the best rank it did, by run name."""
    best: dict[str, int] = {}
    for provenance in instances.values():
        for run, rank in provenance:
            best[run] = min(rank, best.get(run, rank))
    return [[run, best[run]] for run in sorted(best)]

"""Pool building (SPEC 4): the campaign's runs read in rank order, pooled per topic, stored as pool rows."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace

from django.db import connection, transaction

from ..algorithms.answers import pool_answers
from ..algorithms.formulas import overflow_count, pool_formulas, rr_vote, select_instances
from ..algorithms.ids import id_order_key
from ..algorithms.order import display_order
from ..algorithms.visual import cluster_visual_ids
from ..bulk import bulk_insert
from ..errors import InputError
from ..models import Campaign, Formula, PoolInstance, PoolItem, Post, Run, RunEntry
from ..signals import pools_rebuilt

BATCH = 5000
# Post ids per lookup query: below SQLite's limit of bound parameters.
LOOKUP_CHUNK = 500


# Apps that keep work on pool items (the judging app) register here a function that gives, for a campaign, the
# item ids judged so far per topic pk. Pooling never imports them (the arrows between apps point one way).
JUDGED_ITEM_SOURCES: list[Callable[[Campaign], dict[int, set[str]]]] = []


def judged_items(*, campaign: Campaign) -> dict[int, set[str]]:
    """Topic pk -> item ids with at least one judgment, from every registered source."""
    judged: dict[int, set[str]] = {}
    for source in JUDGED_ITEM_SOURCES:
        for topic_pk, items in source(campaign).items():
            judged.setdefault(topic_pk, set()).update(items)
    return judged


def run_depth(*, run: Run, campaign: Campaign) -> int:
    """The run's own depth when it has one, else the campaign's depth for primary or alternate runs."""
    if run.depth is not None:
        return run.depth
    return campaign.alternate_depth if run.alternate else campaign.primary_depth


@dataclass(frozen=True)
class PoolBuildResult:
    """What a build made. None: not for this build (a field of formulas only, or of a rebuild once judging has
    started); `as_json` leaves those out, as the job's result and the API show it."""

    sizes: dict[str, int]  # topic id -> pooled items (post ids, or visual ids)
    items: int
    overflow: dict[str, int] | None = None  # formulas: topic id -> visual ids with more than N candidate instances
    selected: int | None = None  # formulas: instances selected to judge
    unpooled: list[list[str]] | None = None  # a forced rebuild: [topic id, item id] of judged items left out

    def as_json(self) -> dict:
        return {key: value for key, value in asdict(self).items() if value is not None}


def unpooled_warnings(unpooled: list[list[str]]) -> list[str]:
    """The judged items new pools left out, as job warnings, command lines and pages say them."""
    return [f"topic {topic}: judged item {item} is no longer in the pool; its judgments are kept"
            for topic, item in unpooled]


@transaction.atomic
def pool_build(*, campaign: Campaign, force: bool = False) -> PoolBuildResult:
    """Pools every topic of the campaign and replaces its pool rows; building twice gives identical rows.

    Once judging has started it refuses, unless `force`: then the judgments stay as they are (they name their
    items by id), and the result lists under `unpooled` the judged items the new pools no longer hold.
    """
    # Locks the campaign so that two builds (or a build and a judgment check) do not interleave.
    Campaign.objects.select_for_update().filter(pk=campaign.pk).exists()
    runs = {run.pk: run for run in campaign.runs.all()}
    if not runs:
        raise InputError(f"campaign '{campaign.name}' has no runs: ingest its runs before building pools")
    judged = judged_items(campaign=campaign)
    if judged and not force:
        count = sum(len(items) for items in judged.values())
        raise InputError(
            f"judging has started in campaign '{campaign.name}' ({count} judged items in {len(judged)} topics): "
            "the pools were not rebuilt. A forced rebuild (build_pools --force) keeps every judgment and "
            "reports the judged items that the new pools leave out")
    depths = {run.name: run_depth(run=run, campaign=campaign) for run in runs.values()}
    topics = list(campaign.topics.order_by("position", "pk").values_list("pk", "topic_id"))

    _pool_delete(campaign)
    if campaign.task == Campaign.Task.ANSWERS:
        result = _build_answers(campaign, runs, depths, topics)
    else:
        result = _build_formulas(campaign, depths, topics)
    if judged:
        result = replace(result, unpooled=_unpooled(campaign, judged, dict(topics)))
        pools_rebuilt.send(sender=Campaign, campaign=campaign)
    return result


def _unpooled(campaign: Campaign, judged: dict[int, set[str]], topic_ids: dict[int, str]) -> list[list[str]]:
    """[topic id, item id] of the judged items that are not in the (new) pools, in topic and id order."""
    pooled = set(PoolItem.objects.filter(campaign=campaign).values_list("topic_id", "item_id"))
    missing = [(topic_pk, item) for topic_pk, items in judged.items() for item in items
               if (topic_pk, item) not in pooled]
    missing.sort(key=lambda pair: (pair[0], id_order_key(pair[1])))
    return [[topic_ids.get(topic_pk, str(topic_pk)), item] for topic_pk, item in missing]


def _positioned(campaign: Campaign, start: int, stop: int,
                pairs: list[tuple[int, int]] | None = None) -> tuple[str, list]:
    """SQL and parameters for the entries at positions start+1..stop of each run's list for a topic (ordered by
    rank, then item id), as rows (run_id, topic_id, item_id, post_id, n); only the listed (run pk, topic pk)
    pairs when given.

    A run whose ranks are its rows' positions (Run.ranks_are_positions, as real runs are) is cut on the rank
    itself: the database reads the run's rows through the key's run prefix and keeps the ranks in range. The
    other runs are numbered with ROW_NUMBER(), which sorts every row of those runs: an ARQMath run by rank, then
    item id; a TREC run in trec_eval's order, whatever its ranks (they may start at 0): score descending, then
    item id descending, byte by byte (docs/formats.md). The reader marks a TREC run whose file order is another
    as not positioned (RunSummary.irregular_topics).
    """
    qn = connection.ops.quote_name
    source = (f"FROM {qn(RunEntry._meta.db_table)} e JOIN {qn(Run._meta.db_table)} r ON r.id = e.run_id "
              f"WHERE r.campaign_id = %s AND")
    where, pair_params = "", []
    if pairs is not None:
        where = " AND (e.run_id, e.topic_id) IN (VALUES " + ", ".join(["(%s, %s)"] * len(pairs)) + ")"
        pair_params = [value for pair in pairs for value in pair]
    byte_order = ' COLLATE "C"' if connection.vendor == "postgresql" else ""  # SQLite compares bytes already
    trec = Run.Format.TREC.value
    numbered = ("UNION ALL SELECT * FROM (SELECT e.run_id, e.topic_id, e.item_id, e.post_id, ROW_NUMBER() OVER "
                "(PARTITION BY e.run_id, e.topic_id ORDER BY {order}) AS n " + source
                + " NOT r.ranks_are_positions AND r.format {test} %s" + where + ") x{part} WHERE x{part}.n > %s "
                "AND x{part}.n <= %s ")
    sql = (f"SELECT e.run_id, e.topic_id, e.item_id, e.post_id, e.rank AS n {source} r.ranks_are_positions{where} "
           f"AND e.rank > %s AND e.rank <= %s "
           + numbered.format(order="e.rank, e.item_id", test="<>", part="a")
           + numbered.format(order=f"e.score DESC, e.item_id{byte_order} DESC", test="=", part="b"))
    params = [campaign.pk, *pair_params, start, stop]
    numbered_params = [campaign.pk, trec, *pair_params, start, stop]
    return sql, params + numbered_params + numbered_params


def _fetch(sql: str, params: list) -> Iterator[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(BATCH):
            yield from rows


def top_entries(campaign: Campaign, depth: int) -> Iterator[tuple[int, int, str, str]]:
    """(run pk, topic pk, item id, post id) of the first `depth` entries of each run and topic, in run, topic
    and rank order, cut by the database: a pool of depth 45 reads 45 of every 1000 rows instead of all of them."""
    sql, params = _positioned(campaign, 0, depth)
    return _fetch(f"SELECT run_id, topic_id, item_id, post_id FROM ({sql}) p ORDER BY run_id, topic_id, n", params)


def _pool_delete(campaign: Campaign) -> None:
    """Deletes the campaign's pool rows in two statements (Django's delete would first load every row)."""
    qn = connection.ops.quote_name
    items = qn(PoolItem._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {qn(PoolInstance._meta.db_table)} WHERE item_id IN "
                       f"(SELECT id FROM {items} WHERE campaign_id = %s)", [campaign.pk])
        cursor.execute(f"DELETE FROM {items} WHERE campaign_id = %s", [campaign.pk])


def _items_insert(campaign: Campaign, rows: list[tuple[int, str, int, list]]) -> None:
    """Stores pool items given as (topic pk, item id, position, provenance), by COPY on PostgreSQL."""
    bulk_insert(PoolItem, ["campaign", "topic", "item_id", "position", "provenance"],
                ((campaign.pk, topic_pk, item_id, position, json.dumps(provenance))
                 for topic_pk, item_id, position, provenance in rows))


def _build_answers(campaign, runs, depths, topics) -> PoolBuildResult:
    # topic pk -> run name -> post ids in rank order, cut at the run's depth so memory stays small.
    ranked: dict[int, dict[str, list[str]]] = {}
    for run_pk, topic_pk, item_id, _post_id in top_entries(campaign, max(depths.values())):
        name = runs[run_pk].name
        items = ranked.setdefault(topic_pk, {}).setdefault(name, [])
        if len(items) < depths[name]:
            items.append(item_id)

    rows: list[tuple[int, str, int, list]] = []
    sizes: dict[str, int] = {}
    for topic_pk, topic_id in topics:
        pool = pool_answers(ranked.get(topic_pk, {}), depths)
        order = display_order(pool, seed=campaign.seed, topic_id=topic_id)
        rows += [(topic_pk, item_id, position, pool[item_id]) for position, item_id in enumerate(order)]
        sizes[topic_id] = len(order)
    _items_insert(campaign, rows)
    return PoolBuildResult(sizes=sizes, items=len(rows))


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


# Entries read first per run and topic: a pooled prefix (up to the k-th distinct visual id) is rarely longer;
# the lists that need more are read again, past this point, in a second query.
PREFIX_ROWS = 120


def _formula_rows(campaign: Campaign, start: int, pairs: list[tuple[int, int]] | None = None):
    """Entries with their formula's (visual id, post id, thread id), in rank order per run and topic: the rows
    numbered start+1..start+PREFIX_ROWS of every list, or every row after start of the listed (run, topic) pairs.
    The formula columns are NULL for a formula the collection does not have."""
    qn = connection.ops.quote_name
    sql, params = _positioned(campaign, start, 2**62 if pairs is not None else start + PREFIX_ROWS, pairs)
    return _fetch(f"SELECT p.run_id, p.topic_id, p.item_id, p.post_id, f.visual_id, f.post_id, f.thread_id FROM "
                  f"({sql}) p LEFT JOIN {qn(Formula._meta.db_table)} f ON f.collection_id = %s "
                  f"AND f.formula_id = p.item_id ORDER BY p.run_id, p.topic_id, p.n",
                  [*params, campaign.collection_id])


def _unnamed_clusters(campaign: Campaign) -> dict[str, str]:
    """Computed visual ids (SPEC 4.2) of the collection's formulas that have none in the index, clustered with
    every such formula of the collection so that a computed id does not change when a run is added."""
    if campaign.collection_id is None:
        return {}
    return cluster_visual_ids(Formula.objects.filter(collection_id=campaign.collection_id, visual_id__regex=r"^\s*$")
                              .values_list("formula_id", "visual_id", "slt", "latex").iterator(chunk_size=BATCH))


def visual_id_resolver(campaign: Campaign) -> Callable[[str, str | None], str]:
    """The visual id the campaign's pools give a formula instance, from the index's row for it (None: the
    collection does not have the formula): the index's visual id; a computed one where the index has none; the
    formula id itself for a formula the collection does not know. Evaluation maps runs the same way."""
    clusters: dict[str, str] | None = None

    def resolve(formula_id: str, visual_id: str | None) -> str:
        nonlocal clusters
        if visual_id is None:
            return formula_id
        if not visual_id.strip():
            clusters = clusters if clusters is not None else _unnamed_clusters(campaign)
            return clusters[formula_id]
        return visual_id.strip()

    return resolve


def formula_prefixes(campaign: Campaign, depths: dict[str, int]):
    """Each run's list per topic in rank order, cut where its k-th distinct visual id first appears (the pooled
    prefix, SPEC 4.3; k = depths[run name]): topic pk -> run name -> [(formula id, post id, visual id)], plus
    formula id -> post id and formula id -> thread id.

    A formula the collection does not know is its own visual id, with the post id the run gave for it: it is
    still judged, as a formula of its own.
    """
    runs = dict(campaign.runs.values_list("pk", "name"))
    ranked: dict[int, dict[str, list[tuple[str, str, str]]]] = {}
    distinct: dict[tuple[int, str], set[str]] = {}
    fetched: dict[tuple[int, int], int] = {}
    post_of: dict[str, str] = {}
    thread_of: dict[str, str] = {}
    resolve = visual_id_resolver(campaign)

    def take(rows) -> None:
        for run_pk, topic_pk, formula_id, entry_post_id, visual_id, formula_post_id, thread_id in rows:
            name = runs[run_pk]
            fetched[(run_pk, topic_pk)] = fetched.get((run_pk, topic_pk), 0) + 1
            seen = distinct.setdefault((topic_pk, name), set())
            entries = ranked.setdefault(topic_pk, {}).setdefault(name, [])
            if len(seen) >= depths[name]:
                continue
            visual_id = resolve(formula_id, visual_id)
            post_id = formula_post_id or entry_post_id
            post_of.setdefault(formula_id, post_id)
            if thread_id:
                thread_of.setdefault(formula_id, thread_id)
            entries.append((formula_id, post_id, visual_id))
            seen.add(visual_id)

    # This cut only decides how far to read; pool_formulas applies the rule itself (algorithms.formulas._prefix)
    # to what it is given, so the two cannot disagree on what is pooled.
    take(_formula_rows(campaign, 0))
    deeper = [(run_pk, topic_pk) for (run_pk, topic_pk), count in fetched.items()
              if count == PREFIX_ROWS and len(distinct[(topic_pk, runs[run_pk])]) < depths[runs[run_pk]]]
    for start in range(0, len(deeper), LOOKUP_CHUNK):
        take(_formula_rows(campaign, PREFIX_ROWS, deeper[start:start + LOOKUP_CHUNK]))
    return ranked, post_of, thread_of


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
    for topic_pk, topic_id in topics:
        pool = pool_formulas(ranked.get(topic_pk, {}), depths)
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

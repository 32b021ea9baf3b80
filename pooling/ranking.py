"""Reads of a campaign's runs as pooling reads them (docs/pooling.md): each run's depth, its top entries per topic, the
formula prefixes up to the k-th distinct visual id, and the visual id a formula instance maps to. Read-only: the
pool build (services/pools.py), the planner (selectors.pool_plan) and evaluation's qrels (evaluation/selectors.py)
all read through here, so the planner's row at the campaign's own depths is its pool."""
from __future__ import annotations

from collections.abc import Callable, Iterator

from django.db import connection
from django.db.models import Exists, OuterRef

from ir.pools.visual import cluster_visual_ids
from pooling.models import Campaign, Formula, Post, Run, RunEntry

BATCH = 5000
# Post ids per lookup query: below SQLite's limit of bound parameters.
LOOKUP_CHUNK = 500


# Runs pooled whole, every entry of every topic, whatever the depths: a TREC RAG answer run's entries are the ids its
# answers cite (docs/pooling.md, "Generated answers with citations").
WHOLE_FORMATS = (Run.Format.TREC_RAG.value,)


def pooled_whole(run: Run) -> bool:
    """Whether pooling takes all of the run's entries whatever the campaign's (or planner's) depth."""
    return run.format in WHOLE_FORMATS


def run_depth(*, run: Run, campaign: Campaign) -> int:
    """The run's own depth when it has one, else the campaign's depth for primary or alternate runs (a run pooled
    whole, `pooled_whole`, is read whole whatever this says)."""
    if run.depth is not None:
        return run.depth
    return campaign.alternate_depth if run.alternate else campaign.primary_depth


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
    as not positioned (RunSummary.irregular_topics). A run pooled whole (WHOLE_FORMATS, its ranks its positions) is
    read past `stop`: all of its entries after `start`.
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
    whole = ", ".join(["%s"] * len(WHOLE_FORMATS))
    sql = (f"SELECT e.run_id, e.topic_id, e.item_id, e.post_id, e.rank AS n {source} r.ranks_are_positions{where} "
           f"AND e.rank > %s AND (e.rank <= %s OR r.format IN ({whole})) "
           + numbered.format(order="e.rank, e.item_id", test="<>", part="a")
           + numbered.format(order=f"e.score DESC, e.item_id{byte_order} DESC", test="=", part="b"))
    params = [campaign.pk, *pair_params, start, stop, *WHOLE_FORMATS]
    numbered_params = [campaign.pk, trec, *pair_params, start, stop]
    return sql, params + numbered_params + numbered_params


def suspect_items(campaign: Campaign) -> dict[str, set[str]]:
    """Run name -> the ids of that run that the collection has, for the runs most of whose ids it lacks and that the
    organizer has not confirmed (`Run.suspect`): numbers another collection's items share, which pooling leaves out
    (docs/pooling.md, "Suspect matches"). The pool build and the planner read them here, so they agree."""
    runs = campaign.runs.filter(mostly_missing=True, matches_confirmed=False)
    if campaign.collection_id is None or not runs.exists():
        return {}
    model, column = (Post, "post_id") if campaign.task == Campaign.Task.ANSWERS else (Formula, "formula_id")
    known = model.objects.filter(collection_id=campaign.collection_id, **{column: OuterRef("item_id")})
    found: dict[str, set[str]] = {}
    for name, item_id in (RunEntry.objects.filter(run__in=runs).filter(Exists(known)).order_by()
                          .values_list("run__name", "item_id").iterator(chunk_size=BATCH)):
        found.setdefault(name, set()).add(item_id)
    return found


def _fetch(sql: str, params: list) -> Iterator[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(BATCH):
            yield from rows


def top_entries(campaign: Campaign, depth: int) -> Iterator[tuple[int, int, str, str]]:
    """(run pk, topic pk, item id, post id) of the first `depth` entries of each run and topic (every entry of a run
    pooled whole), in run, topic and rank order, cut by the database: a pool of depth 45 reads 45 of every 1000 rows
    instead of all of them."""
    sql, params = _positioned(campaign, 0, depth)
    return _fetch(f"SELECT run_id, topic_id, item_id, post_id FROM ({sql}) p ORDER BY run_id, topic_id, n", params)


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
    """Computed visual ids (docs/pooling.md) of the collection's formulas that have none in the index, clustered with
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
    prefix, docs/pooling.md; k = depths[run name]): topic pk -> run name -> [(formula id, post id, visual id)], plus
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

"""Pooling benchmark: Task 1 pool_build on 40 runs x 100 topics x 1000 rows, against trectools' TrecPoolMaker.

Uses the run files bench/ingest.py generates (generating them if missing, with its code) and ingests them once
into its own campaign `bench-pooling` in assess_bench (kept, and reused while it holds exactly these runs).
Then, alternately for --rounds rounds, in the same process:

- product, ARQMath-3 settings: `pool_build` with half the runs alternate (depth 45 primary / 20 alternate);
- product, all runs primary (depth 45 for every run): the comparison figure;
- trectools 0.0.50: `TrecRun` on each run file (converted to 6-column TREC format before the clock starts),
  then `TrecPoolMaker().make_pool(runs, strategy="topX", topX=45)`.

The product reads the run entries from PostgreSQL, cuts each run at its depth, pools, computes the display order
and stores the pool rows (with provenance) in one transaction; trectools builds an in-memory dict of sets from
already-parsed DataFrames. Its file loading is timed separately and reported with and without. The all-primary
pools of both sides are compared topic by topic. Results land in docs/benchmarks.md ("Pooling").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench .venv/bin/python bench/pooling.py
    DATABASE_URL=... .venv/bin/python bench/pooling.py --runs 4 --topics 20 --depth 100 --posts 100000  # quick

trectools is a benchmark-only dependency: `.venv/bin/pip install trectools==0.0.50`.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import harness
import ingest as bench_ingest  # the generated inputs: Posts.xml, topic and run files
from harness import note
from pooling_formulas import campaign_with_runs, timed_pool_build

CAMPAIGN = "bench-pooling"
DEPTH, ALTERNATE_DEPTH = 45, 20
GOAL = 5.0  # the product at least 5x faster than trectools


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = harness.Parser(__doc__)
    bench_ingest.add_sizes(parser)
    parser.count("rounds", 3, "alternating measurement rounds")
    return parser.parse(argv)


# --- the campaign ------------------------------------------------------------------------------

def set_alternates(campaign, alternates: dict[str, bool]) -> None:
    """Marks the runs alternate or primary (outside the timing); the campaign depths stay 45 / 20."""
    from pooling.models import Run

    for alternate in (True, False):
        Run.objects.filter(campaign=campaign, name__in=[n for n, a in alternates.items() if a is alternate]) \
            .update(alternate=alternate, depth=None)


def timed_read(campaign) -> float:
    """Seconds to read what pool_build reads: each run's first 45 entries per topic (top_entries)."""
    from pooling.ranking import top_entries

    return harness.timed(lambda: sum(1 for _row in top_entries(campaign, DEPTH)))[0]


def timed_sql_cut(campaign) -> float:
    """Reference, not the product: seconds to fetch only each run's first 45 entries per topic, cut in SQL
    (row_number over run and topic in rank order): what reading the runs costs when the depth is applied in
    PostgreSQL rather than in Python."""
    from django.db import connection

    def cut() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT run_id, topic_id, item_id FROM (SELECT run_id, topic_id, item_id, row_number() "
                           "OVER (PARTITION BY run_id, topic_id ORDER BY rank, item_id) AS n FROM pooling_runentry "
                           "WHERE run_id IN (SELECT id FROM pooling_run WHERE campaign_id = %s)) e WHERE n <= %s",
                           [campaign.pk, DEPTH])
            cursor.fetchall()

    return harness.timed(cut)[0]


def product_pools(campaign) -> dict[str, set[str]]:
    from pooling.models import PoolItem

    pools: dict[str, set[str]] = {}
    for topic_id, item_id in PoolItem.objects.filter(campaign=campaign).values_list("topic__topic_id", "item_id"):
        pools.setdefault(topic_id, set()).add(item_id)
    return pools


# --- trectools ---------------------------------------------------------------------------------

def trec_files(files: list[tuple[Path, bool]], folder: Path) -> list[Path]:
    """ARQMath 5-column run files (topic, post, rank, score, tag) as 6-column TREC files: not timed."""
    converted = []
    for path, _alternate in files:
        target = folder / (path.stem + ".trec")
        with open(path, encoding="utf-8") as source, open(target, "w", encoding="utf-8") as sink:
            for line in source:
                topic, post_id, rank, score, tag = line.split()
                sink.write(f"{topic} Q0 {post_id} {rank} {score} {tag}\n")
        converted.append(target)
    return converted


def trectools_load(paths: list[Path]) -> tuple[float, list]:
    from trectools import TrecRun

    seconds, _cpu, runs = harness.timed(lambda: [TrecRun(str(path)) for path in paths])
    return seconds, runs


def trectools_pool(runs: list) -> tuple[float, dict[str, set[str]]]:
    from trectools import TrecPoolMaker

    seconds, _cpu, pool = harness.timed(TrecPoolMaker().make_pool, runs, strategy="topX", topX=DEPTH)
    return seconds, {str(topic): set(docs) for topic, docs in pool.pool.items()}


# --- main --------------------------------------------------------------------------------------

def main(argv: list[str]) -> None:
    args = parse_args(argv)
    try:
        import trectools
    except ImportError:
        sys.exit("trectools is missing: .venv/bin/pip install trectools==0.0.50 (benchmark-only dependency)")
    harness.database_url(harness.DEFAULT_DATABASE_URL, "bench/pooling.py")
    harness.setup_django()
    started = time.perf_counter()
    harness.ensure_database()
    out = args.out.resolve()
    posts_xml = bench_ingest.posts_file(out, args.posts)
    topics_xml, _ids = bench_ingest.topics_file(out, args.topics)
    files = bench_ingest.run_files(out, runs=args.runs, topic_ids=_ids, depth=args.depth, posts_xml=posts_xml)
    rows = sum(1 for path, _ in files for _ in open(path, encoding="utf-8"))
    campaign, ingest_seconds = campaign_with_runs(CAMPAIGN, topics_xml, len(_ids), files, rows, task="answers",
                                                  primary_depth=DEPTH, alternate_depth=ALTERNATE_DEPTH)
    arqmath3 = {path.stem: alternate for path, alternate in files}
    all_primary = dict.fromkeys(arqmath3, False)
    facts = harness.machine_facts(code=("pooling", "config"))
    facts["trectools"] = getattr(trectools, "__version__", "0.0.50")
    import pandas

    facts["pandas"] = pandas.__version__
    figures: dict[str, list[float]] = {k: [] for k in ("product arqmath3", "product depth45", "product read",
                                                         "sql cut", "trectools load", "trectools pool")}
    with tempfile.TemporaryDirectory(prefix="bench-pooling-") as tmp:
        trec_paths = trec_files(files, Path(tmp))
        for round_ in range(1, args.rounds + 1):
            note(f"round {round_}/{args.rounds}")
            set_alternates(campaign, arqmath3)
            seconds, arqmath3_result = timed_pool_build(campaign)
            figures["product arqmath3"].append(seconds)
            set_alternates(campaign, all_primary)
            seconds, depth45_result = timed_pool_build(campaign)
            figures["product depth45"].append(seconds)
            figures["product read"].append(timed_read(campaign))
            figures["sql cut"].append(timed_sql_cut(campaign))
            seconds, runs = trectools_load(trec_paths)
            figures["trectools load"].append(seconds)
            seconds, trec_pool = trectools_pool(runs)
            figures["trectools pool"].append(seconds)
            del runs
    ours = product_pools(campaign)
    differing = sorted(t for t in set(ours) | set(trec_pool) if ours.get(t, set()) != trec_pool.get(t, set()))
    set_alternates(campaign, arqmath3)
    facts["load_after"] = harness.load()
    median = {k: statistics.median(v) for k, v in figures.items()}
    ratio = median["trectools pool"] / median["product depth45"]
    ratio_load = (median["trectools load"] + median["trectools pool"]) / median["product depth45"]
    lines = [
        f"Pooling benchmark (Task 1): {args.runs} runs x {args.topics} topics x {args.depth} rows ({rows:,} run "
        f"entries in PostgreSQL), {args.rounds} alternating rounds, medians",
        f"PostgreSQL {facts['postgresql']}, Python {facts['python']}, {facts['cores']} cores, trectools "
        f"{facts['trectools']}, pandas {facts['pandas']}; load average before {facts['load_before']}, after "
        f"{facts['load_after']}; code {facts['code']}"
        + (f"; runs ingested in {ingest_seconds:.1f} s" if ingest_seconds else ""),
        "",
        harness.table(["seconds (median; rounds)", "median", "rounds"], [
            _row("product: pool_build, ARQMath-3 (half alternate, 45 / 20), "
                 f"{arqmath3_result.items:,} items", figures["product arqmath3"]),
            _row(f"product: pool_build, all runs depth 45, {depth45_result.items:,} items [compared]",
                 figures["product depth45"]),
            _row("- of which at most: reading the run entries (top_entries, alone)", figures["product read"]),
            _row(f"reference: first {DEPTH} entries per run and topic, cut in SQL (row_number)", figures["sql cut"]),
            _row(f"trectools: make_pool(topX={DEPTH}) on loaded TrecRuns, "
                 f"{sum(len(s) for s in trec_pool.values()):,} items", figures["trectools pool"]),
            _row(f"trectools: loading the {args.runs} TREC files (TrecRun)", figures["trectools load"])]),
        "",
        "pools equal topic by topic (depth 45): "
        + ("yes" if not differing else "NO, differing topics: " + ", ".join(differing[:10])),
        f"trectools make_pool / product pool_build     {ratio:7.2f}   goal >= {GOAL:g}   "
        f"{'met' if ratio >= GOAL else 'MISSED'}",
        f"trectools load + make_pool / product         {ratio_load:7.2f}   goal >= {GOAL:g}   "
        f"{'met' if ratio_load >= GOAL else 'MISSED'}",
    ]
    print("\n".join(lines))
    result = {"args": vars(args), "facts": facts, "rows": rows,
              "figures": figures, "median": median, "ratio": ratio, "ratio_with_load": ratio_load,
              "items_arqmath3": arqmath3_result.items, "items_depth45": depth45_result.items,
              "differing_topics": differing, "wall_seconds": time.perf_counter() - started}
    harness.save(f"pooling-{args.runs}x{args.topics}x{args.depth}", result, out)
    note(f"took {result['wall_seconds'] / 60:.1f} minutes")


def _row(label: str, values: list[float]) -> list[str]:
    return [label, f"{statistics.median(values):.2f}", " ".join(f"{v:.2f}" for v in values)]


if __name__ == "__main__":
    main(sys.argv[1:])

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
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ingest as bench_ingest  # noqa: E402  (bench/ingest.py: Django set-up, generated files, machine facts)

ROOT = bench_ingest.ROOT
CAMPAIGN = "bench-pooling"
COLLECTION = "bench-pooling"
DEPTH, ALTERNATE_DEPTH = 45, 20
GOAL = 5.0  # the product at least 5x faster than trectools
note = bench_ingest.note


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="Task 1 run files (default 40)")
    parser.add_argument("--topics", type=int, default=100, help="topics per run, 1-100 (default 100)")
    parser.add_argument("--depth", type=int, default=1000, help="rows per topic (default 1000)")
    parser.add_argument("--posts", type=int, default=1_000_000,
                        help="posts of the generated Posts.xml the runs rank (default 1,000,000; selects the "
                             "run files bench/ingest.py made)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating measurement rounds (default 3)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out", help="where files are generated")
    args = parser.parse_args(argv)
    if not 1 <= args.topics <= 100:
        parser.error("--topics must be 1-100")
    if min(args.runs, args.depth, args.posts, args.rounds) < 1:
        parser.error("--runs, --depth, --posts and --rounds must be at least 1")
    return args


# --- the campaign ------------------------------------------------------------------------------

def campaign_with_runs(topics_xml: Path, files: list[tuple[Path, bool]]) -> tuple[object, float]:
    """The benchmark's campaign holding exactly `files` (ingested if it does not); (campaign, ingest seconds)."""
    from pooling import services
    from pooling.models import Campaign, RunEntry

    campaign = Campaign.objects.filter(name=CAMPAIGN).first()
    rows = sum(1 for path, _ in files for _ in open(path, encoding="utf-8"))
    if campaign is not None:
        names = set(campaign.runs.values_list("name", flat=True))
        if (names == {path.stem for path, _ in files}
                and RunEntry.objects.filter(run__campaign=campaign).count() == rows
                and campaign.topics.count() == len(topics_ids(topics_xml))):
            note(f"reusing campaign {CAMPAIGN} ({len(names)} runs, {rows:,} rows)")
            return campaign, 0.0
        note(f"campaign {CAMPAIGN} holds other runs: deleting it")
        RunEntry.objects.filter(run__campaign=campaign).delete()
        campaign.delete()
    campaign = services.campaign_create(name=CAMPAIGN, task="answers", collection_name=COLLECTION,
                                        primary_depth=DEPTH, alternate_depth=ALTERNATE_DEPTH)
    services.topics_ingest(campaign=campaign, path=topics_xml)
    start = time.perf_counter()
    for n, (path, alternate) in enumerate(files, 1):
        note(f"ingesting run {n}/{len(files)}: {path.name}")
        services.run_ingest(campaign=campaign, path=path, name=path.stem, alternate=alternate)
    return campaign, time.perf_counter() - start


def topics_ids(topics_xml: Path) -> list[str]:
    from xml.etree import ElementTree

    return [topic.get("number") for topic in ElementTree.parse(topics_xml).getroot()]


def set_alternates(campaign, alternates: dict[str, bool]) -> None:
    """Marks the runs alternate or primary (outside the timing); the campaign depths stay 45 / 20."""
    from pooling.models import Run

    for alternate in (True, False):
        Run.objects.filter(campaign=campaign, name__in=[n for n, a in alternates.items() if a is alternate]) \
            .update(alternate=alternate, depth=None)


def timed_pool_build(campaign) -> tuple[float, dict]:
    from pooling import services
    from pooling.models import Campaign

    campaign = Campaign.objects.get(pk=campaign.pk)
    start = time.perf_counter()
    result = services.pool_build(campaign=campaign, judged_items={})  # one transaction: committed when it returns
    return time.perf_counter() - start, result


def timed_read(campaign) -> float:
    """Seconds to read what pool_build reads: each run's first 45 entries per topic (top_entries)."""
    from pooling.ranking import top_entries

    start = time.perf_counter()
    for _row in top_entries(campaign, DEPTH):
        pass
    return time.perf_counter() - start


def timed_sql_cut(campaign) -> float:
    """Reference, not the product: seconds to fetch only each run's first 45 entries per topic, cut in SQL
    (row_number over run and topic in rank order): what reading the runs costs when the depth is applied in
    PostgreSQL rather than in Python."""
    from django.db import connection

    start = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SELECT run_id, topic_id, item_id FROM (SELECT run_id, topic_id, item_id, row_number() "
                       "OVER (PARTITION BY run_id, topic_id ORDER BY rank, item_id) AS n FROM pooling_runentry "
                       "WHERE run_id IN (SELECT id FROM pooling_run WHERE campaign_id = %s)) e WHERE n <= %s",
                       [campaign.pk, DEPTH])
        cursor.fetchall()
    return time.perf_counter() - start


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

    start = time.perf_counter()
    runs = [TrecRun(str(path)) for path in paths]
    return time.perf_counter() - start, runs


def trectools_pool(runs: list) -> tuple[float, dict[str, set[str]]]:
    from trectools import TrecPoolMaker

    start = time.perf_counter()
    pool = TrecPoolMaker().make_pool(runs, strategy="topX", topX=DEPTH)
    seconds = time.perf_counter() - start
    return seconds, {str(topic): set(docs) for topic, docs in pool.pool.items()}


# --- main --------------------------------------------------------------------------------------

def main(argv: list[str]) -> None:
    args = parse_args(argv)
    try:
        import trectools
    except ImportError:
        sys.exit("trectools is missing: .venv/bin/pip install trectools==0.0.50 (benchmark-only dependency)")
    bench_ingest.setup_django()
    started = time.perf_counter()
    bench_ingest.ensure_database()
    out = args.out.resolve()
    posts_xml = bench_ingest.posts_file(out, args.posts)
    topics_xml, _ids = bench_ingest.topics_file(out, args.topics)
    files = bench_ingest.run_files(out, runs=args.runs, topic_ids=_ids, depth=args.depth, posts_xml=posts_xml)
    campaign, ingest_seconds = campaign_with_runs(topics_xml, files)
    arqmath3 = {path.stem: alternate for path, alternate in files}
    all_primary = dict.fromkeys(arqmath3, False)
    rows = sum(1 for path, _ in files for _ in open(path, encoding="utf-8"))
    facts = bench_ingest.server_facts()
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
    facts["load_after"] = bench_ingest.load()
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
        f"{'':<78}{'seconds':>9}  rounds",
        _row("product: pool_build, ARQMath-3 (half alternate, 45 / 20), "
             f"{arqmath3_result.items:,} items", figures["product arqmath3"]),
        _row(f"product: pool_build, all runs depth 45, {depth45_result.items:,} items [compared]",
             figures["product depth45"]),
        _row("  of which at most: reading the run entries (top_entries, alone)", figures["product read"]),
        _row(f"reference: first {DEPTH} entries per run and topic, cut in SQL (row_number)",
             figures["sql cut"]),
        _row(f"trectools: make_pool(topX={DEPTH}) on loaded TrecRuns, "
             f"{sum(len(s) for s in trec_pool.values()):,} items", figures["trectools pool"]),
        _row(f"trectools: loading the {args.runs} TREC files (TrecRun)", figures["trectools load"]),
        "",
        "pools equal topic by topic (depth 45): "
        + ("yes" if not differing else "NO, differing topics: " + ", ".join(differing[:10])),
        f"trectools make_pool / product pool_build     {ratio:7.2f}   goal >= {GOAL:g}   "
        f"{'met' if ratio >= GOAL else 'MISSED'}",
        f"trectools load + make_pool / product         {ratio_load:7.2f}   goal >= {GOAL:g}   "
        f"{'met' if ratio_load >= GOAL else 'MISSED'}",
    ]
    print("\n".join(lines))
    result = {"args": {k: str(v) for k, v in vars(args).items()}, "facts": facts, "rows": rows,
              "figures": figures, "median": median, "ratio": ratio, "ratio_with_load": ratio_load,
              "items_arqmath3": arqmath3_result.items, "items_depth45": depth45_result.items,
              "differing_topics": differing, "wall_seconds": time.perf_counter() - started}
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = out / f"pooling-{args.runs}x{args.topics}x{args.depth}-{stamp}.json"
    path.write_text(json.dumps(result, indent=2), encoding="utf-8")
    note(f"figures in {path}; took {result['wall_seconds'] / 60:.1f} minutes")


def _row(label: str, values: list[float]) -> str:
    return f"  {label:<76}{statistics.median(values):>9.2f}  " + " ".join(f"{v:.2f}" for v in values)


if __name__ == "__main__":
    main(sys.argv[1:])

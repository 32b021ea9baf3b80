"""ARQMath-1 Task 1 pools of two real runs, built with the product's pool_build.

Creates (again, each time) the scratch campaign `bench-pooling-arqmath1` in the benchmark database, ingests the
ARQMath-1 (2020) Task 1 topics and the runs ensemble-task1.tsv and psu-task1-auto-both-A.tsv, both primary,
pools them at depth 45 and prints, as Markdown, per topic the pool size and the items only each run brought,
then min / mean / max. The figures are in docs/pooling.md (made with the full files: `--data FOLDER`, a folder
laid out as tests/data/arqmath; the default is that folder, whose runs are cut to five topics).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench .venv/bin/python bench/arqmath1_pools.py [--data DIR]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import harness

CAMPAIGN = "bench-pooling-arqmath1"
DATA = harness.ROOT / "tests" / "data" / "arqmath"
TOPICS = Path("topics") / "topics.arqmath-2020-task1-origin.xml"
RUNS = [Path("runs") / "ensemble-task1.tsv", Path("runs") / "psu-task1-auto-both-A.tsv"]
DEPTH = 45


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=DEPTH, help="pool depth of both runs (default 45)")
    parser.add_argument("--data", type=Path, default=DATA,
                        help="folder laid out as tests/data/arqmath (the default, runs cut to 5 topics)")
    args = parser.parse_args(argv)
    harness.database_url(harness.DEFAULT_DATABASE_URL, "bench/arqmath1_pools.py")
    harness.setup_django()
    harness.ensure_database()
    from pooling import services
    from pooling.models import Campaign, PoolItem, RunEntry

    old = Campaign.objects.filter(name=CAMPAIGN).first()
    if old is not None:
        RunEntry.objects.filter(run__campaign=old).delete()
        old.delete()
    campaign = services.campaign_create(name=CAMPAIGN, task="answers", primary_depth=args.depth)
    services.topics_ingest(campaign=campaign, path=args.data / TOPICS)
    names = []
    for path in (args.data / run for run in RUNS):
        run = services.run_ingest(campaign=campaign, path=path, name=path.stem, alternate=False)
        names.append(run.name)
        if run.warnings:
            print(f"warnings for {run.name}: {run.warnings[:5]}", file=sys.stderr)
    result = services.pool_build(campaign=campaign, judged_items={})

    only: dict[str, dict[str, int]] = {}
    shared: dict[str, int] = {}
    for topic_id, provenance in PoolItem.objects.filter(campaign=campaign).values_list("topic__topic_id",
                                                                                        "provenance"):
        counts = only.setdefault(topic_id, dict.fromkeys(names, 0))
        if len(provenance) == 1:
            counts[provenance[0][0]] += 1
        else:
            shared[topic_id] = shared.get(topic_id, 0) + 1
    sizes = result.sizes
    print(harness.table(["Topic", "Pool size", *(f"Only {name}" for name in names), "From both"],
                        [[topic_id, size, *(only.get(topic_id, {}).get(name, 0) for name in names),
                          shared.get(topic_id, 0)] for topic_id, size in sizes.items()]))
    pooled = [size for size in sizes.values() if size]
    values = list(sizes.values())
    print()
    print(f"{len(values)} topics ({len(pooled)} with a pool), {result.items:,} items at depth {args.depth}; "
          f"pool size min {min(values)}, mean {statistics.mean(values):.1f}, max {max(values)}"
          + (f" (over the {len(pooled)} pooled topics: min {min(pooled)}, mean {statistics.mean(pooled):.1f})"
             if len(pooled) != len(values) and pooled else ""))
    for name in names:
        unique = [only.get(t, {}).get(name, 0) for t in sizes]
        print(f"only {name}: total {sum(unique):,}, per topic min {min(unique)}, mean {statistics.mean(unique):.1f}, "
              f"max {max(unique)}")


if __name__ == "__main__":
    main(sys.argv[1:])

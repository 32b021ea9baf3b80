"""Pooling benchmark, Task 2: formula pool_build on 40 runs x 100 topics x 1000 rows with a 5M-row formula index.

Generates (or reuses, under --out) a v2 formula index of --formulas rows (unique formula ids, about 5 instances
per visual id with a skewed, Pareto-like distribution, post and thread ids of a 1.5M-post collection, short LaTeX)
and --runs ARQMath Task 2 run files (6 columns: topic formula_id post_id rank score run_tag) over the first
--topics ARQMath-3 Task 2 topics. Every run ranks visual ids drawn from the same per-topic candidate list with
its own noise, so the runs overlap, and retrieves 1-4 instances of each, so pooling by visual id matters.

The index is loaded once with `collection_ingest` into the collection `bench-pooling-formulas` and the runs once
with `run_ingest` into the formulas campaign `bench-pooling-formulas` (depth 25 primary / 15 alternate, N=5,
rr-vote, half the runs alternate); both are kept and reused while they hold exactly these files. Then
`pool_build(campaign=...)` is timed --rounds times (median), and once more, instrumented, to split its time
into reading the formula index, reading the run entries, deleting the old pool, inserting the new one, and the
Python in between. There is no reference to compare with: the build time is reported as it is.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench .venv/bin/python bench/pooling_formulas.py
    DATABASE_URL=... .venv/bin/python bench/pooling_formulas.py --formulas 200000 --runs 4 --topics 20  # quick
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from array import array
from bisect import bisect_right
from pathlib import Path

import harness
import ingest as bench_ingest  # the generated inputs (topic files), with their seed
from harness import note

SEED = bench_ingest.SEED
CAMPAIGN = "bench-pooling-formulas"
COLLECTION = "bench-pooling-formulas"
DEPTH, ALTERNATE_DEPTH, INSTANCES = 25, 15, 5
POSTS = 1_500_000  # the collection the index's post ids come from (ids 1..POSTS)
CANDIDATES = 1500  # visual ids a topic's runs draw from
NOISE = 150.0  # how far (in candidate positions) a run moves a visual id: runs agree at the top, not exactly
PARETO_ALPHA, MAX_INSTANCES = 1.16, 3000  # instances per visual id: mean about 5, median 1, a few thousands


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = harness.Parser(__doc__)
    parser.count("formulas", 5_000_000, "formula index rows")
    parser.count("runs", 40, "Task 2 run files")
    parser.count("topics", 100, "topics per run, of the 100 ARQMath-3 Task 2 topics", most=100)
    parser.count("depth", 1000, "rows per topic")
    parser.count("rounds", 3, "timed pool builds")
    return parser.parse(argv)


# --- input files (generated once per parameter set, then reused) -------------------------------

def post_of(formula_id: int) -> int:
    """The post a formula id belongs to: a fixed scramble, so runs need not remember 5M post ids."""
    return 1 + (formula_id * 2654435761) % POSTS


def thread_of(post_id: int) -> int:
    """Questions are every fourth post; a post's thread is the question at or before it."""
    return post_id - (post_id - 1) % 4


def index_file(out: Path, formulas: int) -> tuple[Path, array]:
    """A v2 formula index of `formulas` rows; and the first formula id of every visual id (visual id v owns
    formula ids starts[v] .. starts[v + 1] - 1), kept next to it for the run generator."""
    from workflow.demo.common import FORMULA_ID_START, INDEX_HEADER, load_latex_pool

    folder = out / f"formulas-{formulas}-seed{SEED}"
    done = folder / "done.json"
    if not done.exists():
        note(f"generating a {formulas:,}-row formula index in {folder}")
        folder.mkdir(parents=True, exist_ok=True)
        rng = random.Random(f"{SEED}/bench-formula-index")
        latex = [s for s in load_latex_pool() if len(s) <= 60 and "\t" not in s and "\n" not in s] or ["x"]
        starts = array("q", [FORMULA_ID_START])
        fid, end = FORMULA_ID_START, FORMULA_ID_START + formulas
        with open(folder / "index.tsv", "w", encoding="utf-8", newline="\n", buffering=1 << 20) as sink:
            sink.write(INDEX_HEADER)
            visual = 0
            while fid < end:
                count = min(int(rng.paretovariate(PARETO_ALPHA)), MAX_INSTANCES, end - fid)
                base = latex[visual % len(latex)]
                text = base if visual < len(latex) else f"{base}+{visual // len(latex)}"
                lines = []
                for f in range(fid, fid + count):
                    post = post_of(f)
                    lines.append(f"{f}\t{post}\t{thread_of(post)}\t{'question' if post % 4 == 1 else 'answer'}"
                                 f"\t{visual + 1}\t{text}\n")
                sink.write("".join(lines))
                fid += count
                visual += 1
                starts.append(fid)
        with open(folder / "starts.bin", "wb") as stream:
            starts.tofile(stream)
        done.write_text(json.dumps({"formulas": formulas, "visual_ids": visual}), encoding="utf-8")
    starts = array("q")
    with open(folder / "starts.bin", "rb") as stream:
        starts.frombytes(stream.read())
    return folder / "index.tsv", starts


def run_files(out: Path, index: Path, starts: array, *, runs: int, topic_ids: list[str],
              depth: int) -> list[tuple[Path, bool]]:
    """`runs` Task 2 run files over the index; (path, alternate) each, every second run alternate."""
    folder = out / f"runs-task2-{runs}x{len(topic_ids)}x{depth}-{index.parent.name}"
    done = folder / "done.json"
    if not done.exists():
        note(f"generating {runs} Task 2 run(s) of {len(topic_ids)} topics x {depth} rows in {folder}")
        folder.mkdir(parents=True, exist_ok=True)
        rng = random.Random(f"{SEED}/bench-task2-runs")
        first, end = starts[0], starts[-1]
        # The visual id of a random formula: a visual id with many instances is retrieved more often.
        candidates = {t: list(dict.fromkeys(bisect_right(starts, rng.randrange(first, end)) - 1
                                            for _ in range(CANDIDATES))) for t in topic_ids}
        files = []
        for n in range(runs):
            name = f"bench-task2-run{n + 1:02d}"
            run_rng = random.Random(f"{SEED}/bench-task2-run/{n}")
            with open(folder / f"{name}.tsv", "w", encoding="utf-8", newline="\n", buffering=1 << 20) as sink:
                for topic in topic_ids:
                    sink.write("".join(_run_topic(run_rng, candidates[topic], starts, topic, name, depth)))
            files.append([f"{name}.tsv", n % 2 == 1])
        done.write_text(json.dumps(files), encoding="utf-8")
    return [(folder / name, alternate) for name, alternate in json.loads(done.read_text(encoding="utf-8"))]


def _run_topic(rng: random.Random, candidates: list[int], starts: array, topic: str, tag: str,
               depth: int) -> list[str]:
    """One run's rows for a topic: the candidate visual ids in the run's noisy order, 1-4 instances each
    (a random window of the visual id's formulas), until `depth` rows."""
    gauss = rng.gauss
    order = sorted(range(len(candidates)), key=lambda i: i + gauss(0.0, NOISE))
    lines: list[str] = []
    taken: set[int] = set()
    rank = 0
    for i in order:
        visual = candidates[i]
        first, count = starts[visual], starts[visual + 1] - starts[visual]
        offset = rng.randrange(count)
        for j in range(min(count, 1 + int(rng.random() * 4))):
            fid = first + (offset + j) % count
            if fid in taken:
                continue
            taken.add(fid)
            rank += 1
            lines.append(f"{topic}\t{fid}\t{post_of(fid)}\t{rank}\t{1000.0 / (rank + 1):.6f}\t{tag}\n")
            if rank == depth:
                return lines
    return lines


# --- the collection and campaign ---------------------------------------------------------------

def collection_with_index(index: Path, starts: array) -> tuple[object, float | None]:
    """The benchmark's collection holding exactly the index (loaded if it does not); (collection, seconds of
    collection_ingest, None when reused). Held exactly: as many formulas, and the last one in the last visual id."""
    from pooling import services
    from pooling.models import Campaign, Collection, Formula

    formulas = starts[-1] - starts[0]
    collection = Collection.objects.filter(name=COLLECTION).first()
    if collection is not None:
        formula = Formula.objects.filter(collection=collection, formula_id=str(starts[-1] - 1)).first()
        if (collection.formula_count == formulas and Formula.objects.filter(collection=collection).count() == formulas
                and formula is not None and formula.visual_id == str(len(starts) - 1)):
            note(f"reusing collection {COLLECTION} ({formulas:,} formulas)")
            return collection, None
        note(f"collection {COLLECTION} holds another index: deleting it and its campaign")
        _delete_campaign(Campaign.objects.filter(name=CAMPAIGN).first())
        Formula.objects.filter(collection=collection).delete()
        collection.delete()
    note(f"loading {index} with collection_ingest")
    start = time.perf_counter()
    services.collection_ingest(collection_name=COLLECTION, paths=[index])
    seconds = time.perf_counter() - start
    return Collection.objects.get(name=COLLECTION), seconds


def _delete_campaign(campaign) -> None:
    from pooling.models import PoolInstance, PoolItem, RunEntry

    if campaign is None:
        return
    PoolInstance.objects.filter(item__campaign=campaign).delete()
    PoolItem.objects.filter(campaign=campaign).delete()
    RunEntry.objects.filter(run__campaign=campaign).delete()
    campaign.delete()


def campaign_with_runs(name: str, topics_xml: Path, topic_count: int, files: list[tuple[Path, bool]], rows: int,
                       **settings) -> tuple[object, float | None]:
    """The campaign `name` (collection `name`, `settings`) holding exactly `files` (names, alternate flags,
    checksums, rows) and `topic_count` topics; made again, its runs ingested, when it does not. Returns it with the
    seconds of the runs' ingest, None when reused. bench/pooling.py's campaign too."""
    from pooling import services
    from pooling.models import Campaign, RunEntry
    from pooling.services.runs import file_checksum

    campaign = Campaign.objects.filter(name=name).first()
    if campaign is not None:
        runs = {run: (alternate, checksum)
                for run, alternate, checksum in campaign.runs.values_list("name", "alternate", "checksum")}
        if (runs == {path.stem: (alternate, file_checksum(path)) for path, alternate in files}
                and RunEntry.objects.filter(run__campaign=campaign).count() == rows
                and campaign.topics.count() == topic_count):
            note(f"reusing campaign {name} ({len(runs)} runs, {rows:,} rows)")
            return campaign, None
        note(f"campaign {name} holds other runs: deleting it")
        _delete_campaign(campaign)
    campaign = services.campaign_create(name=name, collection_name=name, **settings)
    services.topics_ingest(campaign=campaign, path=topics_xml)
    start = time.perf_counter()
    for n, (path, alternate) in enumerate(files, 1):
        note(f"ingesting run {n}/{len(files)}: {path.name}")
        services.run_ingest(campaign=campaign, path=path, name=path.stem, alternate=alternate)
    return campaign, time.perf_counter() - start


# --- measurements ------------------------------------------------------------------------------

def timed_pool_build(campaign) -> tuple[float, dict]:
    """Seconds of one pool_build (one transaction: committed when it returns), and its result."""
    from pooling import services
    from pooling.models import Campaign

    seconds, _cpu, result = harness.timed(services.pool_build, campaign=Campaign.objects.get(pk=campaign.pk),
                                          judged_items={})
    return seconds, result


def instrumented_pool_build(campaign) -> dict[str, float]:
    """One more pool_build with timers around its database work (not counted in the median): the query of run
    entries with their visual ids (time spent waiting for its rows, first read and deeper reads together), the
    deletes and the bulk inserts. What is left is Python: cutting the runs, pooling, rr-vote selection, display
    order, building rows."""
    from pooling import ranking
    from pooling.services import pools

    timer = harness.PhaseTimer()
    timer.wrap(ranking, "_formula_rows", "entries with visual ids query", iterator=True)
    timer.wrap(pools, "pool_rows_delete", "delete old pool")
    # bulk_insert (COPY) stores the items and then the instances; the item pks are read back in between.
    timer.wrap(pools, "bulk_insert", "insert pool rows")
    try:
        total, _result = timed_pool_build(campaign)
    finally:
        timer.restore()
    spent = dict(timer.seconds)
    spent["python (the rest)"] = total - sum(spent.values())
    spent["total"] = total
    return spent


def pool_counts(campaign) -> dict[str, int]:
    from pooling.models import PoolInstance, PoolItem

    instances = PoolInstance.objects.filter(item__campaign=campaign)
    return {"items": PoolItem.objects.filter(campaign=campaign).count(), "instances": instances.count(),
            "selected": instances.filter(selected=True).count()}


# --- main --------------------------------------------------------------------------------------

def main(argv: list[str]) -> None:
    args = parse_args(argv)
    harness.database_url(harness.DEFAULT_DATABASE_URL, "bench/pooling_formulas.py")
    harness.setup_django()
    started = time.perf_counter()
    harness.ensure_database()
    out = args.out.resolve()
    index, starts = index_file(out, args.formulas)
    topics_xml, topic_ids = bench_ingest.topics_file(out, args.topics, task=2)
    files = run_files(out, index, starts, runs=args.runs, topic_ids=topic_ids, depth=args.depth)
    rows = sum(1 for path, _ in files for _ in open(path, encoding="utf-8"))
    _collection, index_seconds = collection_with_index(index, starts)
    campaign, ingest_seconds = campaign_with_runs(CAMPAIGN, topics_xml, len(topic_ids), files, rows, task="formulas",
                                                  primary_depth=DEPTH, alternate_depth=ALTERNATE_DEPTH,
                                                  instances=INSTANCES, selection="rr-vote")
    facts = harness.machine_facts(code=("pooling", "config"))
    seconds: list[float] = []
    result: dict = {}
    for round_ in range(1, args.rounds + 1):
        note(f"pool_build {round_}/{args.rounds}")
        took, result = timed_pool_build(campaign)
        seconds.append(took)
    note("pool_build, instrumented")
    parts = instrumented_pool_build(campaign)
    counts = pool_counts(campaign)
    facts["load_after"] = harness.load()
    overflow = sum(result.overflow.values())
    overflow_topics = sum(1 for v in result.overflow.values() if v)
    median = statistics.median(seconds)
    lines = [
        f"Pooling benchmark (Task 2): {args.runs} formula runs x {args.topics} topics x {args.depth} rows "
        f"({rows:,} run entries in PostgreSQL), {args.formulas:,}-row formula index ({len(starts) - 1:,} visual "
        f"ids); depth {DEPTH} / {ALTERNATE_DEPTH} (half the runs alternate), N={INSTANCES}, rr-vote",
        f"PostgreSQL {facts['postgresql']}, Python {facts['python']}, {facts['cores']} cores; load average before "
        f"{facts['load_before']}, after {facts['load_after']}; code {facts['code']}",
        ("formula index loaded with collection_ingest in "
         f"{index_seconds:.1f} s ({args.formulas / index_seconds:,.0f} rows/s)" if index_seconds
         else "formula index: reused (loaded by an earlier call)")
        + (f"; runs ingested in {ingest_seconds:.1f} s" if ingest_seconds else "; runs: reused"),
        "",
        f"  pool_build, median of {args.rounds}: {median:.2f} s  (" + " ".join(f"{v:.2f}" for v in seconds) + ")",
        f"  pool items (visual ids): {result.items:,}; candidate instances stored: {counts['instances']:,}; "
        f"selected instances: {result.selected:,}",
        f"  visual ids with more than {INSTANCES} candidates (overflow): {overflow:,} in {overflow_topics} topics",
        "",
        f"  where the time goes (one more, instrumented build: {parts['total']:.2f} s)",
        "",
        harness.table(["part", "seconds", "share"], [[key, f"{value:.2f}", f"{100 * value / parts['total']:.1f} %"]
                                                     for key, value in parts.items() if key != "total"]),
    ]
    print("\n".join(lines))
    data = {"args": vars(args), "facts": facts, "rows": rows,
            "visual_ids": len(starts) - 1, "index_seconds": index_seconds, "ingest_seconds": ingest_seconds,
            "seconds": seconds, "median": median, "items": result.items, "selected": result.selected,
            "instances": counts["instances"], "overflow": overflow, "overflow_topics": overflow_topics,
            "parts": parts, "wall_seconds": time.perf_counter() - started}
    harness.save(f"pooling-task2-{args.runs}x{args.topics}x{args.depth}-{args.formulas}", data, out)
    note(f"took {data['wall_seconds'] / 60:.1f} minutes")


if __name__ == "__main__":
    main(sys.argv[1:])

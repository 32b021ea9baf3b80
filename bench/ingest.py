"""Ingest benchmark: Task 1 runs and a Posts.xml streamed into PostgreSQL, each against a bare reference.

Generates (or reuses, under --out) 40 runs x 100 topics x 1000 rows and a 1M-post Posts.xml, ingests
them with the product's services and prints rows/s, the ratio of run ingest to a plain COPY of the same
rows and of Posts.xml ingest to a bare iterparse pass (both measured alternately in the same run), and the
product's peak memory at two file sizes. A run is taken as the job takes it: `run_ingest` (the goal's
figure: validate, COPY, commit, after which the run is usable), then `run_collection_check` (its ids looked
up in the collection, after the commit), timed separately in the same process. Results land in
docs/benchmarks.md ("Ingest").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench .venv/bin/python bench/ingest.py
    DATABASE_URL=... .venv/bin/python bench/ingest.py --runs 4 --posts 100000     # quick check
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

import harness
from harness import note

SEED = 2022
# Everything the benchmark creates carries one of these names, so a reset never touches anything else.
CAMPAIGN = "bench-ingest"
BIG_CAMPAIGN = "bench-ingest-big"
COLLECTION = "bench-ingest"
SECOND_COLLECTION = "bench-ingest-2"  # the full Posts.xml is ingested twice, between reference passes
SMALL_COLLECTION = "bench-ingest-small"
PROFILE_COLLECTION = "bench-ingest-profile"
BARE_TABLE = "bench_runentry_bare"
TWIN_TABLE = "bench_runentry_twin"
POST_TWIN_TABLE = "bench_post_twin"
RESULT_PREFIX = "BENCH-RESULT "
TURKLE_ROWS_PER_SECOND = 1000
# Memory "does not grow with file size" when the file 10x larger peaks at most 1.5x higher, plus 2 MB of slack
# for allocator noise; anything proportional to the rows is far above that.
FLAT_FACTOR, FLAT_SLACK_KB = 1.5, 2048


# --- set-up ------------------------------------------------------------------------------------

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = harness.Parser(__doc__)
    add_sizes(parser)
    parser.add_argument("--profile", action="store_true",
                        help="also cProfile one run ingest, its collection check and one small Posts.xml "
                             "ingest (not timed)")
    # The product side runs in child processes so that each reports its own peak memory.
    parser.add_argument("--child", choices=["run", "posts"], help=argparse.SUPPRESS)
    parser.add_argument("--target", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--name", help=argparse.SUPPRESS)
    parser.add_argument("--alternate", action="store_true", help=argparse.SUPPRESS)
    return parser.parse(argv)


def add_sizes(parser: harness.Parser) -> None:
    """The generated inputs' sizes (bench/pooling.py reads the same files)."""
    parser.count("runs", 40, "Task 1 run files")
    parser.count("topics", 100, "topics per run, of the 100 ARQMath-3 Task 1 topics", most=100)
    parser.count("depth", 1000, "rows per topic")
    parser.count("posts", 1_000_000, "posts in the generated Posts.xml, which the runs rank")


def setup_django() -> None:
    harness.database_url(harness.DEFAULT_DATABASE_URL, "bench/ingest.py")
    harness.setup_django()


def ensure_database() -> None:
    """The database created and migrated (bench/harness.py), recreated after a rewritten migration history if it
    holds only this benchmark's data; then its run-entry table checked against RunEntry."""
    harness.ensure_database(only_ours=lambda: only_ours(raw=True))
    check_schema()


def check_schema() -> None:
    """Stops unless the live pooling_runentry is what RunEntry declares: its columns, and its primary key
    on the columns of RunEntry's (composite) primary key. A stale table would make every figure wrong."""
    from pooling.models import RunEntry

    shape = table_shape(RunEntry._meta.db_table)
    model_columns = sorted(f.column for f in RunEntry._meta.concrete_fields)
    pk = RunEntry._meta.pk
    key = [f.column for f in getattr(pk, "fields", [pk])]
    primary = [columns for kind, columns in shape["indexes"] if kind == "primary"]
    if sorted(name for name, *_ in shape["columns"]) != model_columns or primary != [key]:
        sys.exit(f"pooling_runentry does not match RunEntry (columns {model_columns}, primary key {key}): "
                 f"{shape}")


def table_shape(table: str) -> dict:
    """A table's columns, constraints and indexes, without their names: what a twin must have the same of."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT attname, format_type(atttypid, atttypmod), attnotnull, "
                       "COALESCE((SELECT collname FROM pg_collation WHERE oid = attcollation), ''), "
                       "attidentity FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
                       "AND NOT attisdropped ORDER BY attnum", [table])
        columns = [tuple(row) for row in cursor.fetchall()]
        cursor.execute("SELECT contype, pg_get_constraintdef(oid) FROM pg_constraint "
                       "WHERE conrelid = %s::regclass ORDER BY 1, 2", [table])
        constraints = [tuple(row) for row in cursor.fetchall()]
        cursor.execute("SELECT CASE WHEN i.indisprimary THEN 'primary' WHEN i.indisunique THEN 'unique' "
                       "ELSE 'index' END, ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(n, o) "
                       "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o), "
                       "pg_get_expr(i.indpred, i.indrelid), pg_get_expr(i.indexprs, i.indrelid) "
                       "FROM pg_index i WHERE i.indrelid = %s::regclass ORDER BY 1, 2", [table])
        indexes = [(kind, list(columns_), *extra) for kind, columns_, *extra in cursor.fetchall()]
        cursor.execute("SELECT count(*) FROM pg_trigger WHERE tgrelid = %s::regclass", [table])
        triggers = cursor.fetchone()[0]
    return {"columns": columns, "constraints": constraints,
            "indexes": [(kind, columns_) if not any(extra) else (kind, columns_, *extra)
                        for kind, columns_, *extra in indexes], "triggers": triggers}


def describe_shape(shape: dict) -> str:
    """One line for the report: the keys, indexes and checks a table has."""
    parts = [definition for kind, definition in shape["constraints"] if kind in "pc"]
    others = [f"{kind} ({', '.join(columns)})" for kind, columns, *_ in shape["indexes"] if kind != "primary"]
    parts.append("other indexes: " + (", ".join(others) or "none"))
    foreign = [definition for kind, definition in shape["constraints"] if kind == "f"]
    parts.append("foreign keys: " + (", ".join(foreign) or "none"))
    return "; ".join(parts)


# --- input files (generated once per parameter set, then reused) -------------------------------

def posts_file(out: Path, posts: int) -> Path:
    """A bulk Posts.xml with `posts` posts, and its answer ids (what the runs rank) next to it."""
    from workflow.demo.generate import write_posts_bulk

    folder = out / f"posts-{posts}-seed{SEED}"
    done = folder / "done.json"
    if not done.exists():
        note(f"generating {posts:,} posts in {folder}")
        folder.mkdir(parents=True, exist_ok=True)
        bulk = write_posts_bulk(folder / "Posts.xml", posts=posts, seed=SEED)
        (folder / "answer_ids.txt").write_text("\n".join(bulk.answer_ids) + "\n", encoding="utf-8")
        # Written last: a folder without it was interrupted and is generated again.
        done.write_text(json.dumps({"posts": posts, "answers": bulk.answers}), encoding="utf-8")
    return folder / "Posts.xml"


def topics_file(out: Path, count: int, task: int = 1) -> tuple[Path, list[str]]:
    """The first `count` real ARQMath-3 topics of Task 1 or 2, as a topic file the campaign ingests."""
    from workflow.demo.common import DATA_DIR, TASK1_TOPICS, TASK2_TOPICS
    from workflow.demo.generate import write_topics

    out.mkdir(parents=True, exist_ok=True)
    path = out / f"topics-task{task}-{count}.xml"
    return path, write_topics(DATA_DIR / (TASK1_TOPICS if task == 1 else TASK2_TOPICS), path, count)


def run_files(out: Path, *, runs: int, topic_ids: list[str], depth: int, posts_xml: Path,
              noise: float = 1.0) -> list[tuple[Path, bool]]:
    """`runs` Task 1 run files ranking the answers of posts_xml; (path, alternate) each. `noise`: see
    write_task1_runs_bulk (larger, less agreement between the runs)."""
    from workflow.demo.generate import write_task1_runs_bulk

    folder = out / (f"runs-{runs}x{len(topic_ids)}x{depth}-{posts_xml.parent.name}"
                    + (f"-noise{noise:g}" if noise != 1.0 else ""))
    done = folder / "done.json"
    if not done.exists():
        note(f"generating {runs} run(s) of {len(topic_ids)} topics x {depth} rows in {folder}")
        answer_ids = (posts_xml.parent / "answer_ids.txt").read_text(encoding="utf-8").split()
        files = write_task1_runs_bulk(folder, topics=topic_ids, post_ids=answer_ids, runs=runs, depth=depth,
                                      seed=SEED, noise=noise)
        done.write_text(json.dumps([[p.name, alternate] for p, alternate in files]), encoding="utf-8")
    return [(folder / name, alternate) for name, alternate in json.loads(done.read_text(encoding="utf-8"))]


# --- database state ----------------------------------------------------------------------------

OUR_CAMPAIGNS = [CAMPAIGN, BIG_CAMPAIGN]
OUR_COLLECTIONS = [COLLECTION, SECOND_COLLECTION, SMALL_COLLECTION, PROFILE_COLLECTION]


def only_ours(*, raw: bool = False) -> bool:
    """Whether every campaign and collection in the database is one this benchmark creates. `raw` asks in
    SQL, for a database whose tables may not match the models any more."""
    from django.db import connection

    if not raw:
        from pooling.models import Campaign, Collection

        return (not Campaign.objects.exclude(name__in=OUR_CAMPAIGNS).exists()
                and not Collection.objects.exclude(name__in=OUR_COLLECTIONS).exists())
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('pooling_campaign') IS NULL, to_regclass('pooling_collection') IS NULL")
        if any(cursor.fetchone()):
            return True
        cursor.execute("SELECT (SELECT count(*) FROM pooling_campaign WHERE name <> ALL(%s)) "
                       "+ (SELECT count(*) FROM pooling_collection WHERE name <> ALL(%s))",
                       [OUR_CAMPAIGNS, OUR_COLLECTIONS])
        return cursor.fetchone()[0] == 0


def reset() -> None:
    """Removes what an earlier benchmark left, so every measurement starts from the same tables."""
    from django.db import connection

    from pooling.models import Campaign, Collection

    ours_campaigns, ours_collections = OUR_CAMPAIGNS, OUR_COLLECTIONS
    alone = only_ours()
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {BARE_TABLE}, {TWIN_TABLE}, {POST_TWIN_TABLE}")
        if alone:
            # A database the benchmark has to itself: TRUNCATE leaves the tables exactly as new.
            cursor.execute("TRUNCATE pooling_runentry, pooling_post")
        else:
            cursor.execute("DELETE FROM pooling_runentry WHERE run_id IN (SELECT r.id FROM pooling_run r "
                           "JOIN pooling_campaign c ON c.id = r.campaign_id WHERE c.name = ANY(%s))",
                           [ours_campaigns])
            cursor.execute("DELETE FROM pooling_post WHERE collection_id IN "
                           "(SELECT id FROM pooling_collection WHERE name = ANY(%s))", [ours_collections])
    Campaign.objects.filter(name__in=ours_campaigns).delete()
    Collection.objects.filter(name__in=ours_collections).delete()
    if not alone:
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE pooling_runentry, pooling_post")


def create_reference_tables() -> dict[str, dict]:
    """The bare table and twins of the real tables, all derived from the live tables; returns their shapes.

    Bare: pooling_runentry's columns, types and NOT NULLs, nothing else (LIKE without INCLUDING). A twin has
    what the real table has (primary key, checks, indexes, identity): loading it from pre-converted rows is
    the database's share of the product's time. LIKE copies no foreign keys and no triggers; the real tables
    have none now, and a twin that differs from its table in anything stops the benchmark.
    """
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {BARE_TABLE} (LIKE pooling_runentry)")
        for twin, real in ((TWIN_TABLE, "pooling_runentry"), (POST_TWIN_TABLE, "pooling_post")):
            cursor.execute(f"CREATE TABLE {twin} (LIKE {real} INCLUDING ALL)")
    shapes = {name: table_shape(name) for name in ("pooling_runentry", TWIN_TABLE, BARE_TABLE, "pooling_post",
                                                   POST_TWIN_TABLE)}
    for twin, real in ((TWIN_TABLE, "pooling_runentry"), (POST_TWIN_TABLE, "pooling_post")):
        if shapes[twin] != shapes[real]:
            sys.exit(f"{twin} is not a faithful twin of {real}:\n  {shapes[twin]}\n  {shapes[real]}")
    bare = shapes[BARE_TABLE]
    if bare["constraints"] or bare["indexes"] or [c[:3] for c in bare["columns"]] != [
            c[:3] for c in shapes["pooling_runentry"]["columns"]]:
        sys.exit(f"{BARE_TABLE} is not pooling_runentry's bare columns: {bare}")
    return shapes


def server_facts() -> dict[str, str]:
    """The machine and the PostgreSQL settings a load depends on; the code is pooling/ and config/."""
    return harness.machine_facts("shared_buffers", "synchronous_commit", "max_wal_size", code=("pooling", "config"))


def checkpoints() -> int:
    """Checkpoints so far: a big load fills max_wal_size and makes PostgreSQL write one mid-measurement."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter")
        return cursor.fetchone()[0]


def vacuum_posts() -> None:
    """What autovacuum does to an insert-only table soon after a big load (collection_ingest ANALYZEs it
    itself): done here so that it does not land in the middle of the run measurements."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM pooling_post")


# --- the references ----------------------------------------------------------------------------

RUN_COLUMNS = "run_id, topic_id, item_id, post_id, rank, score"
POST_COLUMNS = ("collection_id, post_id, kind, thread_id, title, body, tags, score, created_at, owner_user_id, "
                "accepted_answer_id")
_TAG_NAMES = re.compile(r"<([^<>]*)>")


def copy_text(path: Path, run_id: int, topics: dict[str, int]) -> bytes:
    """A run file's rows already in COPY text format: all the bare reference has left to do is load them."""
    with open(path, encoding="utf-8") as stream:
        return "".join(_copy_line(line, run_id, topics) for line in stream).encode()


def _copy_line(line: str, run_id: int, topics: dict[str, int]) -> str:
    topic, post_id, rank, score, _tag = line.rstrip("\n").split("\t")
    return f"{run_id}\t{topics[topic]}\t{post_id}\t{post_id}\t{rank}\t{score}\n"


class _Chunks:
    """A file-like over byte chunks: psycopg2's copy_expert only calls read() until it gets b''."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks

    def read(self, _size: int = -1) -> bytes:
        return next(self._chunks, b"")


def python_chunks(path: Path, run_id: int, topics: dict[str, int]) -> Iterator[bytes]:
    """The simplest streaming Python importer: split lines, map topic ids through a dict, hand to COPY."""
    with open(path, encoding="utf-8") as stream:
        while lines := stream.readlines(1 << 16):
            yield "".join(_copy_line(line, run_id, topics) for line in lines).encode()


def posts_copy_text(path: Path, collection_id: int) -> bytes:
    """A Posts.xml's rows in COPY text format, the columns the product fills: what the post twin loads."""
    lines = []
    for _event, element in ElementTree.iterparse(path):
        if element.tag == "row":
            lines.append(_post_line(element.attrib, collection_id))
        element.clear()
    return "".join(lines).encode()


def _post_line(attrs: dict[str, str], collection_id: int) -> str:
    post_id = attrs["Id"]
    question = attrs.get("PostTypeId") == "1"
    fields = (str(collection_id), post_id, "question" if question else "answer",
              post_id if question else attrs["ParentId"], _escape(attrs.get("Title", "")),
              _escape(attrs.get("Body", "")), " ".join(_TAG_NAMES.findall(attrs.get("Tags", ""))),
              attrs.get("Score", "\\N"), attrs["CreationDate"] + "+00:00", attrs.get("OwnerUserId", ""),
              attrs.get("AcceptedAnswerId", ""))
    return "\t".join(fields) + "\n"


def _escape(text: str) -> str:
    # COPY text format's escapes (XML cannot hold NUL); replace() is far faster than translate() with a dict.
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def timed_copy(table: str, source: object, columns: str = RUN_COLUMNS) -> tuple[float, float]:
    """(seconds of COPY, seconds of COMMIT) for one load in its own transaction, as the product does."""
    from django.db import connection, transaction

    start = time.perf_counter()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.cursor.copy_expert(f"COPY {table} ({columns}) FROM STDIN", source, size=1 << 16)
        copied = time.perf_counter()
    return copied - start, time.perf_counter() - copied


def iterparse_pass(path: Path) -> float:
    """Seconds of a bare pass over the XML that does nothing with the rows."""
    start = time.perf_counter()
    for _event, element in ElementTree.iterparse(path):
        element.clear()
    return time.perf_counter() - start


# --- the product, in a child process -----------------------------------------------------------

def _status_kb(field_name: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    raise LookupError(field_name)


def start_peak_rss() -> int:
    """Resets the process's peak RSS to its current RSS and returns that, in kilobytes.

    ru_maxrss would keep the high-water mark of the imports and Django's start, which can hide the
    ingest's own peak; Linux lets a process reset it (clear_refs 5) and reads it back as VmHWM.
    """
    with open("/proc/self/clear_refs", "w", encoding="ascii") as clear_refs:
        clear_refs.write("5")
    return _status_kb("VmRSS")


def peak_rss_kb() -> int:
    return _status_kb("VmHWM")


def child_main(args: argparse.Namespace) -> None:
    """Runs one product ingest and prints its seconds, rows, phases and peak RSS as one JSON line.

    A run is taken as the job (and the command, and the demo) take it: run_ingest, whose transaction has
    committed when it returns, then run_collection_check on the run it returned. Each is timed on its own,
    with its own peak memory.
    """
    setup_django()
    from django.db import connection

    from pooling import services
    from pooling.models import Campaign, Collection
    from pooling.services import collection as collection_services
    from pooling.services import runs as run_services

    connection.ensure_connection()  # connecting is not part of an ingest
    timer = harness.PhaseTimer()
    # Names looked up in the service modules' globals at call time, and the commit that ends the ingest's
    # transaction.
    timer.wrap(run_services, "bulk_insert", "read, validate and COPY")
    timer.wrap(collection_services, "bulk_insert", "read, validate and COPY")
    timer.wrap(connection, "commit", "commit")
    if args.child == "run":
        timer.wrap(run_services, "_rank_disorder_in_database", "rank/score order query (topics out of order)")
        campaign = Campaign.objects.get(pk=args.target)
        ingest = _profiled(args.profile, lambda: services.run_ingest(
            campaign=campaign, path=args.path, name=args.name, alternate=args.alternate))
    else:
        timer.wrap(collection_services, "analyze", "ANALYZE (planner statistics)")
        collection = Collection.objects.get(pk=args.target)
        ingest = _profiled(args.profile, lambda: services.collection_ingest(
            collection_name=collection.name, paths=[args.path]))
    base = start_peak_rss()
    start = time.perf_counter()
    done = ingest()
    seconds = time.perf_counter() - start
    result = {"seconds": seconds, "phases": dict(timer.seconds), "base_kb": base, "peak_kb": peak_rss_kb()}
    if args.child == "run":
        if connection.in_atomic_block:
            sys.exit("run_ingest returned inside a transaction: its figure would not include the commit")
        check_base = start_peak_rss()
        start = time.perf_counter()
        found = _profiled(args.profile, lambda: services.run_collection_check(run=done))()
        result.update(rows=done.row_count, check_seconds=time.perf_counter() - start, check_base_kb=check_base,
                      check_peak_kb=peak_rss_kb(), warnings=done.warnings, check_warnings=found)
    else:
        result.update(rows=done.counts["posts"], warnings=done.warnings)
    print(RESULT_PREFIX + json.dumps(result), flush=True)


def _profiled(profile: bool, call: Callable[[], object]) -> Callable[[], object]:
    if not profile:
        return call

    def run() -> object:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        done = profiler.runcall(call)
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(18)
        return done

    return run


def product(kind: str, target: int, path: Path, *, name: str = "", alternate: bool = False,
            profile: bool = False) -> dict:
    """Runs one product ingest in a fresh Python process and returns what it reported."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--target", str(target),
               "--path", str(path), "--name", name]
    command += ["--alternate"] * alternate + ["--profile"] * profile
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    results = [line for line in done.stdout.splitlines() if line.startswith(RESULT_PREFIX)]
    if done.returncode or not results:
        sys.exit(f"the product ingest of {path} failed (exit status {done.returncode}):\n{done.stdout}")
    return json.loads(results[-1][len(RESULT_PREFIX):])


# --- measurements ------------------------------------------------------------------------------

@dataclass
class Totals:
    """Seconds and rows added up over the files of one side of a comparison, and each file's seconds."""

    rows: int = 0
    seconds: float = 0.0
    parts: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    peaks_kb: list[int] = field(default_factory=list)
    files: list[float] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, rows: int, seconds: float, **parts: float) -> None:
        self.rows += rows
        self.seconds += seconds
        self.files.append(seconds)
        for name, value in parts.items():
            self.parts[name] += value

    def add_product(self, result: dict) -> None:
        self.add(result["rows"], result["seconds"], **result["phases"])
        self.peaks_kb.append(result["peak_kb"] - result["base_kb"])
        self.warnings += result["warnings"]

    def add_check(self, result: dict) -> None:
        """The run_collection_check that followed a run_ingest in the same child."""
        self.add(result["rows"], result["check_seconds"])
        self.peaks_kb.append(result["check_peak_kb"] - result["check_base_kb"])
        self.warnings += result["check_warnings"]


def combined(first: Totals, second: Totals) -> Totals:
    """Two steps done one after the other on the same rows: their seconds add up, the rows do not."""
    both = Totals(rows=first.rows, seconds=first.seconds + second.seconds,
                  peaks_kb=[max(a, b) for a, b in zip(first.peaks_kb, second.peaks_kb, strict=True)],
                  files=[a + b for a, b in zip(first.files, second.files, strict=True)])
    return both


def measure_posts(posts_xml: Path, small_xml: Path, collection_ids: dict[str, int]) -> dict[str, Totals]:
    """Bare iterparse passes around the product's Posts.xml ingest at the full size; at the small size also
    the database's share: a COPY of the same rows, pre-converted, into a twin of pooling_post."""
    results = {name: Totals() for name in ("iterparse", "product", "iterparse small", "twin small", "product small")}
    note(f"Posts.xml: iterparse, product, iterparse, product, iterparse over {posts_xml}")
    passes = [iterparse_pass(posts_xml)]
    for collection in (COLLECTION, SECOND_COLLECTION):
        full = product("posts", collection_ids[collection], posts_xml)
        passes.append(iterparse_pass(posts_xml))
        # Each ingest against the mean of the passes just before and after it: a drift in speed cancels out.
        results["iterparse"].add(full["rows"], (passes[-2] + passes[-1]) / 2)
        results["product"].add_product(full)
    note(f"Posts.xml: iterparse, twin COPY, product over {small_xml}")
    data = posts_copy_text(small_xml, collection_ids[SMALL_COLLECTION])
    small_pass = iterparse_pass(small_xml)
    copy_s, commit_s = timed_copy(POST_TWIN_TABLE, _Chunks(iter([data])), POST_COLUMNS)
    small = product("posts", collection_ids[SMALL_COLLECTION], small_xml)
    results["iterparse small"].add(small["rows"], small_pass)
    results["twin small"].add(data.count(b"\n"), copy_s + commit_s, copy=copy_s, commit=commit_s)
    results["product small"].add_product(small)
    return results


def measure_runs(files: list[tuple[Path, bool]], campaign_id: int) -> dict[str, Totals]:
    """For each run file in turn: bare COPY, minimal Python, twin-table COPY, then the product (run_ingest,
    then run_collection_check, in one child)."""
    from pooling.models import Topic

    topics = dict(Topic.objects.filter(campaign_id=campaign_id).values_list("topic_id", "pk"))
    results = {name: Totals() for name in ("bare copy", "python copy", "twin copy", "product", "check")}
    for n, (path, alternate) in enumerate(files, 1):
        note(f"run {n}/{len(files)}: {path.name}")
        # The reference rows of file n carry run id n: the twin's key (run, topic, item) takes each file once,
        # as the real table does. The reference tables have no foreign keys, so no run row is needed.
        data = copy_text(path, n, topics)  # converted before the clock starts
        rows = data.count(b"\n")
        results["bare copy"].add(rows, sum(timed_copy(BARE_TABLE, _Chunks(iter([data])))))
        copy_s, commit_s = timed_copy(BARE_TABLE, _Chunks(python_chunks(path, n, topics)))
        results["python copy"].add(rows, copy_s + commit_s)
        copy_s, commit_s = timed_copy(TWIN_TABLE, _Chunks(iter([data])))
        results["twin copy"].add(rows, copy_s + commit_s, copy=copy_s, commit=commit_s)
        done = product("run", campaign_id, path, name=path.stem, alternate=alternate)
        results["product"].add_product(done)
        results["check"].add_check(done)
    results["product + check"] = combined(results["product"], results["check"])
    return results


def measure_big_run(path: Path, campaign_id: int) -> dict[str, Totals]:
    """The product on one run file ten times the usual depth, for its peak memory."""
    note(f"big run: {path.name}")
    totals = {"product": Totals(), "check": Totals()}
    done = product("run", campaign_id, path, name=path.stem)
    totals["product"].add_product(done)
    totals["check"].add_check(done)
    return totals


def prepare_campaigns(topics_xml: Path, depth: int) -> tuple[dict[str, int], dict[str, int]]:
    """Collections, and campaigns with their topics."""
    from pooling import services

    collections = {name: services.collection_get_or_create(name=name).pk
                   for name in (COLLECTION, SECOND_COLLECTION, SMALL_COLLECTION, PROFILE_COLLECTION)}
    campaigns = {}
    for name, max_depth in ((CAMPAIGN, depth), (BIG_CAMPAIGN, 10 * depth)):
        campaign = services.campaign_create(name=name, task="answers", collection_name=COLLECTION,
                                            max_depth=max_depth)
        services.topics_ingest(campaign=campaign, path=topics_xml)
        campaigns[name] = campaign.pk
    return collections, campaigns


# --- report ------------------------------------------------------------------------------------

def rate(totals: Totals) -> float:
    return totals.rows / totals.seconds if totals.seconds else 0.0


def report(args: argparse.Namespace, facts: dict, sizes: dict, shapes: dict, posts: dict[str, Totals],
           runs: dict[str, Totals], big: dict[str, Totals]) -> dict:
    """Prints the table and the verdicts; returns the figures for bench/out/results-*.json."""
    bare, twin, product_runs, check, both = (runs[name] for name in ("bare copy", "twin copy", "product", "check",
                                                                      "product + check"))
    run_ratio = product_runs.seconds / bare.seconds
    posts_ratio = posts["product"].seconds / posts["iterparse"].seconds
    lines = [
        f"Ingest benchmark: {args.runs} runs x {args.topics} topics x {args.depth} rows "
        f"({bare.rows:,} rows, {sizes['runs_mb']:.0f} MB), Posts.xml {args.posts:,} posts "
        f"({sizes['posts_mb']:.0f} MB)",
        f"PostgreSQL {facts['postgresql']} (shared_buffers {facts['shared_buffers']}, synchronous_commit "
        f"{facts['synchronous_commit']}, max_wal_size {facts['max_wal_size']}), Python {facts['python']}, "
        f"{facts['cores']} cores; checkpoints: {facts['checkpoints']}; load average before {facts['load_before']}, "
        f"after {facts['load_after']}; code {facts['code']}",
        f"pooling_runentry (and its twin): {describe_shape(shapes['pooling_runentry'])}",
        "",
        f"{'Task 1 runs':<70}{'rows':>11}{'seconds':>9}{'rows/s':>11}{'x bare':>8}",
    ]
    run_rows = [
        ("reference: COPY of pre-converted rows, bare table", bare),
        ("reference: minimal Python (split, dict) + COPY, bare table", runs["python copy"]),
        ("COPY of pre-converted rows, twin of pooling_runentry", twin),
        ("product: run_ingest (validate + COPY + commit, run usable) [goal]", product_runs),
        ("product: run_collection_check (ids checked against the collection,", check),
        ("product: both (everything the job does)", both),
    ]
    for label, totals in run_rows:
        lines.append(_row(label, totals, bare.seconds))
        if totals is check:
            lines.append("    after commit)")
    lines += _parts("twin", twin) + _parts("run_ingest", product_runs)
    quarter = max(len(product_runs.files) // 4, 1)
    lines.append(f"    per file, first {quarter} vs last {quarter} files: run_ingest "
                 f"{_mean(product_runs.files[:quarter]):.2f} vs {_mean(product_runs.files[-quarter:]):.2f} s, "
                 f"check {_mean(check.files[:quarter]):.3f} vs {_mean(check.files[-quarter:]):.3f} s, "
                 f"twin COPY {_mean(twin.files[:quarter]):.2f} vs {_mean(twin.files[-quarter:]):.2f} s")
    for suffix in ("", " small"):
        reference, ingests = posts["iterparse" + suffix], len(posts["product" + suffix].peaks_kb)
        title = f"Posts.xml, {reference.rows // ingests:,} posts, ingested {ingests}x"
        lines += ["", f"{title:<70}{'rows':>11}{'seconds':>9}{'rows/s':>11}{'x iter':>8}"]
        lines.append(_row("reference: bare iterparse pass, elem.clear()", reference, reference.seconds))
        if suffix:
            lines.append(_row("COPY of pre-converted rows, twin of pooling_post", posts["twin small"],
                              reference.seconds))
        lines.append(_row("product: collection_ingest", posts["product" + suffix], reference.seconds))
        lines += (_parts("twin", posts["twin small"]) if suffix else []) + _parts("product", posts["product" + suffix])
    memory = _memory_lines(posts, product_runs, check, big)
    lines += ["", "Peak memory of the product (child process peak RSS over its RSS before the call)"]
    lines += memory["lines"]
    lines += [
        "",
        f"run_ingest / plain COPY            {run_ratio:6.2f}   goal <= 1.5   {'met' if run_ratio <= 1.5 else 'MISSED'}"
        "   (the goal's figure: the run is usable when run_ingest returns)",
        f"run_ingest + check / plain COPY    {both.seconds / bare.seconds:6.2f}   (everything the job does)",
        f"run_ingest / twin COPY             {product_runs.seconds / twin.seconds:6.2f}   "
        f"(run_ingest + check / twin COPY: {both.seconds / twin.seconds:.2f}; run_ingest / minimal Python + COPY: "
        f"{product_runs.seconds / runs['python copy'].seconds:.2f})",
        f"twin COPY / plain COPY             {twin.seconds / bare.seconds:6.2f}   (what pooling_runentry's primary "
        f"key costs: {twin.seconds / bare.seconds - 1:.2f} of a bare COPY again)",
        f"Posts.xml ingest / iterparse       {posts_ratio:6.2f}   goal <= 3     "
        f"{'met' if posts_ratio <= 3 else 'MISSED'}",
        f"  (small file: {posts['product small'].seconds / posts['iterparse small'].seconds:.2f}; over COPY into "
        f"the twin of pooling_post: {posts['product small'].seconds / posts['twin small'].seconds:.2f})",
        f"peak memory flat with size         posts: {memory['posts_flat']}, run_ingest: {memory['runs_flat']}, "
        f"check: {memory['check_flat']}",
        f"Turkle (ARQMath's tool) imports ~{TURKLE_ROWS_PER_SECOND:,} rows/s: run_ingest here is "
        f"{rate(product_runs) / TURKLE_ROWS_PER_SECOND:,.0f}x that (with the check "
        f"{rate(both) / TURKLE_ROWS_PER_SECOND:,.0f}x), "
        f"Posts.xml ingest {rate(posts['product']) / TURKLE_ROWS_PER_SECOND:,.0f}x",
    ]
    warned = sorted(set(product_runs.warnings + check.warnings + posts["product"].warnings))
    if warned:
        lines.append("warnings from the product (the generated files should give none): " + "; ".join(warned[:5]))
    print("\n".join(lines))
    return {"args": {k: str(v) for k, v in vars(args).items()}, "facts": facts, "sizes": sizes,
            "shapes": shapes, "run_ratio": run_ratio, "run_and_check_ratio": both.seconds / bare.seconds,
            "run_twin_ratio": product_runs.seconds / twin.seconds, "twin_bare_ratio": twin.seconds / bare.seconds,
            "posts_ratio": posts_ratio, "runs": {k: vars(v) for k, v in runs.items()},
            "posts": {k: vars(v) for k, v in posts.items()}, "big_run": {k: vars(v) for k, v in big.items()}}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _row(label: str, totals: Totals, reference_seconds: float) -> str:
    return (f"  {label:<68}{totals.rows:>11,}{totals.seconds:>9.2f}{rate(totals):>11,.0f}"
            f"{totals.seconds / reference_seconds:>8.2f}")


def _parts(who: str, totals: Totals) -> list[str]:
    parts = dict(totals.parts)
    if who != "twin":
        parts["other (checksum, queries, ...)"] = totals.seconds - sum(parts.values())
    return [f"    {f'{who}, of which {name}':<77}{seconds:>9.2f} s" for name, seconds in parts.items()]


def _memory_lines(posts: dict[str, Totals], runs: Totals, check: Totals, big: dict[str, Totals]) -> dict:
    """The largest growth seen at each size, next to the size of one file."""
    small, full = max(posts["product small"].peaks_kb), max(posts["product"].peaks_kb)
    one, large = max(runs.peaks_kb), max(big["product"].peaks_kb)
    check_one, check_large = max(check.peaks_kb), max(big["check"].peaks_kb)
    return {
        "lines": [
            f"  Posts.xml         {_per_file(posts['product small']):>11,} posts  +{small / 1024:7.1f} MB   "
            f"{_per_file(posts['product']):>11,} posts  +{full / 1024:7.1f} MB",
            f"  run_ingest        {_per_file(runs):>11,} rows   +{one / 1024:7.1f} MB   "
            f"{big['product'].rows:>11,} rows   +{large / 1024:7.1f} MB",
            f"  collection check  {_per_file(check):>11,} rows   +{check_one / 1024:7.1f} MB   "
            f"{big['check'].rows:>11,} rows   +{check_large / 1024:7.1f} MB",
        ],
        "posts_flat": _flat(small, full),
        "runs_flat": _flat(one, large),
        "check_flat": _flat(check_one, check_large),
    }


def _per_file(totals: Totals) -> int:
    return totals.rows // max(len(totals.peaks_kb), 1)


def _flat(smaller_kb: int, larger_kb: int) -> str:
    return "yes" if larger_kb <= FLAT_FACTOR * smaller_kb + FLAT_SLACK_KB else "NO"


# --- main --------------------------------------------------------------------------------------

def profile_once(run: tuple[Path, bool], campaign_id: int, small_xml: Path, collection_id: int) -> None:
    """cProfile of one run ingest (and its collection check) and one small Posts.xml ingest, to stderr; untimed."""
    note("profile of one run ingest (tottime):")
    product("run", campaign_id, run[0], name=run[0].stem + "-profile", profile=True)
    note("profile of one Posts.xml ingest (tottime):")
    product("posts", collection_id, small_xml, profile=True)


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    if args.child:
        child_main(args)
        return
    setup_django()
    started = time.perf_counter()
    ensure_database()
    out = args.out.resolve()
    posts_xml = posts_file(out, args.posts)
    small_xml = posts_file(out, max(1, args.posts // 10))
    topics_xml, topic_ids = topics_file(out, args.topics)
    runs = run_files(out, runs=args.runs, topic_ids=topic_ids, depth=args.depth, posts_xml=posts_xml)
    big_run = run_files(out, runs=1, topic_ids=topic_ids, depth=10 * args.depth, posts_xml=posts_xml)[0][0]
    note("resetting the benchmark's campaigns, collections and tables")
    reset()
    shapes = create_reference_tables()
    collections, campaigns = prepare_campaigns(topics_xml, args.depth)
    facts = server_facts()
    before_posts = checkpoints()
    posts = measure_posts(posts_xml, small_xml, collections)
    vacuum_posts()
    before_runs = checkpoints()
    run_results = measure_runs(runs, campaigns[CAMPAIGN])
    facts["checkpoints"] = f"{before_runs - before_posts} during Posts.xml, {checkpoints() - before_runs} during runs"
    big = measure_big_run(big_run, campaigns[BIG_CAMPAIGN])
    facts["load_after"] = harness.load()
    sizes = {"posts_mb": posts_xml.stat().st_size / 1e6, "small_posts_mb": small_xml.stat().st_size / 1e6,
             "runs_mb": sum(p.stat().st_size for p, _ in runs) / 1e6, "big_run_mb": big_run.stat().st_size / 1e6}
    figures = report(args, facts, sizes, shapes, posts, run_results, big)
    if args.profile:
        profile_once(runs[0], campaigns[CAMPAIGN], small_xml, collections[PROFILE_COLLECTION])
    figures["wall_seconds"] = time.perf_counter() - started
    harness.save(f"results-{args.runs}x{args.topics}x{args.depth}-posts{args.posts}", figures, out)
    note(f"whole benchmark took {figures['wall_seconds'] / 60:.1f} minutes")

if __name__ == "__main__":
    main(sys.argv[1:])

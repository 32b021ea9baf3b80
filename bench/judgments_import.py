"""Judgment import benchmark: import_judgments of a 35,000-line file against ingest_run of a 35,000-row run, same run.

Builds the campaign `bench-import` (100 topics, each pooling 350 posts; no collection, so that neither side looks ids
up in one), writes (or reuses, under --out) a judgments TSV judging every pooled post once, official, by 10 assessors
of 10 topics each, and a Task 1 run file of the same size over the same topics. Each round, in this process
(PostgreSQL, the services the commands call): the campaign's judgments, visits, assignments and accounts are removed
(untimed), then `judgments_import` of the file (every line new: accounts, assignments, judgments, revisions, visits),
`judgments_import` of it again (every line unchanged), and `run_ingest` of the run under a new name. Prints rows per
second of each, and the ratio of the run ingest's to the import's (goal, issue 24: within 10x). Results land in
docs/benchmarks.md ("Judgment import").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_import .venv/bin/python bench/judgments_import.py
    DATABASE_URL=... .venv/bin/python bench/judgments_import.py --topics 10 --items 100 --rounds 1   # quick check
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import harness
from harness import note

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_import"
CAMPAIGN = "bench-import"
USERNAME = "benchimport{:02d}"
SEED = 2024
GRADES = ["3", "2", "1", "0", "0", "0", "0"]
GOAL_RATIO = 10.0
BEFORE_ROWS_PER_SECOND = 120  # issue 24: 37,125 official judgments in 305-317 s, judgment_submit line by line


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = harness.Parser(__doc__)
    parser.count("topics", 100, "topics")
    parser.count("items", 350, "pooled posts per topic, each judged once (topics x items lines)")
    parser.count("per-assessor", 10, "topics each assessor judges")
    parser.count("rounds", 3, "timed rounds (medians reported)")
    return parser.parse(argv)


def topic_ids(count: int) -> list[str]:
    return [f"A.{301 + n}" for n in range(count)]


def post_id(topic: int, item: int, items: int) -> str:
    return str(1_000_000 + topic * items + item)


def build(args: argparse.Namespace):
    """The campaign with its topics and pools, made again when its shape differs from the one asked."""
    from pooling.models import Campaign, PoolItem, Topic

    campaign = Campaign.objects.filter(name=CAMPAIGN).first()
    if campaign is not None and (campaign.topics.count() == args.topics
                                 and PoolItem.objects.filter(campaign=campaign).count() == args.topics * args.items):
        return campaign
    if campaign is not None:
        reset(campaign)
        campaign.delete()
    note(f"building {CAMPAIGN}: {args.topics} topics x {args.items} pooled posts")
    campaign = Campaign.objects.create(name=CAMPAIGN, task=Campaign.Task.ANSWERS, primary_depth=1000,
                                       alternate_depth=1000)
    topics = Topic.objects.bulk_create(Topic(campaign=campaign, topic_id=t, position=n)
                                       for n, t in enumerate(topic_ids(args.topics)))
    PoolItem.objects.bulk_create((PoolItem(campaign=campaign, topic=topic, item_id=post_id(n, i, args.items),
                                           position=i) for n, topic in enumerate(topics) for i in range(args.items)),
                                 batch_size=5000)
    return campaign


def reset(campaign) -> None:
    """Removes what an import wrote into the campaign, and the runs ingested: each round starts from its pools."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from judging.models import Assignment, ItemVisit, Judgment, JudgmentRevision, SubmitReceipt

    with transaction.atomic():
        JudgmentRevision.objects.filter(judgment__assignment__campaign=campaign).delete()
        Judgment.objects.filter(assignment__campaign=campaign).delete()
        ItemVisit.objects.filter(assignment__campaign=campaign).delete()
        SubmitReceipt.objects.filter(assignment__campaign=campaign).delete()
        Assignment.objects.filter(campaign=campaign).delete()
        get_user_model().objects.filter(username__startswith="benchimport").delete()
        campaign.runs.all().delete()


def inputs(args: argparse.Namespace) -> tuple[Path, Path, int]:
    """The judgments TSV and the run file (same topics, same number of rows), and that number."""
    rows = args.topics * args.items
    folder = args.out / f"judgments-import-{args.topics}x{args.items}-seed{SEED}"
    judgments, run = folder / "judgments.tsv", folder / "run.tsv"
    if not (judgments.exists() and run.exists()):
        note(f"writing {rows:,} judgments and a run of {rows:,} rows in {folder}")
        folder.mkdir(parents=True, exist_ok=True)
        rng = random.Random(SEED)
        with judgments.open("w", encoding="utf-8") as out:
            out.write("assessor\ttopic\titem_id\tgrade\tcomment\n")
            for n, topic in enumerate(topic_ids(args.topics)):
                assessor = USERNAME.format(n // args.per_assessor + 1)
                for i in range(args.items):
                    out.write(f"{assessor}\t{topic}\t{post_id(n, i, args.items)}\t{rng.choice(GRADES)}\t\n")
        with run.open("w", encoding="utf-8") as out:
            for n, topic in enumerate(topic_ids(args.topics)):
                for rank in range(1, args.items + 1):
                    out.write(f"{topic}\t{post_id(n, rank - 1, args.items)}\t{rank}\t{1000 - rank / 1000:.4f}\t"
                              "benchrun\n")
    return judgments, run, rows


WRITTEN = ("assessor_judgment", "assessor_judgmentrevision", "assessor_itemvisit")


def database_floor(campaign) -> float:
    """The database's share of an import: the rows the import just wrote (judgments, revisions, visits: three a
    line) taken out as COPY text, deleted, and loaded again by COPY with the same keys into the same tables (their
    indexes, unique constraints and foreign keys checked at the commit, as for the import), then the commit. No
    Python per row: what the import would take if reading, checking and formatting the lines cost nothing."""
    import io

    from django.db import connection, transaction

    assignments = f"SELECT id FROM assessor_assignment WHERE campaign_id = {int(campaign.pk)}"
    where = {"assessor_judgment": f"assignment_id IN ({assignments})",
             "assessor_judgmentrevision": f"judgment_id IN (SELECT id FROM assessor_judgment WHERE assignment_id IN "
                                          f"({assignments}))",
             "assessor_itemvisit": f"assignment_id IN ({assignments})"}
    texts = {}
    with connection.cursor() as cursor:
        for table in WRITTEN:
            buffer = io.StringIO()
            cursor.cursor.copy_expert(f"COPY (SELECT * FROM {table} WHERE {where[table]}) TO STDOUT", buffer)
            texts[table] = buffer.getvalue()
        with transaction.atomic():
            for table in reversed(WRITTEN[:2]):
                cursor.execute(f"DELETE FROM {table} WHERE {where[table]}")
            cursor.execute(f"DELETE FROM assessor_itemvisit WHERE {where['assessor_itemvisit']}")
        cursor.execute("VACUUM " + ", ".join(WRITTEN))
        started = time.perf_counter()
        with transaction.atomic():
            for table in WRITTEN:
                cursor.cursor.copy_expert(f"COPY {table} FROM STDIN", io.StringIO(texts[table]))
        return time.perf_counter() - started


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    harness.database_url(DEFAULT_DATABASE_URL, "bench/judgments_import.py")
    harness.setup_django()
    only_ours = partial(harness.only_campaign, CAMPAIGN)
    harness.database_of_our_own("bench/judgments_import.py", only_ours, f"deletes what campaign {CAMPAIGN} holds")
    from judging.services import judgments_import
    from pooling.services import run_ingest

    facts = harness.machine_facts("shared_buffers", "synchronous_commit", code=("assessor", "pooling", "ir"))
    campaign = build(args)
    judgments, run, rows = inputs(args)
    seconds: dict[str, list[float]] = {"import": [], "again": [], "run": [], "floor": []}
    for n in range(1, args.rounds + 1):
        reset(campaign)
        with judgments.open("rb") as lines:
            took, _, result = harness.timed(judgments_import, campaign=campaign, lines=lines, filename=judgments.name)
        assert result.created == rows and result.new_assignments == args.topics, result
        seconds["import"].append(took)
        with judgments.open("rb") as lines:
            took, _, result = harness.timed(judgments_import, campaign=campaign, lines=lines, filename=judgments.name)
        assert result.unchanged == rows, result
        seconds["again"].append(took)
        seconds["floor"].append(database_floor(campaign))
        took, _, ingested = harness.timed(run_ingest, campaign=campaign, path=run, name=f"benchrun-{n}")
        assert ingested.row_count == rows, ingested.row_count
        seconds["run"].append(took)
        note(f"round {n}: import {seconds['import'][-1]:.2f} s, again {seconds['again'][-1]:.2f} s, "
             f"database floor {seconds['floor'][-1]:.2f} s, run ingest {seconds['run'][-1]:.2f} s "
             f"(load {harness.load()})")
    facts["load_after"] = harness.load()
    median = {kind: statistics.median(values) for kind, values in seconds.items()}
    rate = {kind: rows / value for kind, value in median.items()}
    ratio = rate["run"] / rate["import"]
    print(f"judgment import vs run ingest, {rows:,} rows each ({args.topics} topics x {args.items} posts, "
          f"{-(-args.topics // args.per_assessor)} assessors), median of {args.rounds} round(s); load before "
          f"{facts['load_before']}, after {facts['load_after']}; code {facts['code']}")
    print(harness.table(["step", "median s", "rows/s", "min s", "max s"], [
        [label, f"{median[kind]:.2f}", f"{rate[kind]:,.0f}", f"{min(seconds[kind]):.2f}", f"{max(seconds[kind]):.2f}"]
        for kind, label in (("import", "judgments_import (all new)"), ("again", "judgments_import (all unchanged)"),
                            ("floor", "reference: the import's rows loaded again by COPY, keys and checks, commit"),
                            ("run", "run_ingest"))]))
    verdict = "met" if ratio <= GOAL_RATIO else "MISSED"
    print(f"import / database floor: {median['import'] / median['floor']:.2f}x; run ingest / database floor (rows/s): "
          f"{rate['run'] / rate['floor']:.1f}x (what the goal's ratio would be if the import cost only its writes)")
    print(f"run ingest / import (rows/s): {ratio:.1f}x; goal within {GOAL_RATIO:.0f}x: {verdict}. Before (issue 24): "
          f"~{BEFORE_ROWS_PER_SECOND} rows/s, {rate['import'] / BEFORE_ROWS_PER_SECOND:.0f}x slower than now")
    harness.save("judgments-import", {"args": vars(args), "facts": facts, "seconds": seconds, "rows": rows,
                                      "rows_per_second": rate, "ratio": ratio}, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])

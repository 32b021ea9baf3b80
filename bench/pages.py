"""Pages benchmark: every organizer and assessor page at a tenth and at full ARQMath-3 Task 1 scale, in one run.

Builds (or reuses) two campaigns through the services and bulk loads: full is 33 runs x 78 topics x 1000 rows, pools
at depths 45/20, 10 assessors, the pooled posts of each topic judged up to --judged (official, one assessor a topic)
and a training round of 3 topics judged by all 10 (its first 100 items each), judgments loaded by judgments_import
(a generated TSV) and their visits given times by one UPDATE, over a Posts.xml collection of 1M posts; the tenth has
a tenth of the topics and of the posts. Then times each page with the Django test Client in this process
(--rounds runs after one warm-up, median), then again with one judgment changed before each request (every cache
keyed to the judgments out of date; the scores' recompute left queued, as with a busy worker), and prints each
page's medians at both sizes, their ratios and the queries at both. The runs disagree as ARQMath-3's do (pools of
about 450 items a topic). Downloads are timed to their first byte (and in full). --scale shrinks both sizes for a loaded
machine (0.5: 39 topics and 500,000 posts at "full"). Results land in docs/benchmarks.md ("Pages at full scale").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_pages .venv/bin/python bench/pages.py
    DATABASE_URL=... .venv/bin/python bench/pages.py --scale 0.2 --rounds 3     # quick check
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass

import harness
import ingest as bench_ingest
from harness import note

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_pages"
SEED = 2024
RUNS, TOPICS, POSTS, ASSESSORS = 33, 78, 1_000_000, 10
TRAINING_TOPICS, TRAINING_ITEMS = 3, 100
GRADES = ["3", "2", "1", "0", "0", "0", "0"]
GOAL_MS, GOAL_RATIO = 300.0, 1.5
# How far the generated runs disagree (workflow/demo/bulk.py): at 8, pools of about 450 items a topic, ARQMath-3's
# (about 37,000 items for 78 topics); at 1 the runs agree more than real ones and the pools are a third of that.
RUN_NOISE = 8.0
ORGANIZER, ASSESSOR = "benchpages-org", "benchpages{:02d}"


@dataclass(frozen=True)
class Size:
    label: str
    topics: int
    posts: int

    @property
    def name(self) -> str:
        return f"bench-pages-{self.topics}t-{self.posts}p"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = harness.Parser(__doc__)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of the full size built as 'full' (the tenth is a tenth of it; default 1)")
    parser.add_argument("--judged", type=float, default=0.85,
                        help="fraction of each topic's pool judged officially (default 0.85)")
    parser.count("rounds", 5, "timed requests per page (median reported)")
    parser.add_argument("--only", default="", help="time only the pages whose label contains this (or one of these, "
                                                   "comma-separated)")
    args = parser.parse(argv)
    if not 0 < args.scale <= 1 or not 0 < args.judged <= 1:
        parser.error("--scale and --judged must be in (0, 1]")
    return args


def only_ours() -> bool:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('pooling_campaign') IS NULL")
        if cursor.fetchone()[0]:
            return True
        cursor.execute("SELECT count(*) FROM pooling_campaign WHERE name NOT LIKE 'bench-pages-%%'")
        return cursor.fetchone()[0] == 0


# --- the campaigns --------------------------------------------------------------------------------

def users():
    from django.contrib.auth import get_user_model

    User = get_user_model()
    organizer, _ = User.objects.get_or_create(username=ORGANIZER, defaults={"is_superuser": True, "is_staff": True})
    assessors = [User.objects.get_or_create(username=ASSESSOR.format(n))[0] for n in range(1, ASSESSORS + 1)]
    return organizer, assessors


def build(size: Size, args: argparse.Namespace, organizer, assessors):
    """The campaign of `size`, reused when a complete one exists (it has judgments)."""
    from judging.models import Judgment
    from pooling.models import Campaign

    campaign = Campaign.objects.filter(name=size.name).first()
    if campaign is not None and Judgment.objects.filter(assignment__campaign=campaign).exists():
        return campaign
    if campaign is not None:
        sys.exit(f"{size.name} was left half-built by an interrupted run: drop the database {DEFAULT_DATABASE_URL} "
                 "and run again")
    from agreement.rounds import training_round_create
    from judging.services import judgments_import, pools_rebuild
    from pooling.models import PoolItem
    from pooling.services import campaign_create, collection_ingest, run_ingest, topics_ingest

    started = time.perf_counter()
    posts_xml = bench_ingest.posts_file(args.out, size.posts)
    topics_xml, topic_ids = bench_ingest.topics_file(args.out, size.topics)
    files = bench_ingest.run_files(args.out, runs=RUNS, topic_ids=topic_ids, depth=1000, posts_xml=posts_xml,
                                   noise=RUN_NOISE)
    note(f"{size.name}: ingesting {size.posts:,} posts")
    collection_ingest(collection_name=size.name, paths=[posts_xml])
    campaign = campaign_create(name=size.name, task=Campaign.Task.ANSWERS, collection_name=size.name,
                               user=organizer)
    topics_ingest(campaign=campaign, path=topics_xml)
    note(f"{size.name}: ingesting {len(files)} runs")
    for path, alternate in files:
        run_ingest(campaign=campaign, path=path, alternate=alternate)
    pools_rebuild(campaign=campaign)
    training_round_create(campaign=campaign, topic_ids=topic_ids[:TRAINING_TOPICS], assessors=assessors,
                          user=organizer)
    rng = random.Random(SEED)
    pools: dict[str, list[str]] = {}
    for topic_id, item_id in (PoolItem.objects.filter(campaign=campaign).order_by("topic__position", "position")
                              .values_list("topic__topic_id", "item_id")):
        pools.setdefault(topic_id, []).append(item_id)
    lines = ["assessor\ttopic\titem_id\tgrade\tcomment\tkind\tround\n"]
    for n, topic_id in enumerate(topic_ids):
        items = pools.get(topic_id, [])
        assessor = assessors[n % ASSESSORS].username
        lines += [f"{assessor}\t{topic_id}\t{item}\t{rng.choice(GRADES)}\t\tofficial\t\n"
                  for item in items[:round(len(items) * args.judged)]]
    for assessor in assessors:
        for topic_id in topic_ids[:TRAINING_TOPICS]:
            lines += [f"{assessor.username}\t{topic_id}\t{item}\t{rng.choice(GRADES)}\t\ttraining\t1\n"
                      for item in pools.get(topic_id, [])[:TRAINING_ITEMS]]
    note(f"{size.name}: importing {len(lines) - 1:,} judgments")
    judgments_import(campaign=campaign, lines=lines, user=organizer, filename="bench-judgments.tsv")
    visits_timed(campaign)
    note(f"{size.name}: built in {time.perf_counter() - started:.0f} s")
    return campaign


def visits_timed(campaign) -> None:
    """Imported visits carry no time; these get what judging through the page leaves: completed over the last
    30 days, shown 10-120 s before, active for most of that."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE assessor_itemvisit v SET completed_at = now() - (random() * 30) * interval '1 day' "
            "FROM assessor_assignment a WHERE a.id = v.assignment_id AND a.campaign_id = %s "
            "AND v.completed_at IS NOT NULL", [campaign.pk])
        cursor.execute(
            "UPDATE assessor_itemvisit v SET first_shown_at = v.completed_at - (10 + random() * 110) * interval '1 s' "
            "FROM assessor_assignment a WHERE a.id = v.assignment_id AND a.campaign_id = %s "
            "AND v.completed_at IS NOT NULL", [campaign.pk])
        cursor.execute(
            "UPDATE assessor_itemvisit v SET active_seconds = "
            "extract(epoch FROM v.completed_at - v.first_shown_at) * (0.5 + random() * 0.5) "
            "FROM assessor_assignment a WHERE a.id = v.assignment_id AND a.campaign_id = %s "
            "AND v.completed_at IS NOT NULL", [campaign.pk])
        cursor.execute("ANALYZE assessor_itemvisit, assessor_judgment, assessor_judgmentrevision")


def shape(campaign) -> dict[str, int]:
    from judging.models import ItemVisit, Judgment
    from pooling.models import PoolItem, Post, RunEntry

    return {"runs": campaign.runs.count(), "topics": campaign.topics.count(),
            "run rows": RunEntry.objects.filter(run__campaign=campaign).count(),
            "pool items": PoolItem.objects.filter(campaign=campaign).count(),
            "judgments": Judgment.objects.filter(assignment__campaign=campaign).count(),
            "visits": ItemVisit.objects.filter(assignment__campaign=campaign).count(),
            "posts": Post.objects.filter(collection=campaign.collection).count()}


# --- the pages ------------------------------------------------------------------------------------

def pages(campaign, assessors) -> list[tuple[str, str, str, bool]]:
    """(label, path, who: organizer or assessor, download: timed to its first byte)."""
    from judging.models import Assignment
    from pooling.models import PoolItem

    pk = campaign.pk
    topic = campaign.topics.order_by("position")[TRAINING_TOPICS]
    run = campaign.runs.order_by("pk").first()
    official = Assignment.objects.filter(campaign=campaign, kind="official", assessor=assessors[0]).order_by("pk")[0]
    item = PoolItem.objects.filter(topic=official.topic).order_by("position").values_list("item_id", flat=True)[0]
    c = f"/campaigns/{pk}"
    return [
        ("campaign", f"{c}/", "organizer", False),
        ("pools", f"{c}/pools/", "organizer", False),
        ("pool topic", f"{c}/pools/topics/{topic.pk}/", "organizer", False),
        ("progress", f"{c}/progress/", "organizer", False),
        ("progress API", f"/api/campaigns/{pk}/progress/", "organizer", False),
        ("agreement", f"{c}/agreement/", "organizer", False),
        ("agreement (training round 1)", f"{c}/agreement/?kind=training&round=1", "organizer", False),
        ("agreement.csv", f"{c}/agreement.csv", "organizer", True),
        ("agreement API", f"/api/campaigns/{pk}/agreement/", "organizer", False),
        ("disagreements (training round 1)", f"{c}/disagreements/?kind=training&round=1", "organizer", False),
        ("disagreements projector", f"{c}/disagreements/?kind=training&round=1&projector=1", "organizer", False),
        ("qrels.txt", f"{c}/qrels.txt", "organizer", True),
        ("qrels API", f"/api/campaigns/{pk}/qrels/", "organizer", True),
        ("pools export API", f"/api/campaigns/{pk}/pools/export/", "organizer", True),
        ("report (latex)", f"{c}/report/?format=latex", "organizer", True),
        ("report (csv, assessment)", f"{c}/report/?format=csv&table=assessment", "organizer", True),
        ("campaign delete confirmation", f"{c}/delete/", "organizer", False),
        ("topic delete confirmation", f"{c}/topics/{topic.pk}/delete/", "organizer", False),
        ("scheme", f"{c}/scheme/", "organizer", False),
        ("run replace", f"{c}/runs/{run.pk}/replace/", "organizer", False),
        ("settings", f"{c}/settings/", "organizer", False),
        ("assignments", f"{c}/assignments/", "organizer", False),
        ("training rounds", f"{c}/training/", "organizer", False),
        ("leaderboard", f"{c}/leaderboard/", "organizer", False),
        ("leaderboard sweep", f"{c}/leaderboard/?sweep=1", "organizer", False),
        ("reusability", f"{c}/reusability/", "organizer", False),
        ("assessor home", "/assess/", "assessor", False),
        ("judging page", f"/assess/assignments/{official.pk}/items/1/", "assessor", False),
        ("thread", f"/assess/collections/{campaign.collection_id}/posts/{item}/", "assessor", False),
    ]


def request_once(client, path: str, download: bool) -> tuple[float, float, int, int]:
    """(seconds to the first byte, seconds to the last, status, queries) of one GET."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        start = time.perf_counter()
        response = client.get(path)
        if response.streaming:
            chunks = iter(response.streaming_content)
            next(chunks, b"")
            first = time.perf_counter() - start
            for _ in chunks:
                pass
        else:
            first = time.perf_counter() - start
        last = time.perf_counter() - start
        response.close()
    return (first if download else last), last, response.status_code, len(queries)


class Revising:
    """One judgment changed before each request, as an assessor revising does (the first official assignment's first
    judged items in turn, each grade flipped between 0 and 1): every cache keyed to the judgments is then out of date.
    The scores' recompute is left queued, as with a worker busy elsewhere: the leaderboard and reusability show their
    last scores, "updating" (evaluation/snapshots.py)."""

    def __init__(self, campaign, assessor) -> None:
        from judging.models import Assignment, Judgment

        self.assessor = assessor
        self.assignment = (Assignment.objects.filter(campaign=campaign, kind="official", assessor=assessor)
                           .order_by("pk")[0])
        self.judged = list(Judgment.objects.filter(assignment=self.assignment).order_by("pk")
                           .values_list("item_id", "grade")[:20])
        self.turn = 0

    def __call__(self) -> None:
        from judging.services import GradeInput, judgment_submit

        item_id, grade = self.judged[self.turn % len(self.judged)]
        flipped = "1" if grade == "0" else "0"
        judgment_submit(assignment_pk=self.assignment.pk, item_id=item_id, grades=[GradeInput(flipped)],
                        user=self.assessor)
        self.judged[self.turn % len(self.judged)] = (item_id, flipped)
        self.turn += 1


def time_pages(campaign, organizer, assessors, args: argparse.Namespace, *, after_judgment: bool = False
               ) -> dict[str, dict]:
    """Each page's median; `after_judgment`: each request right after a judgment changed (Revising)."""
    from unittest import mock

    from django.test import Client

    clients = {"organizer": Client(HTTP_HOST="localhost"), "assessor": Client(HTTP_HOST="localhost")}
    clients["organizer"].force_login(organizer)
    clients["assessor"].force_login(assessors[0])
    # The leaderboard (and its sweep), reusability and report read the last computed scores (evaluation/snapshots.py):
    # ask for them once, then compute them here as the scores worker would, so that the pages time reading them.
    from evaluation import snapshots
    snapshots.leaderboard(campaign=campaign)
    snapshots.reusability_scores(campaign=campaign)
    snapshots.fusion_sweep(campaign=campaign)
    snapshots.scores_refresh(campaign_pk=campaign.pk)
    results = {}
    revise = Revising(campaign, assessors[0]) if after_judgment else (lambda: None)
    queued = (mock.patch("evaluation.snapshots.scores_refresh_request", return_value=False) if after_judgment
              else mock.MagicMock())
    for label, path, who, download in pages(campaign, assessors):
        if args.only and not any(part in label for part in args.only.split(",")):
            continue
        client = clients[who]
        request_once(client, path, download)  # warm-up: caches, first imports
        runs = []
        with queued:
            for _ in range(args.rounds):
                revise()
                runs.append(request_once(client, path, download))
        statuses = {status for _, _, status, _ in runs}
        if statuses != {200}:
            sys.exit(f"{label} ({path}) answered {sorted(statuses)}, not 200")
        results[label] = {"path": path, "download": download, "statuses": sorted(statuses),
                          "ms": 1000 * statistics.median(r[0] for r in runs),
                          "total_ms": 1000 * statistics.median(r[1] for r in runs),
                          "queries": max(r[3] for r in runs)}
        note(f"  {label}: {results[label]['ms']:.0f} ms, {results[label]['queries']} queries, status {statuses}")
    if after_judgment:
        snapshots.scores_refresh(campaign_pk=campaign.pk)  # the queued recompute, as the worker would run it
    return results


def report(args, facts, shapes, timings) -> None:
    print(f"Pages at a tenth and at full scale (--scale {args.scale}), median of {args.rounds} request(s) after one "
          f"warm-up, Django test Client in process; load before {facts['load_before']}, after {facts['load_after']}; "
          f"code {facts['code']}")
    print()
    print(harness.table(["size", *shapes["full"]], [[label, *(f"{v:,}" for v in shapes[label].values())]
                                                    for label in ("tenth", "full")]))
    print()
    rows, missed = [], []
    for label in timings["full"]:
        cells, slow = [], False
        for when in ("", " after a judgment"):
            a, b = timings["tenth" + when][label], timings["full" + when][label]
            ratio = b["ms"] / a["ms"] if a["ms"] else float("nan")
            # Downloads are held to their first byte's time, not to the ratio (their whole length grows with the
            # campaign).
            over = b["ms"] > GOAL_MS or (ratio > GOAL_RATIO and b["ms"] > 50 and not b["download"])
            slow = slow or over
            cells += [f"{a['ms']:.0f}", f"{b['ms']:.0f}" + (" **" if over else ""), f"{ratio:.2f}"]
        if slow:
            missed.append(label)
        a, b = timings["tenth"][label], timings["full"][label]
        name = label + (" (first byte)" if b["download"] else "")
        rows.append([name, *cells, a["queries"], b["queries"], f"{b['total_ms']:.0f}" if b["download"] else "",
                     ",".join(map(str, b["statuses"]))])
    print(harness.table(["page", "tenth ms", "full ms", "full / tenth", "after a judgment: tenth ms", "full ms",
                         "full / tenth", "queries tenth", "queries full", "full ms (whole download)", "status"], rows))
    print()
    print(f"Goal: under {GOAL_MS:.0f} ms at full and at most {GOAL_RATIO}x the tenth (pages under 50 ms exempt from "
          f"the ratio; downloads held to their first byte's time only), also right after a judgment: "
          f"{'met' if not missed else 'missed by ' + ', '.join(missed)} (** above)")


def settle() -> None:
    """What autovacuum does soon after the loads on a server where it runs (the test server's is off): visibility
    maps, so that index-only scans (a pooled post in the collection?) need not visit the table, and planner
    statistics. Cheap when nothing changed since."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE pooling_post, pooling_poolitem, pooling_poolinstance, assessor_assignment, "
                       "assessor_itemvisit, assessor_judgment")


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    harness.database_url(DEFAULT_DATABASE_URL, "bench/pages.py")
    harness.setup_django()
    harness.database_of_our_own("bench/pages.py", only_ours, "builds campaigns bench-pages-*")
    full_topics, full_posts = max(round(TOPICS * args.scale), 10), max(round(POSTS * args.scale), 10_000)
    sizes = {"tenth": Size("tenth", max(full_topics // 10, 4), full_posts // 10),
             "full": Size("full", full_topics, full_posts)}
    organizer, assessors = users()
    campaigns = {label: build(size, args, organizer, assessors) for label, size in sizes.items()}
    settle()
    facts = harness.machine_facts("shared_buffers", code=("assessor", "pooling", "evaluation", "workflow", "ir"))
    shapes = {label: shape(campaign) for label, campaign in campaigns.items()}
    for label, s in shapes.items():
        note(f"{label}: " + ", ".join(f"{k} {v:,}" for k, v in s.items()))
    timings: dict[str, dict] = {}
    for label, campaign in campaigns.items():
        note(f"timing {label} (load {harness.load()})")
        timings[label] = time_pages(campaign, organizer, assessors, args)
        note(f"timing {label}, each request right after a judgment (load {harness.load()})")
        timings[label + " after a judgment"] = time_pages(campaign, organizer, assessors, args, after_judgment=True)
    facts["load_after"] = harness.load()
    report(args, facts, shapes, timings)
    harness.save("pages", {"args": vars(args), "facts": facts, "shapes": shapes, "timings": timings}, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])

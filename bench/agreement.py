"""Agreement dashboard benchmark: the kappa dashboard of a training round of 10 assessors x 7 topics x 60 items
(4,200 judgments), rendered server-side in this process (django.test.Client, production settings, PostgreSQL).

Goal: the dashboard renders in under 300 ms (median over --repeat requests after --warmup). The disagreement review,
the CSV download and the progress page of the same campaign are timed too, for the record (no goal). The campaign
`bench-agreement` (collection, topics, pools, accounts benchagree01.., judgments) is built once and reused while it
has the requested shape; nothing else in the database is touched. Results land in docs/benchmarks.md ("Agreement
dashboard").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_agreement .venv/bin/python bench/agreement.py
    DATABASE_URL=... .venv/bin/python bench/agreement.py --assessors 10 --topics 7 --items 60 --repeat 30
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import time

import harness

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_agreement"
CAMPAIGN = "bench-agreement"
USERNAME = "benchagree{:02d}"
GOAL_MS = 300.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = harness.Parser(__doc__)
    parser.count("assessors", 10, "assessors of the training round")
    parser.count("topics", 7, "topics")
    parser.count("items", 60, "pooled items per topic, all judged by everyone")
    parser.count("repeat", 30, "timed requests of the dashboard (a third of it for the other pages, at least 5)")
    parser.count("warmup", 3, "untimed requests first")
    return parser.parse(argv)


def campaign_shape(campaign) -> tuple[int, int, int]:
    from judging.models import Assignment
    from pooling.models import PoolItem

    assessors = Assignment.objects.filter(campaign=campaign, kind="training", round=1).values("assessor").distinct()
    topics = campaign.topics.count()
    items = PoolItem.objects.filter(campaign=campaign).count() // max(topics, 1)
    return assessors.count(), topics, items


def drop_campaign(campaign) -> None:
    from agreement.models import TrainingRound
    from judging.models import Assignment, ItemVisit, Judgment, JudgmentRevision

    JudgmentRevision.objects.filter(judgment__assignment__campaign=campaign).delete()
    Judgment.objects.filter(assignment__campaign=campaign).delete()
    ItemVisit.objects.filter(assignment__campaign=campaign).delete()
    Assignment.objects.filter(campaign=campaign).delete()
    TrainingRound.objects.filter(campaign=campaign).delete()
    collection = campaign.collection
    campaign.delete()
    if collection is not None and not collection.campaigns.exists():
        collection.delete()


def build(args: argparse.Namespace):
    """The campaign: questions and answers with some math, pools of `items` answers per topic, and a training round
    where every assessor judged every item (grades near a per-item truth, a few SF and DK), with visit times."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from agreement.rounds import training_round_create
    from judging.models import Assignment, ItemVisit, Judgment
    from pooling.models import Campaign, Collection, PoolItem, Post, Topic

    existing = Campaign.objects.filter(name=CAMPAIGN).first()
    if existing is not None:
        if campaign_shape(existing) == (args.assessors, args.topics, args.items):
            return existing
        harness.note(f"rebuilding {CAMPAIGN}: it has another shape")
        drop_campaign(existing)
    rng = random.Random(6)
    User = get_user_model()
    with transaction.atomic():
        collection = Collection.objects.create(name=CAMPAIGN)
        campaign = Campaign.objects.create(name=CAMPAIGN, task="answers", collection=collection, primary_depth=45,
                                           alternate_depth=20)
        posts, topics = [], []
        for t in range(1, args.topics + 1):
            topics.append(Topic(campaign=campaign, topic_id=f"A.{t}", position=t - 1, title=f"Topic {t}: $x^{t}$",
                                question=f"<p>How do I integrate $x^{t} e^x$? {'More words. ' * 20}</p>",
                                tags="calculus integration"))
            posts.append(Post(collection=collection, post_id=f"q{t}", kind="question", thread_id=f"q{t}",
                              title=f"Question {t}", body="<p>A question.</p>"))
            for i in range(args.items):
                posts.append(Post(collection=collection, post_id=f"{t}{i:03d}", kind="answer", thread_id=f"q{t}",
                                  body=f"<p>Answer {i} of topic {t}: $\\int_0^{i} x^{t}\\,dx$. "
                                       f"{'Some explanation of the steps. ' * 12}</p>", score=i % 7))
        Topic.objects.bulk_create(topics)
        Post.objects.bulk_create(posts, batch_size=2000)
        topics = list(campaign.topics.order_by("position"))
        PoolItem.objects.bulk_create([PoolItem(campaign=campaign, topic=topic, item_id=f"{t}{i:03d}", position=i,
                                               provenance=[["bench", i + 1]])
                                      for t, topic in enumerate(topics, 1) for i in range(args.items)])
        users = []
        for n in range(1, args.assessors + 1):
            user = User.objects.filter(username=USERNAME.format(n)).first()
            if user is None:
                user = User(username=USERNAME.format(n))
                user.set_unusable_password()
                user.save()
            users.append(user)
        training_round_create(campaign=campaign, topic_ids=[t.topic_id for t in topics], assessors=users, number=1)
        now = timezone.now()
        judgments, visits = [], []
        for a in Assignment.objects.filter(campaign=campaign).select_related("topic"):
            t = a.topic.position + 1
            for i in range(args.items):
                truth = (i * 7 + t) % 4
                roll = rng.random()
                grade = (str(truth) if roll < 0.65 else str(min(3, max(0, truth + rng.choice([-1, 1]))))
                         if roll < 0.97 else rng.choice(["SF", "DK"]))
                shown = now - dt.timedelta(hours=rng.randint(1, 72), seconds=rng.randint(0, 3600))
                done = shown + dt.timedelta(seconds=rng.randint(15, 240))
                judgments.append(Judgment(assignment=a, item_id=f"{t}{i:03d}", post_id=f"{t}{i:03d}", grade=grade,
                                          comment="unsure" if grade in ("SF", "DK") else "", first_shown_at=shown,
                                          submitted_at=done, updated_at=done))
                visits.append(ItemVisit(assignment=a, item_id=f"{t}{i:03d}", first_shown_at=shown, completed_at=done,
                                        active_seconds=(done - shown).total_seconds() * 0.8))
        Judgment.objects.bulk_create(judgments, batch_size=5000)
        ItemVisit.objects.bulk_create(visits, batch_size=5000)
    return campaign


def measure(client, url: str, *, repeat: int, warmup: int) -> dict:
    """Milliseconds of `repeat` requests after `warmup` (each answering 200), and the queries of one more."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def get():
        response = client.get(url)
        if response.status_code != 200:
            sys.exit(f"{url} answered {response.status_code}")
        return response

    seconds, _ = harness.rounds(repeat, get, warmup=warmup)
    with CaptureQueriesContext(connection) as queries:
        response = get()
    return {"url": url, **harness.spread(seconds, 1000), "queries": len(queries), "bytes": len(response.content)}


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    harness.database_url(DEFAULT_DATABASE_URL, "bench/agreement.py")
    os.environ.update(harness.production_environment())
    harness.setup_django()
    harness.collect_static()  # production's pages name their static files from the manifest
    harness.ensure_database()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    started = time.perf_counter()
    campaign = build(args)
    build_seconds = time.perf_counter() - started
    organizer, _ = get_user_model().objects.get_or_create(username="benchagree-organizer")
    organizer.groups.add(Group.objects.get_or_create(name="organizers")[0])
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(organizer)
    base = f"/campaigns/{campaign.pk}"
    pages = {
        "dashboard": f"{base}/agreement/?kind=training&round=1",
        "disagreements": f"{base}/disagreements/?kind=training&round=1",
        "csv": f"{base}/agreement.csv?kind=training&round=1",
        "progress": f"{base}/progress/",
    }
    results = {name: measure(client, url, repeat=args.repeat if name == "dashboard" else max(5, args.repeat // 3),
                             warmup=args.warmup) for name, url in pages.items()}
    judgments = args.assessors * args.topics * args.items
    dashboard = results["dashboard"]
    verdict = "met" if dashboard["median"] < GOAL_MS else "MISSED"
    print(f"agreement dashboard, {args.assessors} assessors x {args.topics} topics x {args.items} items "
          f"({judgments:,} judgments), {args.repeat} requests after {args.warmup} warm-up, load {harness.load()}")
    print(harness.table(["page", "median ms", "p95 ms", "min ms", "queries", "KiB"],
                        [[name, f"{r['median']:.1f}", f"{r['p95']:.1f}", f"{r['min']:.1f}", r["queries"],
                          f"{r['bytes'] / 1024:.1f}"] for name, r in results.items()]))
    print(f"goal: dashboard under {GOAL_MS:.0f} ms (median): {verdict} ({dashboard['median']:.1f} ms)")
    harness.save("agreement", {"args": vars(args), "results": results, "build_seconds": build_seconds}, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])

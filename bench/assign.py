"""Assigning benchmark: assign_topics and the judging cache warm-up on a campaign of ARQMath-3's size.

Builds (once, kept while it holds these counts) a Task 1 campaign `bench-assign` in its own database: --topics topics
of --pool answers each (each answer a few hundred bytes of HTML with math, in a thread of its own question), and
--assessors accounts. Then, in this process, for each assessor: `assignments_create` of its share of the topics
(round-robin, as assign_topics hands them), timed without the warm-up, and the warm-up of those assignments
(`judging_cache_warm`) timed on an emptied cache, with its SQL queries and fragments sanitized counted; then the
same topics given to the next assessor as dual assignments, and their warm-up timed on the cache the first left:
sanitized fragments are the topic's, not the assessor's, so this second warm-up should sanitize nothing. Withdrawn
again after, so that every run measures the same. Results land in docs/benchmarks.md ("Assigning").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_assign REDIS_URL=redis://127.0.0.1:6379/13 \\
        .venv/bin/python bench/assign.py
    DATABASE_URL=... .venv/bin/python bench/assign.py --topics 8 --pool 50 --assessors 2   # quick check
"""
from __future__ import annotations

import sys
import time

import harness
from harness import note

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_assign"
CAMPAIGN = "bench-assign"
BODY = ('<p>By the rule <span class="math-container" id="{n}">$\\int_0^{{{n}}} x^2\\,dx = \\frac{{{n}^3}}{{3}}$'
        '</span>, answer {n} holds. <a href="https://math.stackexchange.com/questions/{n}">see also</a></p>'
        '<p>Then <em>every</em> case follows: $\\sum_{{k=1}}^{{{n}}} k = \\frac{{{n}({n}+1)}}{{2}}$.</p>')


def campaign_of(topics: int, pool: int):
    from pooling.models import Campaign, Collection, PoolItem, Post, Topic

    campaign = Campaign.objects.filter(name=CAMPAIGN).first()
    if campaign and campaign.topics.count() == topics and PoolItem.objects.filter(campaign=campaign).count() \
            == topics * pool:
        return campaign
    if campaign:
        campaign.delete()
    Collection.objects.filter(name=CAMPAIGN).delete()
    note(f"building {topics} topics x {pool} pooled answers")
    collection = Collection.objects.create(name=CAMPAIGN)
    campaign = Campaign.objects.create(name=CAMPAIGN, task=Campaign.Task.ANSWERS, collection=collection,
                                       primary_depth=45, alternate_depth=20)
    Post.objects.bulk_create(
        [Post(collection=collection, post_id=f"q{t}", kind="question", thread_id=f"q{t}", title=f"Question {t}",
              body=BODY.format(n=t)) for t in range(topics)]
        + [Post(collection=collection, post_id=f"a{t}-{i}", kind="answer", thread_id=f"q{t}",
                body=BODY.format(n=t * pool + i)) for t in range(topics) for i in range(pool)], batch_size=5000)
    made = Topic.objects.bulk_create([Topic(campaign=campaign, topic_id=f"A.{t + 301}", position=t,
                                            title=f"Topic {t} $x^{t}$", question=BODY.format(n=t))
                                      for t in range(topics)])
    PoolItem.objects.bulk_create([PoolItem(campaign=campaign, topic=topic, item_id=f"a{t}-{i}", position=i)
                                  for t, topic in enumerate(made) for i in range(pool)], batch_size=5000)
    return campaign


def main(argv: list[str]) -> None:
    parser = harness.Parser(__doc__)
    parser.count("topics", 78, "topics")
    parser.count("pool", 450, "pooled items per topic")
    parser.count("assessors", 10, "assessors")
    args = parser.parse(argv)
    harness.database_url(DEFAULT_DATABASE_URL, "bench/assign.py")
    harness.setup_django()
    harness.ensure_database()
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from judging import rendering, services
    from judging.models import Assignment

    campaign = campaign_of(args.topics, args.pool)
    users = [User.objects.get_or_create(username=f"benchassign{n:02d}")[0] for n in range(args.assessors)]
    Assignment.objects.filter(campaign=campaign).delete()
    topic_ids = list(campaign.topics.order_by("position").values_list("topic_id", flat=True))
    sanitized = 0
    real = rendering._through_cache

    def counted(batch, **options):
        nonlocal sanitized
        result = real(batch, **options)
        sanitized += result[1]
        return result

    rendering._through_cache = counted
    rows = []
    from django.test import override_settings
    for n, user in enumerate(users):
        share = topic_ids[n::len(users)]
        with override_settings(JUDGING_CACHE_WARM=False):
            started = time.perf_counter()
            given = services.assignments_create(campaign=campaign, assessors=[user], topic_ids=share).created
            assign_s = time.perf_counter() - started
        cache.clear()
        sanitized = 0
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            services.judging_cache_warm(assignment_pks=[a.pk for a in given])
            warm_s = time.perf_counter() - started
        first_sanitized, sanitized = sanitized, 0
        with override_settings(JUDGING_CACHE_WARM=False):
            dual = services.assignments_create(campaign=campaign, assessors=[users[(n + 1) % len(users)]],
                                               topic_ids=share, kind=Assignment.Kind.DUAL).created
        started = time.perf_counter()
        services.judging_cache_warm(assignment_pks=[a.pk for a in dual])
        second_s = time.perf_counter() - started
        rows.append([user.username, len(share), f"{assign_s:.2f}", f"{warm_s:.2f}", len(queries), first_sanitized,
                     f"{second_s:.2f}", sanitized])
        note(" ".join(map(str, rows[-1])))
    rendering._through_cache = real
    Assignment.objects.filter(campaign=campaign).delete()
    print(harness.table(["assessor", "topics", "assign s", "warm-up s", "warm-up queries", "sanitized",
                         "second assessor's warm-up s", "sanitized"], rows))
    harness.save("assign", {"args": {k: v for k, v in vars(args).items() if k != "out"}, "rows": rows,
                            "facts": harness.machine_facts()})


if __name__ == "__main__":
    main(sys.argv[1:])

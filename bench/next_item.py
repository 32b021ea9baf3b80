"""Next-item benchmark (issue 27): the server's time to choose an assessor's next item in each judging order.

Builds (once, kept while it holds these counts) a Task 1 campaign `bench-next-item` in its own database: one topic
whose pool holds --pool items retrieved by --runs runs to depth --depth (each run's items drawn at random, a few
items retrieved by many runs, most by few, as real pools are), and one assessor who has judged --judged of them
(a fifth relevant). Then, in this process, for each order (random, the reference; move-to-front; bandit): the
selector `next_item`, the fetch-ahead's `ahead_of` (three items and the one for a relevant grade), and the Continue
URL through django.test.Client (302 to the item), each timed --rounds times after a warm-up, with its SQL queries
counted. Printed as medians and p95 in ms and as ratios to the random order's time measured in the same run; the
goal is under 50 ms of server time for the next item. Results land in docs/benchmarks.md ("Next item").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_next_item .venv/bin/python bench/next_item.py
    DATABASE_URL=... .venv/bin/python bench/next_item.py --pool 60 --runs 5 --judged 20 --rounds 5   # quick
"""
from __future__ import annotations

import random
import statistics
import sys

import harness
from harness import note

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_next_item"
CAMPAIGN = "bench-next-item"
ORDERS = ("random", "move-to-front", "bandit")


def campaign_of(pool: int, runs: int, depth: int, judged: int):
    """The benchmark's campaign, built anew unless it holds these counts; its one assignment."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from judging.models import Assignment, ItemVisit, Judgment
    from pooling.models import Campaign, PoolItem, Topic

    shape = {"pool": pool, "runs": runs, "depth": depth, "judged": judged}
    campaign = Campaign.objects.filter(name=CAMPAIGN).first()
    if campaign and campaign.pool_plan.get("bench") == shape:
        return campaign, Assignment.objects.get(campaign=campaign)
    if campaign:
        Judgment.objects.filter(assignment__campaign=campaign).delete()
        ItemVisit.objects.filter(assignment__campaign=campaign).delete()
        Assignment.objects.filter(campaign=campaign).delete()
        campaign.delete()
    note(f"building one topic of {pool} items from {runs} runs at depth {depth}, {judged} judged")
    rng = random.Random(27)
    campaign = Campaign.objects.create(name=CAMPAIGN, task="answers", primary_depth=depth, alternate_depth=depth,
                                       pool_plan={"bench": shape})
    topic = Topic.objects.create(campaign=campaign, topic_id="A.1", title="bench")
    items = [str(100000 + n) for n in range(pool)]
    weights = [1 / (1 + n) ** 0.5 for n in range(pool)]  # a few items retrieved by many runs, most by few
    provenance: dict[str, list] = {item: [] for item in items}
    for run in range(runs):
        chosen: list[str] = []
        while len(chosen) < min(depth, pool):
            item = rng.choices(items, weights)[0]
            if item not in chosen:
                chosen.append(item)
        for rank, item in enumerate(chosen, start=1):
            provenance[item].append([f"run-{run:02d}", rank])
    order = items[:]
    rng.shuffle(order)
    PoolItem.objects.bulk_create(PoolItem(campaign=campaign, topic=topic, item_id=item, position=n,
                                          provenance=provenance[item] or [["run-00", depth + 1]])
                                 for n, item in enumerate(order))
    user, _ = get_user_model().objects.get_or_create(username="bench-next-item")
    assignment = Assignment.objects.create(campaign=campaign, topic=topic, assessor=user)
    now = timezone.now()
    for n, item in enumerate(order[:judged]):
        ItemVisit.objects.create(assignment=assignment, item_id=item, first_shown_at=now, completed_at=now)
        Judgment.objects.create(assignment=assignment, item_id=item, post_id=item, grade="2" if n % 5 == 0 else "0",
                                submitted_at=now, updated_at=now)
    return campaign, assignment


def measure(call, rounds: int, *, request: bool) -> tuple[dict[str, float], float, int | None]:
    """Wall ms (spread), this process's median CPU ms (the Python side, which a loaded machine's waits do not
    inflate as much) and the SQL queries of one call (None for a request: the test client's request resets the
    query log Django keeps)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    call()
    queries = None
    if not request:
        with CaptureQueriesContext(connection) as captured:
            call()
        queries = len(captured)
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu, _result = harness.timed(call)
        walls.append(wall)
        cpus.append(cpu)
    return harness.spread(walls, 1000.0), 1000.0 * statistics.median(cpus), queries


def main(argv: list[str]) -> None:
    parser = harness.Parser(__doc__)
    parser.count("pool", 450, "items in the topic's pool")
    parser.count("runs", 33, "runs that retrieved them")
    parser.count("depth", 45, "each run's depth in the pool")
    parser.count("judged", 100, "items the assessor has judged")
    parser.count("rounds", 30, "timed calls of each")
    args = parser.parse(argv)
    if args.judged >= args.pool:
        parser.error("--judged must be below --pool (something left to judge)")
    harness.database_url(DEFAULT_DATABASE_URL, "bench/next_item.py")
    harness.setup_django()
    harness.ensure_database(only_ours=lambda: harness.only_campaign(CAMPAIGN))
    from django.test import Client

    from judging import selectors
    from judging.models import Assignment

    campaign, assignment = campaign_of(args.pool, args.runs, args.depth, args.judged)
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(assignment.assessor)
    rows, figures = [], {"args": vars(args) | {"out": str(args.out)}, "load": harness.load(), "orders": {}}
    reference: dict[str, float] = {}
    for order in ORDERS:
        campaign.judging_order = order
        campaign.save(update_fields=["judging_order"])

        def fresh() -> Assignment:
            return Assignment.objects.select_related("campaign", "topic").get(pk=assignment.pk)

        a = fresh()
        position = selectors.next_item(assignment=a).position
        kinds = {"next_item": lambda: selectors.next_item(assignment=fresh()),
                 "ahead_of": lambda at=position: selectors.ahead_of(assignment=fresh(), position=at, count=3),
                 "continue (302)": lambda: client.get(f"/assess/assignments/{assignment.pk}/")}
        for kind, call in kinds.items():
            spread, cpu, queries = measure(call, args.rounds, request=kind.startswith("continue"))
            if order == "random":
                reference[kind] = spread["median"]
            ratio = spread["median"] / reference[kind]
            figures["orders"].setdefault(order, {})[kind] = {**spread, "cpu_ms": cpu, "queries": queries,
                                                             "ratio": ratio}
            rows.append([order, kind, f"{spread['median']:.1f}", f"{spread['p95']:.1f}", f"{cpu:.1f}",
                         "-" if queries is None else queries, f"{ratio:.2f}"])
    print(f"One topic of {args.pool} items from {args.runs} runs at depth {args.depth}, {args.judged} judged; "
          f"{args.rounds} rounds; load {figures['load']}\n")
    print(harness.table(["order", "request", "median ms", "p95 ms", "CPU ms", "queries", "x random"], rows,
                        left=2))
    harness.save("next_item", figures, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])

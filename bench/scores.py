"""Scores in the background: judging page latency while a recompute runs; the leaderboard right after a judgment.

On the demo's Task 1 campaign (loaded once into a database of its own, as bench/judging.py does), in this process
through django.test.Client:

- judging: --pages GETs of one assessor's judging page, p50/p95, while idle and then while a recompute runs in a
  separate process at the worker's lower CPU priority (evaluation.tasks.NICENESS; `evaluate_campaign` in a loop, as
  `scores_refresh` runs it), and again while it runs at normal priority (what the request used to do);
- leaderboard: the page right after a judgment, with a broker and no worker (the recompute only queued): the
  snapshot read; beside it `evaluate_campaign`, what the request used to compute.

    .venv/bin/python bench/scores.py    # DATABASE_URL: by default assess_bench_scores, the demo loaded once

--campaign NAME takes a campaign the database holds already instead of the demo's, say bench/pages.py's full one
(judging: its first official assignment, by its own assessor, which must have items left; bench/pages.py's leave
15% of each pool unjudged):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_pages .venv/bin/python bench/scores.py \
        --campaign bench-pages-78t-1000000p
"""
from __future__ import annotations

import multiprocessing
import os
import sys
import time

import harness
from harness import note

import judging

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_scores"


def recompute_loop(campaign_pk: int, niceness: int, stop) -> None:
    from django.db import connection

    from evaluation.services import evaluate_campaign
    from pooling.models import Campaign

    connection.close()  # the parent's connection is not this process's
    if niceness:
        os.setpriority(os.PRIO_PROCESS, 0, niceness)
    campaign = Campaign.objects.get(pk=campaign_pk)
    while not stop.is_set():
        evaluate_campaign(campaign=campaign)


def page_times(client, url: str, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        response = client.get(url)
        times.append(1000 * (time.perf_counter() - start))
        if response.status_code != 200:
            raise SystemExit(f"{url} answered {response.status_code}, not 200")
    return times


def main(argv: list[str]) -> int:
    parser = harness.Parser(__doc__)
    parser.count("pages", 100, "judging page GETs per phase")
    parser.count("leaderboards", 10, "leaderboard GETs right after a judgment")
    parser.add_argument("--campaign", default="", help="an existing campaign instead of the demo's")
    options = parser.parse(argv)
    harness.database_url(DEFAULT_DATABASE_URL, "bench/scores.py")
    harness.setup_django()
    harness.ensure_database()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from evaluation.services import evaluate_campaign
    from evaluation.tasks import NICENESS
    from judging.services import judgments_import

    client = Client(SERVER_NAME="127.0.0.1")
    if options.campaign:
        from judging.models import Assignment
        from pooling.models import Campaign

        campaign = Campaign.objects.get(name=options.campaign)
        assignment = Assignment.objects.filter(campaign=campaign, kind="official", withdrawn_at=None).order_by("pk")[0]
        client.force_login(assignment.assessor)
        page = client.get(judging.continue_url(assignment.pk))["Location"]
        if "/items/" not in page:
            raise SystemExit(f"{options.campaign}: its first official assignment has nothing left to judge")
    else:
        campaign = judging.demo_campaign()
        users = judging.bench_users(1)
        topics = judging.free_topics(campaign, users)[:1]
        assignments, _warm = judging.assign_level(campaign, users, topics, cold=False)
        client.force_login(users[0])
        page = client.get(judging.continue_url(assignments[users[0].pk][0]))["Location"]
    figures: dict = {"machine": harness.machine_facts(), "judging_ms": {}}
    for phase, niceness in (("idle", None), ("recompute niced", NICENESS), ("recompute not niced", 0)):
        stop, worker = multiprocessing.Event(), None
        if niceness is not None:
            connection.close()
            worker = multiprocessing.Process(target=recompute_loop, args=(campaign.pk, niceness, stop))
            worker.start()
            time.sleep(1.0)  # the worker under way
        note(f"judging page: {phase}")
        page_times(client, page, 5)
        figures["judging_ms"][phase] = harness.spread(page_times(client, page, options.pages))
        if worker is not None:
            stop.set()
            worker.join()

    from django.contrib.auth.models import Group

    from core.permissions import ORGANIZERS
    organizer, _ = get_user_model().objects.get_or_create(username="benchscores")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS)[0])  # an organizer, whenever it was created
    client.force_login(organizer)
    board = reverse("evaluation:leaderboard", args=[campaign.pk])
    client.get(board)  # the first scores (no broker here: computed in-process)
    queued: list[int] = []
    from jobs import runner
    runner._publish = lambda job_id, kind: queued.append(job_id)  # a broker, no worker
    judgment = campaign.assignments.filter(kind="official").exclude(judgments=None).first().judgments.first()
    assignment = judgment.assignment
    after, grade = [], judgment.grade
    for _ in range(options.leaderboards):
        # A grade other than the one stored, each time: every import changes the judgment (a run before left one).
        grade = "1" if grade == "2" else "2"
        judgments_import(campaign=campaign, lines=["\t".join([assignment.assessor.username, assignment.topic.topic_id,
                                                              judgment.item_id, grade, "bench"])])
        start = time.perf_counter()
        status = client.get(board).status_code
        if status != 200:
            raise SystemExit(f"the leaderboard answered {status}, not 200: the timing would be of another page")
        after.append(1000 * (time.perf_counter() - start))
    compute = [harness.timed(evaluate_campaign, campaign=campaign)[0] * 1000 for _ in range(3)]
    figures["leaderboard_after_judgment_ms"] = harness.spread(after)
    figures["evaluate_campaign_ms"] = harness.spread(compute)
    figures["recomputes_queued"] = len(queued)
    rows = [[phase, f"{v['p50']:.1f}", f"{v['p95']:.1f}"] for phase, v in figures["judging_ms"].items()]
    print(harness.table(["Judging page", "p50 ms", "p95 ms"], rows))
    print()
    print(harness.table(["Leaderboard", "p50 ms", "p95 ms"], [
        ["right after a judgment (snapshot read)", f"{figures['leaderboard_after_judgment_ms']['p50']:.1f}",
         f"{figures['leaderboard_after_judgment_ms']['p95']:.1f}"],
        ["evaluate_campaign (what the request computed before)", f"{figures['evaluate_campaign_ms']['p50']:.1f}",
         f"{figures['evaluate_campaign_ms']['p95']:.1f}"]]))
    print(f"\nrecomputes queued: {len(queued)} for {options.leaderboards} judgments; load {harness.load()}")
    harness.save("scores", figures, options.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

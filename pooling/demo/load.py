"""The demo of `make demo`: a synthetic collection, the real ARQMath-3 topics and synthetic runs, loaded
through the same ingestion services an organizer uses, their pools built by the pooling service, plus an
organizer and assessor accounts."""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from pooling import services
from pooling.models import Campaign, Collection
from pooling.permissions import ORGANIZERS
from pooling.signals import demo_deleting, demo_loaded

from .generate import DemoFiles, generate_demo

COLLECTION = "MSE demo"
CAMPAIGNS = {
    "answers": "ARQMath-3 Task 1 demo",
    "formulas": "ARQMath-3 Task 2 demo",
}
ORGANIZER = "organizer"
ASSESSORS = ("assessor1", "assessor2", "assessor3")


@dataclass
class DemoReport:
    lines: list[str] = field(default_factory=list)
    passwords: dict[str, str] = field(default_factory=dict)

    def say(self, line: str) -> None:
        self.lines.append(line)


def demo_load(*, out_dir: Path, reset: bool = False, seed: int = 2022) -> DemoReport:
    """Loads the demo once; run again, it leaves the data as it is and gives the accounts new passwords."""
    report = DemoReport()
    if reset:
        _demo_delete()
        report.say("removed the earlier demo campaigns and collection")
    if Collection.objects.filter(name=COLLECTION).exists():
        report.say(f"the demo is already loaded (collection '{COLLECTION}'); use --reset to load it anew")
    else:
        files = generate_demo(out_dir, seed=seed)
        report.say(f"generated the synthetic collection and runs in {out_dir}")
        _demo_ingest(files, report, seed)
    assessors = _demo_accounts(report)
    campaigns = {c.task: c for c in Campaign.objects.filter(name__in=CAMPAIGNS.values())}
    demo_loaded.send(sender=Campaign, campaigns=campaigns, assessors=assessors, say=report.say)
    return report


@transaction.atomic
def _demo_delete() -> None:
    demo_deleting.send(sender=Campaign, campaigns=list(Campaign.objects.filter(name__in=CAMPAIGNS.values())))
    Campaign.objects.filter(name__in=CAMPAIGNS.values()).delete()
    Collection.objects.filter(name=COLLECTION).delete()


@transaction.atomic
def _demo_ingest(files: DemoFiles, report: DemoReport, seed: int) -> None:
    result = services.collection_ingest(collection_name=COLLECTION,
                                        paths=[files.posts, files.comments, files.formulas])
    report.say(f"collection '{COLLECTION}': " + ", ".join(f"{n} {k}" for k, n in result["counts"].items()))
    for task, topics, runs in (("answers", files.task1_topics, files.task1_runs),
                               ("formulas", files.task2_topics, files.task2_runs)):
        campaign = services.campaign_create(name=CAMPAIGNS[task], task=task, collection_name=COLLECTION, seed=seed)
        loaded = services.topics_ingest(campaign=campaign, path=topics)
        for path, alternate in runs:
            run = services.run_ingest(campaign=campaign, path=path, alternate=alternate)
            services.run_collection_check(run=run)
        report.say(f"campaign '{campaign.name}': {loaded['total']} topics, {len(runs)} runs")
        pools = services.pool_build(campaign=campaign)
        if task == "formulas":
            report.say(f"campaign '{campaign.name}': pools built, {pools['items']} visual ids in "
                       f"{len(pools['sizes'])} topics, {pools['selected']} formula instances to judge")
        else:
            report.say(f"campaign '{campaign.name}': pools built, {pools['items']} answers to judge in "
                       f"{len(pools['sizes'])} topics")


def _demo_accounts(report: DemoReport) -> list:
    users = get_user_model()
    assessors = []
    organizers, _ = Group.objects.get_or_create(name=ORGANIZERS)
    for username in (ORGANIZER, *ASSESSORS):
        user, _ = users.objects.get_or_create(username=username)
        password = secrets.token_urlsafe(9)
        user.set_password(password)
        user.save()
        if username == ORGANIZER:
            user.groups.add(organizers)
        else:
            assessors.append(user)
        report.passwords[username] = password
    return assessors

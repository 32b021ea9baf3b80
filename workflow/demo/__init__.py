"""The demo of `make demo`: a synthetic collection (generate.py and its parts beside it), the real ARQMath-3 topics
and synthetic runs, loaded through the same jobs as an organizer's uploads (so the Jobs page lists them), their pools
built by the same job as an organizer's build, plus an organizer and assessor accounts, and the judging step
(judging.py: the demo assessors' assignments and judgments). The loader sits above every app it fills."""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password
from django.contrib.auth.models import Group
from django.core.files import File
from django.db import transaction

from core.permissions import ORGANIZERS
from ir.grades import preset
from jobs.models import Job
from jobs.registry import JobParams
from jobs.runner import job_execute
from jobs.store import upload_save
from jobs.tasks import CollectionIngestParams, TopicsIngestParams
from judging.services import assignments_create
from judging.tasks import PoolBuildParams, RunIngestParams
from pooling import services
from pooling.models import Campaign, Collection
from workflow.demo.generate import DemoFiles, generate_demo
from workflow.demo.judging import demo_assign, demo_delete
from workflow.demo.rag_judging import rag_curate, rag_delete

COLLECTION = "MSE demo"
CAMPAIGNS = {
    "answers": "ARQMath-3 Task 1 demo",
    "formulas": "ARQMath-3 Task 2 demo",
}
# Issue 25's campaign of its own scheme: MathOverflow-style topics (preludes, micro-topics), candidates, mo-facets.
MATHOVERFLOW = "Demo MathOverflow"
# A TREC RAG-style campaign: generated answers citing the demo's posts, nugget banks, support judging (docs/nuggets.md).
RAG = "Demo TREC RAG"
ORGANIZER = "organizer"
ASSESSORS = ("assessor1", "assessor2", "assessor3")


@dataclass
class DemoReport:
    lines: list[str] = field(default_factory=list)
    # Each demo account: its password, or None when the demo does not know it (then `unknown` says why).
    passwords: dict[str, str | None] = field(default_factory=dict)
    unknown: dict[str, str] = field(default_factory=dict)

    def say(self, line: str) -> None:
        self.lines.append(line)


def demo_load(*, out_dir: Path, passwords_file: Path, reset: bool = False, seed: int = 2022) -> DemoReport:
    """Loads what is missing of the demo and changes nothing that exists: run again, it leaves every account, password,
    assignment and judgment as it is. The demo's assignments and judgments come once, with the demo campaigns."""
    report = DemoReport()
    if reset:
        _demo_delete()
        report.say("removed the earlier demo campaigns and collection (the accounts and their passwords are kept)")
    assessors = _demo_accounts(report, passwords_file)
    if Collection.objects.filter(name=COLLECTION).exists():
        report.say(f"the demo is already loaded (collection '{COLLECTION}'): nothing changed; "
                   "use --reset to load its campaigns anew")
    else:
        files = generate_demo(out_dir, seed=seed)
        report.say(f"generated the synthetic collection and runs in {out_dir}")
        _demo_ingest(files, report, seed, assessors)
    return report


@transaction.atomic
def _demo_delete() -> None:
    names = [*CAMPAIGNS.values(), MATHOVERFLOW, RAG]
    rag_delete(campaigns=list(Campaign.objects.filter(name__in=names)))
    demo_delete(campaigns=list(Campaign.objects.filter(name__in=names)))
    Campaign.objects.filter(name__in=names).delete()
    Collection.objects.filter(name=COLLECTION).delete()


@transaction.atomic
def _demo_ingest(files: DemoFiles, report: DemoReport, seed: int, assessors: list) -> None:
    """The collection, both campaigns with their pools and (assessor's demo_assign) the demo's assignments and
    judgments, all or nothing: a demo half loaded would never be completed, since a rerun sees the collection.
    Each load and pool build is a job, run here as a job runs without a broker, so that the Jobs page shows what the
    demo did."""
    paths = [files.posts, files.comments, files.formulas]
    result = _demo_job(CollectionIngestParams(collection=COLLECTION, uploads=[_stored(p) for p in paths],
                                              names=[Path(p).name for p in paths]))
    report.say(f"collection '{COLLECTION}': " + ", ".join(f"{n} {k}" for k, n in result["counts"].items()))
    campaigns = {}
    # The Task 1 campaign takes the Task 3 runs too: their answers are pooled and judged among the posts.
    for task, topics, runs in (("answers", files.task1_topics, files.task1_runs + files.task3_runs),
                               ("formulas", files.task2_topics, files.task2_runs)):
        campaign = services.campaign_create(name=CAMPAIGNS[task], task=task, collection_name=COLLECTION, seed=seed)
        campaigns[task] = campaign
        loaded = _demo_job(TopicsIngestParams(upload=_stored(topics), filename=Path(topics).name), campaign=campaign)
        for path, alternate in runs:
            _demo_job(RunIngestParams(upload=_stored(path), filename=Path(path).name, options={"alternate": alternate}),
                      campaign=campaign)
        report.say(f"campaign '{campaign.name}': {loaded['total']} topics, {len(runs)} runs")
        pools = _demo_job(PoolBuildParams(), campaign=campaign)
        if task == "formulas":
            report.say(f"campaign '{campaign.name}': pools built, {pools['items']} visual ids in "
                       f"{len(pools['sizes'])} topics, {pools['selected']} formula instances to judge")
        else:
            report.say(f"campaign '{campaign.name}': pools built, {pools['items']} answers to judge in "
                       f"{len(pools['sizes'])} topics")
    # Only the campaigns made here: the demo never assigns or judges in a campaign that existed before it ran.
    demo_assign(campaigns=campaigns, assessors=assessors, say=report.say)
    _demo_mathoverflow(files, report, seed, assessors)
    _demo_rag(files, report, seed, assessors)


def _demo_mathoverflow(files: DemoFiles, report: DemoReport, seed: int, assessors: list) -> None:
    """The MathOverflow-style campaign: JSONL topics with preludes and micro-topics, the answers their questions cite
    as candidates instead of runs, pooled, judged with the mo-facets scheme; the first demo assessor has every
    micro-topic."""
    campaign = services.campaign_create(name=MATHOVERFLOW, task=Campaign.Task.ANSWERS, collection_name=COLLECTION,
                                        scheme=preset("mo-facets", Campaign.Task.ANSWERS), seed=seed)
    loaded = _demo_job(TopicsIngestParams(upload=_stored(files.mo_topics), filename=Path(files.mo_topics).name),
                       campaign=campaign)
    candidates = services.candidates_ingest(campaign=campaign, path=files.mo_candidates)
    report.say(f"campaign '{campaign.name}': {loaded['total']} micro-topics, {candidates} candidates")
    pools = _demo_job(PoolBuildParams(), campaign=campaign)
    report.say(f"campaign '{campaign.name}': pools built, {pools['items']} answers to judge in "
               f"{len(pools['sizes'])} micro-topics")
    if assessors:
        topic_ids = list(campaign.topics.order_by("position").values_list("topic_id", flat=True))
        created = assignments_create(campaign=campaign, assessors=assessors[:1], topic_ids=topic_ids).created
        report.say(f"campaign '{campaign.name}': {len(created)} micro-topics assigned to {assessors[0].username}")


def _demo_rag(files: DemoFiles, report: DemoReport, seed: int, assessors: list) -> None:
    """The TREC RAG-style campaign: its topic lines and three answer runs through the same jobs as an organizer's
    uploads (every cited post joins the pools), then its banks, support assignments and labels (rag_judging.py)."""
    if files.rag_topics is None:
        return
    campaign = services.campaign_create(name=RAG, task=Campaign.Task.ANSWERS, collection_name=COLLECTION, seed=seed)
    loaded = _demo_job(TopicsIngestParams(upload=_stored(files.rag_topics), filename=Path(files.rag_topics).name),
                       campaign=campaign)
    for path in files.rag_runs:
        _demo_job(RunIngestParams(upload=_stored(path), filename=Path(path).name, options={"alternate": False}),
                  campaign=campaign)
    report.say(f"campaign '{campaign.name}': {loaded['total']} topics, {len(files.rag_runs)} answer runs")
    pools = _demo_job(PoolBuildParams(), campaign=campaign)
    report.say(f"campaign '{campaign.name}': pools built, {pools['items']} cited posts to judge in "
               f"{len(pools['sizes'])} topics")
    organizer = get_user_model().objects.filter(username=ORGANIZER).first()
    rag_curate(campaign=campaign, organizer=organizer, assessors=assessors, seed=seed, say=report.say)


def _stored(path: str | os.PathLike) -> str:
    """One of the demo's files put in the store, as an upload is: its job reads it from there, then deletes it."""
    with open(path, "rb") as file:
        return upload_save(file=File(file, name=Path(path).name))


def _demo_job(params: JobParams, *, campaign: Campaign | None = None) -> dict:
    """Runs one job of the demo in this process (jobs.runner.job_execute, as without a broker) and returns its
    result; a job that fails stops the demo, which is then not loaded at all."""
    job = Job.objects.create(kind=params.kind, params=params.to_json(), campaign=campaign)
    done = job_execute(job_id=job.pk)
    if done is None or done.status != Job.Status.DONE:
        problems = "; ".join(p.get("message", "") for p in (done.problems if done else [])[:5])
        raise RuntimeError(f"the demo's {params.kind} job #{job.pk} failed: {done.message if done else ''} "
                           f"{problems}".strip())
    return done.result


def demo_passwords_read(path: Path) -> dict[str, str]:
    """The passwords load_demo gave the accounts it created: one `username password` a line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    pairs = (line.split() for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2}


def _demo_passwords_write(path: Path, passwords: dict[str, str]) -> None:
    """Readable by the owner only (0600), written whole to a temporary file and renamed over the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        os.fchmod(out.fileno(), 0o600)
        out.write("# The demo accounts load_demo created, and their passwords (username password).\n")
        out.writelines(f"{username} {password}\n" for username, password in passwords.items())
    os.replace(temporary, path)


@transaction.atomic
def _demo_accounts(report: DemoReport, passwords_file: Path) -> list:
    """Creates the demo accounts that are missing, each with a new random password kept in passwords_file; an
    account that exists keeps its password (and its groups) whatever the file says."""
    users = get_user_model()
    known = demo_passwords_read(passwords_file)
    assessors, created = [], False
    for username in (ORGANIZER, *ASSESSORS):
        user = users.objects.filter(username=username).first()
        if user is None:
            password = secrets.token_urlsafe(9)
            user = users.objects.create_user(username=username, password=password)
            if username == ORGANIZER:
                user.groups.add(Group.objects.get_or_create(name=ORGANIZERS)[0])
            known[username] = password
            created = True
            report.passwords[username] = password
        elif username in known and check_password(known[username], user.password):
            report.passwords[username] = known[username]
        else:
            report.passwords[username] = None
            report.unknown[username] = ("changed since load_demo set it" if username in known
                                        else f"the account exists, its password is not in {passwords_file.name}")
        if username != ORGANIZER:
            assessors.append(user)
    if created:
        _demo_passwords_write(passwords_file, known)
    return assessors

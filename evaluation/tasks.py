"""The kinds of job whose work is evaluation's (jobs/registry.py), each handler calling one service: the recompute of
a campaign's stale scores (snapshots.scores_refresh, queued by the pages that find them stale, at most one pending
per campaign) and the planner's judging-order curves (simulation.simulate_campaign)."""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import ClassVar

from django.conf import settings
from django.db import IntegrityError, transaction

from core.errors import ServiceUnavailable
from core.words import counted
from evaluation import simulation, snapshots
from ir.problems import InputError
from jobs.models import Job
from jobs.registry import JobParams, Progress, job_campaign, register
from jobs.runner import job_create
from jobs.tasks import job_execute_task
from pooling.models import Campaign

log = logging.getLogger(__name__)

NICENESS = 10  # the worker computes scores at a lower CPU priority than the web processes serving judging pages
PENDING = (Job.Status.QUEUED, Job.Status.RUNNING)


@dataclass(frozen=True)
class ScoresRefreshParams(JobParams):
    """snapshots.scores_refresh of the job's campaign: nothing more to say."""

    kind: ClassVar[str] = Job.Kind.SCORES_REFRESH


def scores_refresh_request(*, campaign: Campaign) -> bool:
    """Queues the recompute of the campaign's scores unless one is queued or running already (the database keeps at
    most one: job_one_pending_scores_refresh), and returns whether it did. Sent at once, not on commit: the pages
    that ask read outside any transaction, and without a broker the page that asked then reads the new scores. A
    broker that does not answer, or a campaign being deleted, queues nothing: the page shows the last scores."""
    jobs = Job.objects.filter(campaign=campaign, kind=Job.Kind.SCORES_REFRESH)
    if jobs.filter(status__in=PENDING).exists():
        return False
    try:
        with transaction.atomic():
            jobs.exclude(status__in=PENDING).delete()  # the scores are in the snapshots: its finished jobs are not
            job_create(params=ScoresRefreshParams(), campaign=campaign, at_once=True)
    except IntegrityError:  # another page queued it meanwhile
        return False
    except (ServiceUnavailable, InputError) as exc:
        log.warning("the scores of campaign %s were not sent to be recomputed: %s", campaign.pk, exc)
        return False
    return True


def _scores_refresh(job: Job, p: ScoresRefreshParams, progress: Progress) -> tuple[dict, list[str]]:
    run = job_execute_task.request  # a worker's delivery has an id; a call in this process (no broker) is eager or none
    if run.id and not run.is_eager and os.getpriority(os.PRIO_PROCESS, 0) < NICENESS:
        os.setpriority(os.PRIO_PROCESS, 0, NICENESS)  # once per worker process; never the web process's own
    return {"computed": snapshots.scores_refresh(campaign_pk=job_campaign(job).pk)}, []


def _scores_refresh_summary(job: Job) -> str:
    return f"Recomputed {counted(job.result.get('computed', 0), 'score table')}."


def _scores_queue() -> str | None:
    return settings.CELERY_SCORES_QUEUE or None


@dataclass(frozen=True)
class JudgingSimulationParams(JobParams):
    """simulation.simulate_campaign of the job's campaign: an earlier edition's qrels (topic -> item -> grade, read
    from the file `filename` by the planner's page) and the replay's settings."""

    kind: ClassVar[str] = Job.Kind.JUDGING_SIMULATION
    qrels: dict[str, dict[str, int]]
    filename: str
    depth: int
    policies: list[str] = field(default_factory=list)
    warm_up: int = 0
    min_depth: int = 0
    budget: int | None = None
    seed: int = 0

    def replay(self) -> dict:
        """The replay's settings, as the planner's form names them."""
        return {"depth": self.depth, "warm_up": self.warm_up, "min_depth": self.min_depth, "budget": self.budget,
                "policies": list(self.policies), "seed": self.seed}


def _judging_simulation(job: Job, p: JudgingSimulationParams, progress: Progress) -> tuple[dict, list[str]]:
    results = simulation.simulate_campaign(campaign=job_campaign(job), qrels=p.qrels, **p.replay())
    return {"results": [
        {"policy": r.policy, "curve": r.curve, "judged_for_90": r.judged_for_90, "tau_at_budget": r.tau_at_budget,
         "topics": len(r.orders), "pool": sum(len(order) for order in r.orders.values())} for r in results]}, []


def _judging_simulation_summary(job: Job) -> str:
    return (f"Replayed {counted(len(job.result.get('results', [])), 'judging order')} on "
            f"{job.params.get('filename', 'the qrels')}.")


register(ScoresRefreshParams, _scores_refresh, summary=_scores_refresh_summary, listed=False, queue=_scores_queue)
register(JudgingSimulationParams, _judging_simulation, summary=_judging_simulation_summary)

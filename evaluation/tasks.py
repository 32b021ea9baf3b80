"""The kinds of job whose work is evaluation's (jobs/registry.py), each handler calling one service: the recompute of
a campaign's stale scores (snapshots.scores_refresh, queued by the pages that find them stale, at most one pending
per campaign) and the planner's judging-order curves (simulation.simulate_campaign)."""
from __future__ import annotations

import os

from django.conf import settings

from core.words import counted
from evaluation import snapshots
from evaluation.snapshots import ScoresRefreshParams
from jobs.models import Job
from jobs.registry import Progress, job_campaign, register
from jobs.runner import job_execute_task

NICENESS = 10  # the worker computes scores at a lower CPU priority than the web processes serving judging pages
def _scores_refresh(job: Job, p: ScoresRefreshParams, progress: Progress) -> tuple[dict, list[str]]:
    run = job_execute_task.request  # a worker's delivery has an id; a call in this process (no broker) is eager or none
    if run.id and not run.is_eager and os.getpriority(os.PRIO_PROCESS, 0) < NICENESS:
        os.setpriority(os.PRIO_PROCESS, 0, NICENESS)  # once per worker process; never the web process's own
    return {"computed": snapshots.scores_refresh(campaign_pk=job_campaign(job).pk)}, []


def _scores_refresh_summary(job: Job) -> str:
    return f"Recomputed {counted(job.result.get('computed', 0), 'score table')}."


def _scores_queue() -> str | None:
    return settings.CELERY_SCORES_QUEUE or None


register(ScoresRefreshParams, _scores_refresh, summary=_scores_refresh_summary, listed=False, queue=_scores_queue)

"""The scores' recompute, in the background beside judging (evaluation/snapshots.py)."""
from __future__ import annotations

import os

from celery import shared_task
from django.conf import settings

from . import snapshots

NICENESS = 10  # the worker computes scores at a lower CPU priority than the web processes serving judging pages


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def scores_refresh_task(campaign_pk: int) -> int:
    if not scores_refresh_task.request.is_eager and os.getpriority(os.PRIO_PROCESS, 0) < NICENESS:
        os.setpriority(os.PRIO_PROCESS, 0, NICENESS)  # once per worker process; never the web process's own
    return snapshots.scores_refresh(campaign_pk=campaign_pk)


def scores_refresh_enqueue(campaign_pk: int) -> None:
    """Sends the campaign's recompute to the scores queue (the default one unless CELERY_SCORES_QUEUE names
    another, served by a worker of its own). Sent at once, not on commit: the claim it follows is already
    committed, and without a broker the page that asked then reads the new scores."""
    scores_refresh_task.apply_async((campaign_pk,), queue=settings.CELERY_SCORES_QUEUE or None)

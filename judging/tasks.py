"""Celery tasks of the judging app: each takes primary keys and calls one service."""
from celery import shared_task

from judging.services.judging_cache import judging_cache_warm


@shared_task(acks_late=True)
def judging_cache_warm_task(assignment_pks: list[int]) -> int:
    return judging_cache_warm(assignment_pks=assignment_pks)

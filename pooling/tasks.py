"""Celery tasks: each takes a primary key and runs one job."""
from celery import shared_task

from .jobs import job_execute


@shared_task(acks_late=True)
def job_execute_task(job_id: int) -> str:
    return job_execute(job_id=job_id).status

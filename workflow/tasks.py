"""Celery tasks: each takes a primary key and runs one job. A worker also sweeps for jobs whose worker died."""
import logging
import threading

from celery import shared_task
from celery.signals import worker_ready, worker_shutting_down
from django.conf import settings
from django.db import connection

from workflow.jobs import job_execute, job_sweep

log = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True)
def job_execute_task(self, job_id: int) -> str:
    # In a worker the job beats; run in the request (no broker), the request's own end is the job's end.
    job = job_execute(job_id=job_id, heartbeat=not self.request.is_eager)
    return job.status if job else "gone"


_sweeping = threading.Event()


@worker_ready.connect
def _sweep_while_running(**kwargs) -> None:
    """Every worker sweeps once at start-up (a restarted worker takes back what its predecessor was running) and then
    every JOB_SWEEP_SECONDS, so that a job lost by one worker is taken by another within a minute or two. A thread,
    because the deployment runs no Celery beat; two workers sweeping at once skip each other's locked rows."""

    def loop() -> None:
        while True:
            try:
                job_sweep()
            except Exception:  # the database may be away for a moment: sweep again later
                log.exception("job sweep")
            finally:
                connection.close()
            if _sweeping.wait(settings.JOB_SWEEP_SECONDS):
                return

    threading.Thread(target=loop, name="job-sweep", daemon=True).start()


@worker_shutting_down.connect
def _stop_sweeping(**kwargs) -> None:
    _sweeping.set()

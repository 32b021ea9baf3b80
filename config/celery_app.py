"""The Celery application. With no REDIS_URL set, tasks run in-process (see settings).

Like config/wsgi.py, it falls back to the production settings, never to the development ones: a worker started
without DJANGO_SETTINGS_MODULE (the image sets it; a shell may not) then refuses to start without SECRET_KEY instead
of running with DEBUG and a known key. A development worker says so: DJANGO_SETTINGS_MODULE=config.settings.local.

Every worker sweeps the jobs on its own timer (JobSweep): no Celery beat to deploy (docs/deploy.md, "Jobs and
workers").
"""
import logging
import os

from celery import Celery, bootsteps

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

log = logging.getLogger(__name__)

app = Celery("assess")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _sweep() -> None:
    """One sweep (jobs.runner.jobs_sweep), which must never stop the worker: a broker or database that does not
    answer is logged and the next sweep tries again."""
    from django.db import connection

    from jobs.runner import jobs_sweep

    try:
        jobs_sweep()
    except Exception:  # the broker or the database away: the worker goes on, and reconnects
        log.warning("job sweep failed; the next one tries again", exc_info=True)
    finally:
        # Closed between sweeps: the worker's main process forks the pool's children, which must not share it.
        connection.close()


class JobSweep(bootsteps.StartStopStep):
    """Calls the sweep every JOB_SWEEP_EVERY seconds on the worker's timer (between tasks in a solo pool, whose
    other workers sweep meanwhile)."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, parent, **kwargs) -> None:
        super().__init__(parent, **kwargs)
        self.tref = None

    def start(self, parent) -> None:
        from django.conf import settings

        self.tref = parent.timer.call_repeatedly(settings.JOB_SWEEP_EVERY, _sweep)

    def stop(self, parent) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None


app.steps["worker"].add(JobSweep)

"""The job queue: create a job (sent to the workers when the transaction commits), run it once, retry it.

Built on Celery's own redelivery. The task is acknowledged late, so the message of a job whose worker dies is handed
out again: at once when a prefork child dies (task_reject_on_worker_lost), otherwise by Redis once the message has
been out for the broker's visibility timeout (CELERY_VISIBILITY_TIMEOUT). Whether the job's worker is still alive
the database says: while a worker runs a job it holds the job's advisory lock on its connection, and PostgreSQL
drops that lock when the connection ends (Job.stale). So a message delivered again runs its job only when nobody
holds it, and `attempts` fails a job that stopped its worker JOB_MAX_ATTEMPTS times, with the reason; the job page
offers Retry. The service's transaction dies with its worker, so nothing is half-written.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from celery import shared_task
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.utils import timezone

from ir.problems import InputError
from pooling import services
from pooling.models import JOB_LOCK, Campaign, Job
from workflow import job_pages
from workflow.job_handlers import HANDLERS
from workflow.job_params import JobParams, params_of
from workflow.store import uploads_delete

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def job_execute_task(job_id: int) -> str:
    job = job_execute(job_id=job_id)
    return job.status if job else "gone"


def _send(job: Job) -> None:
    transaction.on_commit(lambda: job_execute_task.delay(job.pk))


def job_create(*, params: JobParams, user=None, campaign=None, collection=None) -> Job:
    """Creates a queued job of the params' kind and sends it to the workers once the current transaction commits.
    Refused (InputError) on a campaign being deleted: nothing new starts on it."""
    if (campaign is not None and params.kind != Job.Kind.CAMPAIGN_DELETE
            and Campaign.objects.filter(pk=campaign.pk, deleting=True).exists()):
        raise services.campaign_deleting_error(campaign)
    job = Job.objects.create(kind=params.kind, params=params.to_json(),
                             created_by=user if user and user.is_authenticated else None,
                             campaign=campaign, collection=collection)
    _send(job)
    return job


@transaction.atomic
def job_retry(*, job: Job) -> Job:
    """Queues a failed job (not a rejected input) or a running job whose worker stopped, once more."""
    job = Job.objects.select_for_update().get(pk=job.pk)
    if not job.retryable:
        raise InputError(job_pages.retry_refusal(job=job))
    job.status, job.attempts, job.progress, job.result, job.warnings = Job.Status.QUEUED, 0, 0.0, {}, []
    job.finished_at, job.message, job.cancel_requested = None, "queued again (retry)", False
    job.save(update_fields=["status", "attempts", "progress", "result", "warnings", "finished_at", "message",
                            "cancel_requested"])
    _send(job)
    return job


# The kinds of job whose service stops between batches when asked (and keeps what it wrote).
CANCELLABLE = frozenset({Job.Kind.LLM_JUDGE})


@transaction.atomic
def job_cancel(*, job: Job) -> Job:
    """Cancels a queued job at once, or asks a running one to stop between two batches (it then ends `cancelled`,
    keeping what it stored); refused (InputError) for a finished job or a kind that cannot stop halfway."""
    job = Job.objects.select_for_update().get(pk=job.pk)
    if job.kind not in CANCELLABLE:
        raise InputError(f"a {job.get_kind_display()} job cannot be cancelled: it writes all or nothing")
    if job.finished:
        raise InputError(f"job #{job.pk} is {job.status}: only a queued or running job is cancelled")
    if job.status == Job.Status.QUEUED:
        job.status, job.finished_at, job.message = Job.Status.CANCELLED, timezone.now(), "cancelled before it started"
    else:
        job.message = "cancelling: it stops after the batch it is judging"
    job.cancel_requested = True
    job.save(update_fields=["status", "finished_at", "message", "cancel_requested"])
    return job


def _hold(job_id: int) -> bool:
    """Takes the job's advisory lock for this connection's session; False if another worker holds it (running the
    job). Without advisory locks (SQLite: no broker, the job runs inside the request) there is nobody to exclude."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [JOB_LOCK, job_id])
        return cursor.fetchone()[0]


def _release(job_id: int) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [JOB_LOCK, job_id])


@transaction.atomic
def _claim(job_id: int) -> Job | None:
    """Marks the job running, once more; None if it is not to be run (finished, gone, or failed now because its
    worker stopped on each of its runs). The caller holds the job's lock, so a job found running lost its worker."""
    job = Job.objects.select_for_update().filter(pk=job_id).first()
    if job is None or job.finished:
        return None
    if job.status == Job.Status.RUNNING and job.attempts >= settings.JOB_MAX_ATTEMPTS:
        job.status, job.message = Job.Status.FAILED, job_pages.worker_lost_reason(job=job)
        job.finished_at = timezone.now()
        job.save(update_fields=["status", "message", "finished_at"])
        log.warning("job %s failed: %s", job.pk, job.message)
        return None
    if job.status == Job.Status.RUNNING:
        log.warning("job %s lost its worker: run again", job.pk)
    job.status, job.started_at, job.attempts = Job.Status.RUNNING, timezone.now(), job.attempts + 1
    if job.attempts > 1:
        job.message = job_pages.attempt_message(job=job, attempts=settings.JOB_MAX_ATTEMPTS)
    job.save(update_fields=["status", "started_at", "attempts", "message"])
    return job


@contextmanager
def _progress(job: Job) -> Iterator[Callable[[float], None]]:
    """Writes the job's progress to its row on a second connection, in autocommit: the job's own connection is inside
    the service's transaction, which nobody sees before it commits. Not on SQLite, whose single writer is that
    transaction: there the row has the progress when the job ends."""
    if connection.vendor == "sqlite":
        def nothing(fraction: float, text: str = "") -> None:
            return None

        yield nothing
        return
    own = connections.create_connection(DEFAULT_DB_ALIAS)  # not shared: closed below
    last = 0.0

    def report(fraction: float, text: str = "") -> None:
        """`text`: what the job page says beside the bar while the job runs (an LLM run's count), else nothing."""
        nonlocal last
        if fraction - last < 0.01 and fraction < 1.0:  # one write per percent is plenty for a progress bar
            return
        last = fraction
        try:
            with own.cursor() as cursor:
                said, values = (", message = %s", [text]) if text else ("", [])
                cursor.execute(f"UPDATE {Job._meta.db_table} SET progress = %s{said} WHERE id = %s AND attempts = %s",
                               [round(fraction, 3), *values, job.pk, job.attempts])
        except Exception:  # only the progress bar: it must not fail (roll back) the job
            log.warning("progress of job %s not stored", job.pk, exc_info=True)

    try:
        yield report
    finally:
        own.close()


def job_execute(*, job_id: int) -> Job | None:
    """Runs a queued job, or again a running one whose worker stopped; a message for a job that another worker is
    running, or that is finished, does nothing."""
    if not _hold(job_id):
        return Job.objects.filter(pk=job_id).first()
    try:
        job = _claim(job_id)
        if job is None:
            return Job.objects.filter(pk=job_id).first()
        with _progress(job) as progress:
            try:
                job.result, job.warnings = HANDLERS[job.kind](job, params_of(job), progress)
            except InputError as exc:
                job.status, job.problems = Job.Status.FAILED, exc.as_dicts()
                job.message = job_pages.rejected_message(exc)
            except Exception as exc:  # a bug or a lost database: the organizer must see that the job did not finish
                log.exception("job %s failed", job.pk)
                job.status, job.message = Job.Status.FAILED, job_pages.internal_error_message(exc)
            else:
                if job.result.get("cancelled"):  # it stopped between batches when asked, keeping what it wrote
                    job.status = Job.Status.CANCELLED
                    job.progress = Job.objects.values_list("progress", flat=True).get(pk=job.pk)
                elif job.result.get("all_failed"):  # an LLM run whose every request failed: not "done"
                    job.status = Job.Status.FAILED
                else:
                    job.status, job.progress = Job.Status.DONE, 1.0
                job.message = job_pages.job_summary(job=job)
        # Only the run that is still current writes its outcome (a worker whose connection was lost, and that was
        # replaced meanwhile, does not).
        written = Job.objects.filter(pk=job.pk, attempts=job.attempts).update(
            status=job.status, problems=job.problems, message=job.message, progress=job.progress, result=job.result,
            warnings=job.warnings, finished_at=timezone.now())
        # Once done or rejected, nobody reads the job's files again (a job that failed otherwise may be retried).
        if written and (job.status == Job.Status.DONE or job.problems):
            uploads_delete(params_of(job).uploads_stored())
        return Job.objects.get(pk=job.pk)
    finally:
        _release(job_id)

"""The job runner: create a job (sent to the workers when the transaction commits), run it once through its kind's
handler (jobs/registry.py), retry or cancel it, and the workers' sweep that sends again a job whose message is lost.

Built on Celery's own redelivery, and on the Job row. The task is acknowledged late, so the message of a job whose
prefork child dies is handed out again at once (task_reject_on_worker_lost). Whether the job's worker is still alive
the database says: while a worker runs a job it holds the job's advisory lock on its connection (PostgreSQL drops it
when the connection ends) and beats on the job's row every JOB_HEARTBEAT_EVERY seconds (Job.stale). Every worker
sweeps every JOB_SWEEP_EVERY seconds (jobs_sweep, config/celery_app.py): a queued job whose message the broker no
longer holds (Redis restarted empty, a send that failed after the commit) and a running job whose worker is lost are
sent again, so no Celery beat is needed. A message delivered again runs its job only when nobody holds it, under a
claim token of its own (only that run writes the job's progress, beat and outcome), and `attempts` fails a job that
stopped its worker JOB_MAX_ATTEMPTS times, with the reason; the job page offers Retry. The service's transaction
dies with its worker, so nothing is half-written. docs/deploy.md, "Jobs and workers".
"""
from __future__ import annotations

import base64
import json
import logging
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from core.errors import ServiceUnavailable
from ir.problems import InputError
from jobs import pages as job_pages
from jobs.models import JOB_LOCK, Job
from jobs.registry import JobParams, kind_of, params_of, queues
from jobs.store import uploads_delete
from pooling import services
from pooling.models import Campaign

log = logging.getLogger(__name__)


# The name it had in workflow/jobs.py: messages already queued, and workers of the version before, keep finding it.
@shared_task(name="workflow.jobs.job_execute_task", acks_late=True, reject_on_worker_lost=True)
def job_execute_task(job_id: int) -> str:
    job = job_execute(job_id=job_id)
    return job.status if job else "gone"


def _broker_check() -> None:
    """Refuses (ServiceUnavailable: a 503; the caller's transaction rolls back whatever it made for the job) when the
    broker does not answer, before the job's row is written. Should the broker go away between this
    check and the send after the commit, the job stays queued and the workers' sweep sends it again."""
    if job_execute_task.app.conf.task_always_eager:
        return
    try:
        with job_execute_task.app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=1, interval_start=0, interval_step=0.2, timeout=2)
    except (BrokerError, OSError) as exc:
        log.warning("the job queue's broker does not answer: %s", exc)
        raise ServiceUnavailable("the job queue (Redis) does not answer, so the job was not queued and nothing was "
                                 "saved; send it again in a minute") from exc


def _publish(job_id: int, kind: str) -> None:
    try:
        job_execute_task.apply_async((job_id,), queue=kind_of(kind).queue())
    except BrokerError:  # committed: the sweep sends it again once the broker answers (jobs_sweep)
        log.warning("job %s not sent to the workers: the sweep sends it again", job_id, exc_info=True)


def _send(job: Job) -> None:
    transaction.on_commit(lambda: _publish(job.pk, job.kind))


def job_create(*, params: JobParams, user=None, campaign=None, collection=None, at_once: bool = False) -> Job:
    """Creates a queued job of the params' kind and sends it to the workers once the current transaction commits
    (`at_once`: now, for a caller outside any transaction whose row is committed already, so that without a broker
    the job has run when this returns). Refused (InputError) on a campaign being deleted: nothing new starts on it;
    refused (ServiceUnavailable, so that the caller's transaction rolls back) when the broker does not answer."""
    kind = kind_of(params.kind)
    if (campaign is not None and not kind.while_deleting
            and Campaign.objects.filter(pk=campaign.pk, deleting=True).exists()):
        raise services.campaign_deleting_error(campaign)
    try:
        _broker_check()
    except ServiceUnavailable:
        uploads_delete(params.uploads_stored())  # stored for this job, which will not be
        raise
    job = Job.objects.create(kind=params.kind, params=params.to_json(),
                             created_by=user if user and user.is_authenticated else None,
                             campaign=campaign, collection=collection, sent_at=timezone.now())
    if at_once:
        _publish(job.pk, job.kind)
    else:
        _send(job)
    return job


PENDING = (Job.Status.QUEUED, Job.Status.RUNNING)


def job_request_once(*, params: JobParams, campaign: Campaign) -> bool:
    """Queues a campaign's job of the params' kind unless one is queued or running already, and returns whether it
    did: a recompute whose result lives where the pages read it (the scores' snapshots, the LLM's calibrations),
    asked for by every page that finds it stale. The database keeps at most one pending per campaign and kind (a
    unique constraint: two pages at once queue one); the kind's finished jobs are deleted, their result being kept
    elsewhere. Sent at once, not on commit: the pages that ask read outside any transaction, and without a broker
    the page that asked then reads the new result. A broker that does not answer, or a campaign being deleted,
    queues nothing (a warning in the log): the page shows the last result."""
    jobs = Job.objects.filter(campaign=campaign, kind=params.kind)
    if jobs.filter(status__in=PENDING).exists():
        return False
    try:
        with transaction.atomic():
            jobs.exclude(status__in=PENDING).delete()
            job_create(params=params, campaign=campaign, at_once=True)
    except IntegrityError:  # another page queued it meanwhile
        return False
    except (ServiceUnavailable, InputError) as exc:
        log.warning("the %s job of campaign %s was not queued: %s", params.kind, campaign.pk, exc)
        return False
    return True


@transaction.atomic
def job_retry(*, job: Job) -> Job:
    """Queues once more (sends again) a queued job, a failed job (not a rejected input) or a running job whose worker
    stopped."""
    job = Job.objects.select_for_update().get(pk=job.pk)
    if not job.retryable:
        raise InputError(job_pages.retry_refusal(job=job))
    _broker_check()
    job.status, job.attempts, job.progress, job.result, job.warnings = Job.Status.QUEUED, 0, 0.0, {}, []
    job.finished_at, job.message, job.cancel_requested = None, "queued again (retry)", False
    job.claim, job.sent_at = "", timezone.now()  # a run of the job still going on somewhere writes nothing more
    job.save(update_fields=["status", "attempts", "progress", "result", "warnings", "finished_at", "message",
                            "cancel_requested", "claim", "sent_at"])
    _send(job)
    return job


@transaction.atomic
def job_cancel(*, job: Job) -> Job:
    """Cancels a queued job of any kind at once (its kind's `on_cancel` first: a campaign delete that has not begun
    deleting gives the campaign back), or asks a running job of a cancellable kind (LLM judging) to stop between two
    batches (it then ends `cancelled`, keeping what it stored); refused (InputError) for a finished job, another
    running one, and what `on_cancel` refuses (a campaign delete that began)."""
    job = Job.objects.select_for_update().get(pk=job.pk)
    if job.finished:
        raise InputError(f"job #{job.pk} is {job.status}: only a queued or running job is cancelled")
    kind = kind_of(job.kind)
    if job.status == Job.Status.RUNNING and not kind.cancellable:
        raise InputError(f"a running {job.get_kind_display()} job cannot be cancelled: it writes all or nothing")
    message = kind.on_cancel(job) if kind.on_cancel is not None else "cancelled before it started"
    if job.status == Job.Status.QUEUED:
        job.status, job.finished_at, job.message = Job.Status.CANCELLED, timezone.now(), message
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
    """Marks the job running under a new claim token, once more; None if it is not to be run (finished, gone, or
    failed now because its worker stopped on each of its runs). The caller holds the job's lock, so a job found
    running lost its worker: the page then says so."""
    job = Job.objects.select_for_update().filter(pk=job_id).first()
    if job is None or job.finished:
        return None
    if job.status == Job.Status.RUNNING and job.attempts >= settings.JOB_MAX_ATTEMPTS:
        job.status, job.message = Job.Status.FAILED, job_pages.worker_lost_reason(job=job)
        job.finished_at, job.claim = timezone.now(), ""
        job.save(update_fields=["status", "message", "finished_at", "claim"])
        log.warning("job %s failed: %s", job.pk, job.message)
        return None
    lost_beat = (job.heartbeat_at or job.started_at) if job.status == Job.Status.RUNNING else None
    job.status, job.attempts, job.claim = Job.Status.RUNNING, job.attempts + 1, uuid.uuid4().hex
    if job.attempts > 1:
        log.warning("job %s lost its worker: run again", job.pk)
        job.message = job_pages.attempt_message(job=job, attempts=settings.JOB_MAX_ATTEMPTS, last_beat=lost_beat)
    job.started_at = job.heartbeat_at = timezone.now()
    job.save(update_fields=["status", "started_at", "attempts", "message", "claim", "heartbeat_at"])
    return job


@contextmanager
def _heartbeat(job: Job) -> Iterator[None]:
    """Beats on the job's row every JOB_HEARTBEAT_EVERY seconds while the job runs, from a thread with a connection of
    its own, in autocommit, under the run's claim (a run that was replaced beats no more). Not on SQLite, where the
    job runs inside the request."""
    if connection.vendor == "sqlite":
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        own = connections.create_connection(DEFAULT_DB_ALIAS)  # made in this thread, closed below
        try:
            while not stop.wait(settings.JOB_HEARTBEAT_EVERY):
                try:
                    with own.cursor() as cursor:
                        cursor.execute(f"UPDATE {Job._meta.db_table} SET heartbeat_at = %s WHERE id = %s AND "
                                       "claim = %s", [timezone.now(), job.pk, job.claim])
                except Exception:  # a beat missed: the next one may get through; the sweep waits JOB_STALE_AFTER
                    log.warning("heartbeat of job %s not stored", job.pk, exc_info=True)
        finally:
            own.close()

    thread = threading.Thread(target=beat, name=f"job-{job.pk}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=30)


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
                cursor.execute(f"UPDATE {Job._meta.db_table} SET progress = %s{said} WHERE id = %s AND claim = %s",
                               [round(fraction, 3), *values, job.pk, job.claim])
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
        with _heartbeat(job), _progress(job) as progress:
            try:
                job.result, job.warnings = kind_of(job.kind).handler(job, params_of(job), progress)
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
                elif job.result.get("all_failed"):  # every item failed (an LLM run's requests): not "done"
                    job.status = Job.Status.FAILED
                else:
                    job.status, job.progress = Job.Status.DONE, 1.0
                job.message = job_pages.job_summary(job=job)
        # Only the run that holds the claim writes its outcome (a worker whose connection was lost, and that was
        # replaced or retried meanwhile, does not).
        written = Job.objects.filter(pk=job.pk, claim=job.claim).update(
            status=job.status, problems=job.problems, message=job.message, progress=job.progress, result=job.result,
            warnings=job.warnings, finished_at=timezone.now())
        # Once done or rejected, nobody reads the job's files again (a job that failed otherwise may be retried).
        if written and (job.status == Job.Status.DONE or job.problems):
            uploads_delete(params_of(job).uploads_stored())
        return Job.objects.get(pk=job.pk)
    finally:
        _release(job_id)


def _broker_jobs() -> tuple[set[int], set[int]]:
    """The ids of the jobs whose message waits in the broker's queue, and of those delivered to a worker and not yet
    acknowledged (Redis: the lists of the queues jobs are sent to and kombu's `unacked` hash)."""
    app = job_execute_task.app
    names = {app.conf.task_default_queue} | queues()

    def job_of(message: dict) -> int | None:
        if message.get("headers", {}).get("task") != job_execute_task.name:
            return None
        args = json.loads(base64.b64decode(message["body"]))[0]
        return int(args[0]) if args else None

    with app.connection_for_read() as broker:
        broker.ensure_connection(max_retries=1, interval_start=0, interval_step=0.2, timeout=2)
        channel = broker.default_channel
        client = channel.client
        waiting = {job_of(json.loads(raw)) for queue in sorted(names) for raw in client.lrange(queue, 0, -1)}
        unacked = {job_of(json.loads(raw)[0]) for raw in client.hvals(channel.unacked_key)}
    return {j for j in waiting if j is not None}, {j for j in unacked if j is not None}


def jobs_sweep() -> list[int]:
    """Sends again every job whose message is lost, and returns their ids: a queued job sent more than
    JOB_RESEND_AFTER seconds ago whose message is neither waiting in the broker nor out to a worker, and a running
    job whose worker is lost (Job.stale) with no message waiting for it. Run by every worker every JOB_SWEEP_EVERY
    seconds; two sweeps at once send a job once (the first to move its `sent_at`), and a message sent twice runs
    its job once (job_execute)."""
    if job_execute_task.app.conf.task_always_eager:
        return []
    waiting, unacked = _broker_jobs()
    held = waiting | unacked
    now = timezone.now()
    due = now - timedelta(seconds=settings.JOB_RESEND_AFTER)
    sent = []
    for job in Job.objects.filter(status__in=[Job.Status.QUEUED, Job.Status.RUNNING]).order_by("pk"):
        if job.status == Job.Status.QUEUED:
            lost = (job.sent_at or job.created_at) < due and job.pk not in held
        else:
            lost = job.pk not in waiting and job.stale
        if lost and Job.objects.filter(pk=job.pk, sent_at=job.sent_at).update(sent_at=now):
            log.warning("job %s (%s) has no message in the broker: sent again", job.pk, job.status)
            job_execute_task.apply_async((job.pk,), queue=kind_of(job.kind).queue())
            sent.append(job.pk)
    return sent

"""Background jobs: create one (enqueued when the transaction commits), run it, read its live progress and what it did.

A job runs one service. Its status is written outside the service's transaction; its progress goes to
the cache, because the service's own writes are invisible to other connections until it commits.

A worker can die mid-job (kill -9, out of memory, a lost machine). The service's transaction then dies with it, so
nothing is half-written, but the job row would say "running" forever. So a running job has a heartbeat, written by
a thread of its worker on a connection of its own; a job whose heartbeat is older than JOB_STALE_SECONDS has lost
its worker. Every worker sweeps for such jobs when it starts and every JOB_SWEEP_SECONDS (job_sweep): each is
queued again, up to JOB_MAX_ATTEMPTS claims, then failed with the reason; the job page offers Retry (job_retry).
The claim (job_claim) locks the row, so a message delivered twice still runs the job once.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection, transaction
from django.db.models import Q
from django.utils import timezone

from assessor import services as assessor_services
from ir.problems import InputError
from pooling import services
from pooling.models import Campaign, Job
from workflow.job_params import (
    CampaignDeleteParams,
    CollectionIngestParams,
    JobParams,
    PoolBuildParams,
    RunIngestParams,
    TopicsIngestParams,
    params_of,
)

log = logging.getLogger(__name__)


def _progress_key(job_id: int) -> str:
    return f"job-progress:{job_id}"


def _enqueue(job: Job) -> None:
    from workflow.tasks import job_execute_task  # tasks import this module

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
    _enqueue(job)
    return job


def job_progress(*, job: Job) -> float:
    if job.status == Job.Status.RUNNING:
        return cache.get(_progress_key(job.pk), job.progress)
    return 1.0 if job.status == Job.Status.DONE else job.progress


# -- the heartbeat and the worker's death


# A job run inside the web request (no broker: the demo, on SQLite) has no heartbeat: SQLite's single writer is busy
# with the job's own transaction. It is taken for lost only after an hour, longer than any request may last.
IN_REQUEST = "request:"
IN_REQUEST_STALE_SECONDS = 3600


def _stale_before(seconds: float | None = None) -> datetime:
    return timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS if seconds is None else seconds)


def _last_heard(job: Job) -> datetime:
    return job.heartbeat_at or job.started_at or job.created_at


def job_stale(*, job: Job) -> bool:
    """Whether a running job has lost its worker: no heartbeat for JOB_STALE_SECONDS."""
    if job.status != Job.Status.RUNNING:
        return False
    in_request = job.worker.startswith(IN_REQUEST)
    return _last_heard(job) < _stale_before(IN_REQUEST_STALE_SECONDS if in_request else None)


def job_retryable(*, job: Job) -> bool:
    """A job that stopped for a reason other than its input: a lost worker or an internal error. A rejected input
    (job.problems) would be rejected again, so it is uploaded anew instead."""
    return job_stale(job=job) or (job.status == Job.Status.FAILED and not job.problems)


def _heard(moment: datetime) -> str:
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M:%S %Z}"


def job_sweep() -> list[int]:
    """Queues again every running job whose worker stopped, or fails it once it has used JOB_MAX_ATTEMPTS claims.
    Returns the ids of the jobs it changed. Each worker runs it when it starts and then every JOB_SWEEP_SECONDS."""
    changed = []
    candidates = (Job.objects.filter(status=Job.Status.RUNNING)
                  .filter(Q(heartbeat_at__lt=_stale_before())
                          | Q(heartbeat_at__isnull=True, started_at__lt=_stale_before()))
                  .values_list("pk", flat=True))
    for pk in list(candidates):
        with transaction.atomic():
            job = Job.objects.select_for_update(skip_locked=True).filter(pk=pk).first()
            if job is None or not job_stale(job=job):  # taken meanwhile, or its worker came back
                continue
            heard = _heard(_last_heard(job))
            if job.attempts >= settings.JOB_MAX_ATTEMPTS:
                _fail(job, f"its worker stopped {job.attempts} time{'s' if job.attempts != 1 else ''} while running "
                           f"it (last heard from at {heard}); nothing was written. Retry once the cause (memory, "
                           "disk, a restart) is dealt with")
            else:
                job.status, job.worker, job.heartbeat_at = Job.Status.QUEUED, "", None
                job.message = f"its worker stopped (last heard from at {heard}); queued again, nothing was written"
                job.save(update_fields=["status", "worker", "heartbeat_at", "message"])
                _enqueue(job)
            log.warning("job %s lost its worker: %s", job.pk, job.message)
            changed.append(job.pk)
    return changed


def _fail(job: Job, reason: str) -> None:
    job.status, job.message, job.worker, job.finished_at = Job.Status.FAILED, reason, "", timezone.now()
    job.save(update_fields=["status", "message", "worker", "finished_at"])


@transaction.atomic
def job_retry(*, job: Job) -> Job:
    """Queues a failed job (not a rejected input) or a running job whose worker stopped, once more."""
    job = Job.objects.select_for_update().get(pk=job.pk)
    if not job_retryable(job=job):
        if job.problems:
            raise InputError(f"job #{job.pk} was rejected for its input: it would be rejected again; upload a "
                             "corrected file instead")
        raise InputError(f"job #{job.pk} is {job.status}: only a failed job or one whose worker stopped is retried")
    job.status, job.attempts, job.worker, job.heartbeat_at = Job.Status.QUEUED, 0, "", None
    job.progress, job.result, job.warnings, job.finished_at = 0.0, {}, [], None
    job.message = "queued again (retry)"
    job.save(update_fields=["status", "attempts", "worker", "heartbeat_at", "progress", "result", "warnings",
                            "finished_at", "message"])
    _enqueue(job)
    return job


def job_claim(*, job_id: int, worker: str) -> Job | None:
    """Takes a queued job, or a running one whose worker stopped, for `worker`; None if it is not to be run here
    (finished, running elsewhere, or gone). The row lock makes two deliveries of one message run it once."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).first()
        if job is None or not (job.status == Job.Status.QUEUED or job_stale(job=job)):
            return None
        if job.attempts >= settings.JOB_MAX_ATTEMPTS:
            _fail(job, f"its worker stopped {job.attempts} times while running it; nothing was written. Retry once "
                       "the cause (memory, disk, a restart) is dealt with")
            return None
        now = timezone.now()
        job.status, job.worker, job.started_at, job.heartbeat_at = Job.Status.RUNNING, worker, now, now
        job.attempts += 1
        if job.attempts > 1:
            job.message = f"attempt {job.attempts} of {settings.JOB_MAX_ATTEMPTS}: an earlier worker stopped"
        job.save(update_fields=["status", "worker", "started_at", "heartbeat_at", "attempts", "message"])
        return job


class _Heartbeat(threading.Thread):
    """Refreshes the job's heartbeat on a database connection of its own (the job's connection is inside the
    service's transaction, whose writes nobody sees before it commits)."""

    def __init__(self, job_id: int, worker: str) -> None:
        super().__init__(name=f"job-{job_id}-heartbeat", daemon=True)
        self.job_id, self.worker, self.done = job_id, worker, threading.Event()

    def run(self) -> None:
        try:
            while not self.done.wait(settings.JOB_HEARTBEAT_SECONDS):
                try:
                    Job.objects.filter(pk=self.job_id, worker=self.worker, status=Job.Status.RUNNING).update(
                        heartbeat_at=timezone.now())
                except Exception:  # a passing database error: the next beat tries again
                    log.exception("heartbeat of job %s", self.job_id)
                    close_old_connections()
        finally:
            connection.close()

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=5)


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"[:90]


def job_execute(*, job_id: int, heartbeat: bool = False) -> Job | None:
    """Runs a queued job once (a second delivery of the same job does nothing), or takes again a running job whose
    worker stopped. `heartbeat` starts the heartbeat thread (in a worker; not when the job runs in the request)."""
    worker = _worker_name() if heartbeat else IN_REQUEST + _worker_name()
    job = job_claim(job_id=job_id, worker=worker)
    if job is None:
        return Job.objects.filter(pk=job_id).first()
    beat = _Heartbeat(job.pk, worker) if heartbeat else None
    if beat:
        beat.start()
    last = [0.0]

    def progress(fraction: float) -> None:
        # Throttled: one cache write per percent is plenty for a progress bar.
        if fraction - last[0] >= 0.01 or fraction >= 1.0:
            last[0] = fraction
            try:
                cache.set(_progress_key(job.pk), round(fraction, 3), timeout=24 * 3600)
            except Exception:  # only the progress bar: a cache that is away must not fail (roll back) the job
                log.warning("progress of job %s not stored", job.pk, exc_info=True)

    try:
        result, warnings = _HANDLERS[job.kind](job, params_of(job), progress)
    except InputError as exc:
        job.status = Job.Status.FAILED
        job.problems = exc.as_dicts()
        job.message = f"rejected: {exc.total:,} problem{'s' if exc.total != 1 else ''}, nothing was written"
    except Exception as exc:  # a bug or a lost database: the organizer must see that the job did not finish
        log.exception("job %s failed", job.pk)
        job.status = Job.Status.FAILED
        job.message = f"internal error: {type(exc).__name__}: {exc}"
    else:
        job.status = Job.Status.DONE
        job.progress = 1.0
        job.result = result
        job.warnings = warnings
        job.message = job_summary(job=job)
    finally:
        if beat:
            beat.stop()
    job.finished_at = timezone.now()
    # Only the claim that is still current writes the outcome: a worker that was given up on and came back late
    # must not overwrite what its successor did.
    Job.objects.filter(pk=job.pk, worker=worker).update(
        status=job.status, problems=job.problems, message=job.message, progress=job.progress, result=job.result,
        warnings=job.warnings, finished_at=job.finished_at, worker="")
    cache.delete(_progress_key(job.pk))
    return Job.objects.get(pk=job.pk)


# -- what a job did, in words


def job_view(*, job: Job) -> dict:
    """What the job pages show of a job: its progress, one status line ("done", "failed: reason"), the file it read,
    and whether its worker stopped (then the page offers Retry)."""
    stale = job_stale(job=job)
    message = job.message
    if job.status == Job.Status.DONE:
        message = job_summary(job=job)  # jobs finished before the summaries said only "done"
    elif stale:
        message = (f"its worker stopped answering (last heard from at {_heard(_last_heard(job))}): a running worker "
                   "takes it again within a minute or two, or retry it now")
    names = job.params.get("names") or ([job.params["filename"]] if job.params.get("filename") else [])
    return {"job": job, "progress": job_progress(job=job), "stale": stale, "retryable": job_retryable(job=job),
            "message": message, "files": ", ".join(names)}


def _count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


_COLLECTION_KINDS = {"posts": ("post", None), "jsonl": ("document", None), "comments": ("comment", None),
                     "formulas": ("formula", None), "formula_extra": ("formula representation", None),
                     "slt_index": ("SLT string", None), "opt_index": ("OPT string", None)}


def job_summary(*, job: Job) -> str:
    """What a finished job did, as a sentence for the job page and the jobs list ("" before it is done)."""
    r = job.result or {}
    if job.status != Job.Status.DONE or not r:
        return ""
    source = job.params.get("filename")
    from_file = f" from {source}" if source else ""
    if job.kind == Job.Kind.RUN_INGEST:
        kind = f" Taken as {r['kind']}: {r['kind_why']}." if r.get("kind") else ""  # older jobs did not say
        return (f"Loaded run {r.get('name', '')}{from_file}: {_count(r.get('rows', 0), 'row')} for "
                f"{_count(r.get('topics', 0), 'topic')}.{kind}")
    if job.kind == Job.Kind.TOPICS_INGEST:
        return (f"Loaded {_count(r.get('total', 0), 'topic')}{from_file}: {r.get('created', 0):,} new, "
                f"{r.get('updated', 0):,} updated.")
    if job.kind == Job.Kind.COLLECTION_INGEST:
        names = job.params.get("names") or [Path(p).name for p in job.params.get("paths", [])]
        parts = [_count(n, *_COLLECTION_KINDS.get(kind, (kind, None))) for kind, n in r.get("counts", {}).items()]
        into = f" into collection {job.collection.name}" if job.collection is not None else ""
        files = f" from {', '.join(names)}" if names else ""
        return f"Loaded {', '.join(parts) or 'nothing'}{into}{files}."
    if job.kind == Job.Kind.POOL_BUILD:
        topics = _count(len(r.get("sizes", {})), "topic")
        if "selected" in r:  # formulas: the items are visual ids, and instances of them are judged
            overflow = sum(r.get("overflow", {}).values())
            more = (f"; {_count(overflow, 'visual id')} had more candidate instances than are judged"
                    if overflow else "")
            text = (f"Built pools for {topics}: {_count(r.get('items', 0), 'visual id')}, "
                    f"{_count(r['selected'], 'formula instance')} to judge{more}.")
        else:
            text = f"Built pools for {topics}: {_count(r.get('items', 0), 'item')}."
        unpooled = len(r.get("unpooled", []))
        if unpooled:
            text += f" {_count(unpooled, 'judged item')} left the pools; their judgments are kept."
        return text
    if job.kind == Job.Kind.CAMPAIGN_DELETE:
        if r.get("gone"):
            return f"Campaign {r.get('name', '')} was already deleted."
        return (f"Deleted campaign {r.get('name', '')}: {_count(r.get('topics', 0), 'topic')}, "
                f"{_count(r.get('runs', 0), 'run')} ({_count(r.get('run_rows', 0), 'row')}), "
                f"{_count(r.get('pool_items', 0), 'pool item')}.")
    return ""


def _campaign(job: Job) -> Campaign:
    """The campaign of a job of a kind that has one (all but a collection's ingest), given by job_create; a job
    queued before its campaign began to be deleted is refused."""
    assert job.campaign is not None, f"a {job.kind} job without a campaign"
    if job.campaign.deleting:
        raise services.campaign_deleting_error(job.campaign)
    return job.campaign


def _run_ingest(job: Job, p: RunIngestParams, progress) -> tuple[dict, list[str]]:
    if p.replace is not None:
        return _run_replace(job, p.replace, p, progress)
    run = services.run_ingest(campaign=_campaign(job), path=p.path, filename=p.filename, user=job.created_by,
                              progress=progress, **p.options)
    _, why = services.run_kind(name=run.name, filename=p.filename, kind=p.options.get("kind"),
                               alternate=bool(p.options.get("alternate")))
    return {"run": run.pk, "name": run.name, "rows": run.row_count, "topics": run.topic_count, "kind": run.kind,
            "kind_why": why}, run.warnings


def _run_replace(job: Job, run_pk: int, p: RunIngestParams, progress) -> tuple[dict, list[str]]:
    """A new file for an existing run: services.run_replace."""
    old = _campaign(job).runs.filter(pk=run_pk).first()
    if old is None:
        raise InputError(f"run '{p.options.get('name')}' no longer exists: nothing to replace")
    run, after = assessor_services.run_replace(run=old, path=p.path, filename=p.filename, force=p.force,
                                               user=job.created_by, progress=progress)
    result = {"run": run.pk, "name": run.name, "rows": run.row_count, "topics": run.topic_count, "replaced": True,
              "kind": run.kind, "kind_why": "kept from the run replaced"}
    if after.rebuilt is not None:
        result["pool_items"] = after.rebuilt.items
    return result, run.warnings + after.messages()


def _topics_ingest(job: Job, p: TopicsIngestParams, progress) -> tuple[dict, list[str]]:
    return asdict(services.topics_ingest(campaign=_campaign(job), **asdict(p))), []


def _collection_ingest(job: Job, p: CollectionIngestParams, progress) -> tuple[dict, list[str]]:
    result = services.collection_ingest(collection_name=p.collection, paths=list(p.paths), names=p.names or None,
                                        progress=progress)
    # The collection may have been created by this job: link it now that it exists.
    job.collection_id = result.collection
    job.save(update_fields=["collection"])
    return {"counts": result.counts}, result.warnings


def _pool_build(job: Job, p: PoolBuildParams, progress) -> tuple[dict, list[str]]:
    """Builds the campaign's pools; the result is the service's: sizes per topic, total items, and for
    formulas the overflow per topic and the instances selected to judge."""
    result = assessor_services.pools_rebuild(campaign=_campaign(job), progress=progress, **asdict(p))
    return result.as_json(), result.warnings()


def _campaign_delete(job: Job, p: CampaignDeleteParams, progress) -> tuple[dict, list[str]]:
    """Deletes a campaign marked as being deleted (its run rows in batches, with progress); a campaign already gone
    (a retry after the last step) is done."""
    campaign = Campaign.objects.filter(pk=p.campaign).first()
    if campaign is None:
        return {"name": p.name, "gone": True}, []
    return {"name": p.name, **asdict(assessor_services.campaign_delete(campaign=campaign, progress=progress))}, []


_HANDLERS: dict[str, Callable] = {
    Job.Kind.RUN_INGEST: _run_ingest,
    Job.Kind.TOPICS_INGEST: _topics_ingest,
    Job.Kind.COLLECTION_INGEST: _collection_ingest,
    Job.Kind.POOL_BUILD: _pool_build,
    Job.Kind.CAMPAIGN_DELETE: _campaign_delete,
}

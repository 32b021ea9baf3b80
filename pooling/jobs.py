"""Background jobs: create one (enqueued when the transaction commits), run it, read its live progress.

A job runs one service. Its status is written outside the service's transaction; its progress goes to
the cache, because the service's own writes are invisible to other connections until it commits.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from . import services
from .errors import InputError
from .models import Job

log = logging.getLogger(__name__)


def _progress_key(job_id: int) -> str:
    return f"job-progress:{job_id}"


def job_create(*, kind: str, params: dict, user=None, campaign=None, collection=None) -> Job:
    """Creates a queued job and sends it to the workers once the current transaction commits."""
    from .tasks import job_execute_task  # tasks import this module

    job = Job.objects.create(kind=kind, params=params, created_by=user if user and user.is_authenticated else None,
                             campaign=campaign, collection=collection)
    transaction.on_commit(lambda: job_execute_task.delay(job.pk))
    return job


def job_progress(*, job: Job) -> float:
    if job.status == Job.Status.RUNNING:
        return cache.get(_progress_key(job.pk), job.progress)
    return 1.0 if job.status == Job.Status.DONE else job.progress


def job_execute(*, job_id: int) -> Job:
    """Runs a queued job once; a second delivery of the same job does nothing."""
    claimed = Job.objects.filter(pk=job_id, status=Job.Status.QUEUED).update(
        status=Job.Status.RUNNING, started_at=timezone.now())
    job = Job.objects.get(pk=job_id)
    if not claimed:
        return job
    last = [0.0]

    def progress(fraction: float) -> None:
        # Throttled: one cache write per percent is plenty for a progress bar.
        if fraction - last[0] >= 0.01 or fraction >= 1.0:
            last[0] = fraction
            cache.set(_progress_key(job.pk), round(fraction, 3), timeout=24 * 3600)

    try:
        result, warnings = _HANDLERS[job.kind](job, progress)
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
        job.message = "done"
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "problems", "message", "progress", "result", "warnings", "finished_at"])
    cache.delete(_progress_key(job.pk))
    return job


def _run_ingest(job: Job, progress) -> tuple[dict, list[str]]:
    p = job.params
    if p.get("replace"):
        return _run_replace(job, progress)
    run = services.run_ingest(campaign=job.campaign, path=p["path"], name=p.get("name") or None,
                              filename=p.get("filename"), alternate=p.get("alternate", False),
                              manual=p.get("manual", False), baseline=p.get("baseline", False),
                              user=job.created_by, progress=progress, depth=p.get("depth"))
    services.run_collection_check(run=run)  # after the commit: the run is already there for everyone
    return {"run": run.pk, "name": run.name, "rows": run.row_count, "topics": run.topic_count}, run.warnings


def _run_replace(job: Job, progress) -> tuple[dict, list[str]]:
    """A new file for an existing run (params "replace": its pk, "force"): services.run_replace."""
    p = job.params
    old = job.campaign.runs.filter(pk=p["replace"]).first()
    if old is None:
        raise InputError(f"run '{p.get('name')}' no longer exists: nothing to replace")
    run, after = services.run_replace(run=old, path=p["path"], filename=p.get("filename"),
                                      force=bool(p.get("force")), user=job.created_by, progress=progress)
    services.run_collection_check(run=run)
    result = {"run": run.pk, "name": run.name, "rows": run.row_count, "topics": run.topic_count, "replaced": True}
    if after.rebuilt is not None:
        result["pool_items"] = after.rebuilt["items"]
    return result, run.warnings + after.messages()


def _topics_ingest(job: Job, progress) -> tuple[dict, list[str]]:
    p = job.params
    result = services.topics_ingest(campaign=job.campaign, path=p["path"], filename=p.get("filename"))
    return result, []


def _collection_ingest(job: Job, progress) -> tuple[dict, list[str]]:
    p = job.params
    result = services.collection_ingest(collection_name=p["collection"], paths=p["paths"],
                                        names=p.get("names") or [Path(x).name for x in p["paths"]],
                                        progress=progress)
    # The collection may have been created by this job: link it now that it exists.
    job.collection_id = result["collection"]
    job.save(update_fields=["collection"])
    return {"counts": result["counts"]}, result["warnings"]


def _pool_build(job: Job, progress) -> tuple[dict, list[str]]:
    """Builds the campaign's pools; the result is the service's: sizes per topic, total items, and for
    formulas the overflow per topic and the instances selected to judge."""
    result = services.pool_build(campaign=job.campaign, force=bool(job.params.get("force")))
    warnings = [f"topic {topic}: judged item {item} is no longer in the pool; its judgments are kept"
                for topic, item in result.get("unpooled", [])]
    return result, warnings


_HANDLERS: dict[str, Callable] = {
    Job.Kind.RUN_INGEST: _run_ingest,
    Job.Kind.TOPICS_INGEST: _topics_ingest,
    Job.Kind.COLLECTION_INGEST: _collection_ingest,
    Job.Kind.POOL_BUILD: _pool_build,
}

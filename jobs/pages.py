"""What the job pages and the API say of a job, in words: what it did, why it failed, that its worker stopped."""
from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from core.words import counted
from ir.problems import InputError
from jobs.models import Job
from jobs.registry import kind_of


def job_view(*, job: Job) -> dict:
    """What the job pages show of a job: its progress, one status line ("done", "failed: reason"), the file it read,
    and whether its worker stopped (then the page offers Retry)."""
    stale = job.stale
    message = job.message
    if job.status in (Job.Status.DONE, Job.Status.CANCELLED) and job.result:
        message = job_summary(job=job)  # jobs finished before the summaries said only "done"
    elif stale:
        message = (f"its worker stopped answering (it started the job at {_at(job.started_at)}, last heard of at "
                   f"{_at(job.heartbeat_at or job.started_at)}): a running worker takes it again within a minute, or "
                   "retry it now")
    names = job.params.get("names") or ([job.params["filename"]] if job.params.get("filename") else [])
    cancellable = (job.status == Job.Status.QUEUED or (kind_of(job.kind).cancellable and not job.finished
                                                       and not job.cancel_requested and not stale))
    # A job taken again from a lost worker says so, also once it finished (attempts > 1 only then).
    retaken = (f"An earlier worker was lost while running it; a live worker took it again (attempt {job.attempts})."
               if job.attempts > 1 else "")
    return {"job": job, "progress": job_progress(job=job), "stale": stale, "retryable": job.retryable,
            "retaken": retaken,
            "cancellable": cancellable,
            "message": message, "files": ", ".join(names)}


def job_progress(*, job: Job) -> float:
    return 1.0 if job.status == Job.Status.DONE else job.progress


def _at(moment: datetime | None) -> str:
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M:%S %Z}" if moment else "an unknown time"


def worker_lost_reason(*, job: Job) -> str:
    """Why a job whose worker stopped on each of its JOB_MAX_ATTEMPTS runs is failed."""
    return (f"its worker stopped {counted(job.attempts, 'time')} while running it (last started at "
            f"{_at(job.started_at)}); nothing was written. Retry once the cause (memory, disk, a restart) is dealt "
            "with")


def attempt_message(*, job: Job, attempts: int, last_beat: datetime | None = None) -> str:
    """What a running job says once a live worker took it again from a lost one."""
    return (f"attempt {job.attempts} of {attempts}: {worker_lost_line(last_beat=last_beat)}, so another worker took "
            "the job again from the start")


def worker_lost_line(*, last_beat: datetime | None) -> str:
    return f"its worker was lost (last heard of at {_at(last_beat)})" if last_beat else "an earlier worker was lost"


def rejected_message(exc: InputError) -> str:
    return f"rejected: {counted(exc.total, 'problem')}, nothing was written"


def internal_error_message(exc: Exception) -> str:
    return f"internal error: {type(exc).__name__}: {exc}"


def retry_refusal(*, job: Job) -> str:
    if job.problems:
        return (f"job #{job.pk} was rejected for its input: it would be rejected again; upload a corrected file "
                "instead")
    return f"job #{job.pk} is {job.status}: only a failed job, a queued one or one whose worker stopped is retried"


def job_summary(*, job: Job) -> str:
    """What a finished job did, as a sentence for the job page and the jobs list ("" before it is done): its kind's
    summary (jobs/registry.py). A job that failed with every item tried (an LLM run's `all_failed`) says it too."""
    r = job.result or {}
    if (job.status not in (Job.Status.DONE, Job.Status.CANCELLED) and not r.get("all_failed")) or not r:
        return ""
    return kind_of(job.kind).summary(job)

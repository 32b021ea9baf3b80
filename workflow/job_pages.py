"""What the job pages and the API say of a job, in words: what it did, why it failed, that its worker stopped."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

from django.utils import timezone

from core.words import counted
from ir.problems import InputError
from judging.services.imports import ImportResult, import_notes
from pooling.models import Job


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
    cancellable = (job.status == Job.Status.QUEUED or (job.kind == Job.Kind.LLM_JUDGE and not job.finished
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


_COLLECTION_KINDS = {"posts": ("post", None), "jsonl": ("document", None), "comments": ("comment", None),
                     "formulas": ("formula", None), "formula_extra": ("formula representation", None),
                     "slt_index": ("SLT string", None), "opt_index": ("OPT string", None)}


def llm_judge_summary(r: dict) -> str:
    """What an LLM judging run did (llm.services.LlmJudgeResult as JSON), in one sentence."""
    reasons = "; ".join(f"{count:,} × {reason.rstrip('.')}" for count, reason in r.get("failure_reasons", []))
    commonest = f" Commonest failures: {reasons}." if reasons else ""
    if r.get("gave_up"):
        # The status says "failed" before this sentence. The run gives up after its first GIVE_UP failures; the
        # requests already in flight then come back failed too, and are counted apart.
        from llm.services import GIVE_UP

        failed = r.get("failed", 0)
        first = min(failed, GIVE_UP) if failed else GIVE_UP
        flight = f" ({failed - first:,} more in flight failed with them)" if failed > first else ""
        return (f"the first {counted(first, 'request')} to {r.get('model', '')} all failed{flight}, so the run "
                f"stopped there; nothing was graded and the other items were not sent.{commonest} Check the "
                "endpoint on the LLM page, then retry.")
    if r.get("all_failed"):
        return (f"every one of the {counted(r.get('failed', 0), 'item')} sent to {r.get('model', '')} failed, "
                f"nothing was graded ({r.get('skipped', 0):,} already graded before).{commonest} Check the "
                "endpoint on the LLM page, then retry.")
    stopped = "Cancelled: stopped after judging" if r.get("cancelled") else "Judged"
    canaries = f"; {counted(r['canaries_created'], 'canary', 'canaries')} made" if r.get("canaries_created") else ""
    missing = (f", {counted(r['missing'], 'item')} whose text the collection lacks (not sent, and not until its text "
               "is loaded)" if r.get("missing") else "")
    return (f"{stopped} {counted(r.get('judged', 0), 'item')} with {r.get('model', '')}, "
            f"{counted(r.get('failed', 0), 'failure')} (tried again by the next run){missing}, "
            f"{r.get('skipped', 0):,} already graded{canaries}; {r.get('tokens_in', 0):,} tokens in, "
            f"{r.get('tokens_out', 0):,} out, "
            f"{r.get('seconds', 0):.1f} s.{commonest}")


def job_summary(*, job: Job) -> str:
    """What a finished job did, as a sentence for the job page and the jobs list ("" before it is done)."""
    r = job.result or {}
    llm_failed = job.kind == Job.Kind.LLM_JUDGE and r.get("all_failed")  # failed, with what it tried
    if (job.status not in (Job.Status.DONE, Job.Status.CANCELLED) and not llm_failed) or not r:
        return ""
    if job.kind == Job.Kind.LLM_JUDGE:
        return llm_judge_summary(r)
    source = job.params.get("filename")
    from_file = f" from {source}" if source else ""
    if job.kind == Job.Kind.RUN_INGEST:
        kind = f" Taken as {r['kind']}: {r['kind_why']}." if r.get("kind") else ""  # older jobs did not say
        if r.get("facts_said"):
            kind += f" Facts {r['facts_said']} (edit them on the run's Facts page)."
        return (f"Loaded run {r.get('name', '')}{from_file}: {counted(r.get('rows', 0), 'row')} for "
                f"{counted(r.get('topics', 0), 'topic')}.{kind}")
    if job.kind == Job.Kind.TOPICS_INGEST:
        return (f"Loaded {counted(r.get('total', 0), 'topic')}{from_file}: {r.get('created', 0):,} new, "
                f"{r.get('updated', 0):,} updated.")
    if job.kind == Job.Kind.JUDGMENTS_IMPORT:
        accounts = r.get("new_accounts", [])
        made = f" New accounts (no usable password yet): {', '.join(accounts)}." if accounts else ""
        return (f"Imported {counted(r.get('judgments', 0), 'judgment')}{from_file}: {r.get('created', 0):,} new, "
                f"{r.get('revised', 0):,} revised, {r.get('unchanged', 0):,} unchanged; "
                f"{counted(r.get('new_assignments', 0), 'assignment')} created.{made}"
                + "".join(f" {note}" for note in import_notes(ImportResult(**r))))
    if job.kind == Job.Kind.COLLECTION_INGEST:
        names = job.params.get("names") or [Path(p).name for p in job.params.get("paths", [])]
        parts = [counted(n, *_COLLECTION_KINDS.get(kind, (kind, None))) for kind, n in r.get("counts", {}).items()]
        into = f" into collection {job.collection.name}" if job.collection is not None else ""
        files = f" from {', '.join(names)}" if names else ""
        return f"Loaded {', '.join(parts) or 'nothing'}{into}{files}."
    if job.kind == Job.Kind.POOL_BUILD:
        topics = counted(len(r.get("sizes", {})), "topic")
        if "selected" in r:  # formulas: the items are visual ids, and instances of them are judged
            overflow = sum(r.get("overflow", {}).values())
            more = (f"; {counted(overflow, 'visual id')} had more candidate instances than are judged"
                    if overflow else "")
            text = (f"Built pools for {topics}: {counted(r.get('items', 0), 'visual id')}, "
                    f"{counted(r['selected'], 'formula instance')} to judge{more}.")
        else:
            text = f"Built pools for {topics}: {counted(r.get('items', 0), 'item')}."
        unpooled = len(r.get("unpooled", []))
        if unpooled:
            text += f" {counted(unpooled, 'judged item')} left the pools; their judgments are kept."
        return text
    if job.kind == Job.Kind.CAMPAIGN_DELETE:
        if r.get("gone"):
            return f"Campaign {r.get('name', '')} was already deleted."
        return (f"Deleted campaign {r.get('name', '')}: {counted(r.get('topics', 0), 'topic')}, "
                f"{counted(r.get('runs', 0), 'run')} ({counted(r.get('run_rows', 0), 'row')}), "
                f"{counted(r.get('pool_items', 0), 'pool item')}.")
    return ""



"""Celery tasks of the judging app, each taking primary keys and calling one service, and the kinds of job whose
work is judging's (jobs/registry.py): a run's ingest or replacement, a judgments import, a pool build and a campaign
delete, each handler calling one service (a run's ingest calls pooling's, the rest judging's, which keep judgments)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self

from django.db import transaction

from core.words import counted
from ir.problems import InputError
from jobs.models import Job
from jobs.registry import JobParams, Progress, UploadParams, register
from jobs.registry import job_campaign as _campaign
from jobs.runner import job_create, job_retry
from jobs.store import upload_local
from judging import services as assessor_services
from judging.services.imports import ImportResult, import_notes
from pooling import services
from pooling.models import Campaign, Run
from pooling.services import RunIngestOptions, run_options


@dataclass(frozen=True)
class RunIngestParams(UploadParams):
    """A run file for services.run_ingest, or with `replace` (a run's pk) a new file for that run, replaced by
    services.run_replace (once judging has started only with `force`)."""

    kind: ClassVar[str] = Job.Kind.RUN_INGEST
    options: RunIngestOptions = field(default_factory=RunIngestOptions)
    replace: int | None = None
    force: bool = False

    def to_json(self) -> dict[str, Any]:
        """The options beside the file, as the jobs' params have always held them."""
        replace = {"replace": self.replace, "force": self.force} if self.replace is not None else {}
        return {"upload": self.upload, "filename": self.filename, **self.options, **replace}

    @classmethod
    def replacing(cls, run: Run, *, upload: str, filename: str, force: bool) -> Self:
        """A new file for `run`, which keeps its options (its name is kept here for the job's messages)."""
        return cls(upload=upload, filename=filename, options={"name": run.name}, replace=run.pk, force=force)

    @classmethod
    def from_json(cls, params: dict[str, Any]) -> Self:
        options = run_options(params)
        return cls(options=options, **{key: value for key, value in params.items() if key not in options})


def _run_ingest(job: Job, p: RunIngestParams, progress) -> tuple[dict, list[str]]:
    if p.replace is not None:
        return _run_replace(job, p.replace, p, progress)
    with upload_local(p.upload) as path:
        run = services.run_ingest(campaign=_campaign(job), path=path, filename=p.filename, user=job.created_by,
                                  progress=progress, **p.options)
    return {"run": run.pk, "name": run.name, "rows": run.row_count, "topics": run.topic_count, "kind": run.kind,
            "kind_why": run.kind_why,
            "facts_said": services.name_facts_said(run.name, Path(p.filename).name)}, run.warnings


def _run_replace(job: Job, run_pk: int, p: RunIngestParams, progress) -> tuple[dict, list[str]]:
    """A new file for an existing run: services.run_replace."""
    old = _campaign(job).runs.filter(pk=run_pk).first()
    if old is None:
        raise InputError(f"run '{p.options.get('name')}' no longer exists: nothing to replace")
    with upload_local(p.upload) as path:
        run, after = assessor_services.run_replace(run=old, path=path, filename=p.filename, force=p.force,
                                                   user=job.created_by, progress=progress)
    result = {"run": run.pk, "name": run.name, "rows": run.row_count, "topics": run.topic_count, "replaced": True,
              "kind": run.kind, "kind_why": "kept from the run replaced"}
    if after.rebuilt is not None:
        result["pool_items"] = after.rebuilt.items
    return result, run.warnings + after.messages()


def _from_file(job: Job) -> str:
    source = job.params.get("filename")
    return f" from {source}" if source else ""


def _run_ingest_summary(job: Job) -> str:
    r = job.result
    kind = f" Taken as {r['kind']}: {r['kind_why']}." if r.get("kind") else ""  # older jobs did not say
    if r.get("facts_said"):
        kind += f" Facts {r['facts_said']} (edit them on the run's Facts page)."
    return (f"Loaded run {r.get('name', '')}{_from_file(job)}: {counted(r.get('rows', 0), 'row')} for "
            f"{counted(r.get('topics', 0), 'topic')}.{kind}")


@dataclass(frozen=True)
class JudgmentsImportParams(UploadParams):
    """A judgments TSV (docs/formats.md, Judgments) or a TREC qrels file for assessor.services.judgments_import, with
    the organizer's choices: a qrels file's assessor, kind and round, and what becomes of lines outside the pools or of
    topics assigned already (the service's `outside` and `assigned`)."""

    kind: ClassVar[str] = Job.Kind.JUDGMENTS_IMPORT
    assessor: str = ""
    judgment_kind: str = ""
    round: int | None = None
    outside: str = "refuse"
    assigned: str = "refuse"


def _judgments_import(job: Job, p: JudgmentsImportParams, progress: Progress) -> tuple[dict, list[str]]:
    with upload_local(p.upload) as path, open(path, "rb") as lines:
        result = assessor_services.judgments_import(campaign=_campaign(job), lines=lines, user=job.created_by,
                                                    filename=p.filename, assessor=p.assessor, kind=p.judgment_kind,
                                                    round=p.round, outside=p.outside, assigned=p.assigned)
    return asdict(result), []


def _judgments_import_summary(job: Job) -> str:
    r = job.result
    accounts = r.get("new_accounts", [])
    made = f" New accounts (no usable password yet): {', '.join(accounts)}." if accounts else ""
    return (f"Imported {counted(r.get('judgments', 0), 'judgment')}{_from_file(job)}: {r.get('created', 0):,} new, "
            f"{r.get('revised', 0):,} revised, {r.get('unchanged', 0):,} unchanged; "
            f"{counted(r.get('new_assignments', 0), 'assignment')} created.{made}"
            + "".join(f" {note}" for note in import_notes(ImportResult(**r))))


@dataclass(frozen=True)
class PoolBuildParams(JobParams):
    """services.pool_build of the job's campaign; `force` once judging has started."""

    kind: ClassVar[str] = Job.Kind.POOL_BUILD
    force: bool = False


def _pool_build(job: Job, p: PoolBuildParams, progress: Progress) -> tuple[dict, list[str]]:
    """Builds the campaign's pools; the result is the service's: sizes per topic, total items, and for
    formulas the overflow per topic and the instances selected to judge."""
    result = assessor_services.pools_rebuild(campaign=_campaign(job), progress=progress, **asdict(p))
    return result.as_json(), result.warnings()


def _pool_build_summary(job: Job) -> str:
    r = job.result
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


@dataclass(frozen=True)
class CampaignDeleteParams(JobParams):
    """judging.services.campaign_delete of a campaign marked as being deleted; its name for the jobs list once the
    campaign (and the job's link to it) is gone."""

    kind: ClassVar[str] = Job.Kind.CAMPAIGN_DELETE
    campaign: int
    name: str


def _campaign_delete(job: Job, p: CampaignDeleteParams, progress: Progress) -> tuple[dict, list[str]]:
    """Deletes a campaign marked as being deleted (its run rows in batches, with progress); a campaign already gone
    (a retry after the last step) is done."""
    campaign = Campaign.objects.filter(pk=p.campaign).first()
    if campaign is None:
        return {"name": p.name, "gone": True}, []
    return {"name": p.name, **asdict(assessor_services.campaign_delete(campaign=campaign, progress=progress))}, []


def _campaign_delete_summary(job: Job) -> str:
    r = job.result
    if r.get("gone"):
        return f"Campaign {r.get('name', '')} was already deleted."
    return (f"Deleted campaign {r.get('name', '')}: {counted(r.get('topics', 0), 'topic')}, "
            f"{counted(r.get('runs', 0), 'run')} ({counted(r.get('run_rows', 0), 'row')}), "
            f"{counted(r.get('pool_items', 0), 'pool item')}.")


def _campaign_delete_cancel(job: Job) -> str:
    """A queued campaign delete that has not begun deleting gives the campaign back; one that began is refused."""
    if job.started_at is not None:
        raise InputError(f"job #{job.pk} began deleting the campaign's rows: retry it (or delete the campaign "
                         "again) to finish the delete")
    if Campaign.objects.filter(pk=job.params.get("campaign"), deleting=True).update(deleting=False):
        return "cancelled before it started: the campaign is kept (its unjudged assignments were removed)"
    return "cancelled before it started"


def campaign_delete_job(*, campaign: Campaign, user=None) -> Job:
    """Starts deleting a campaign: marks it (assessor.services.campaign_delete_start, refused once anything is judged)
    and queues the job that deletes it. A campaign already being deleted whose delete job is not running (queued,
    failed, its worker lost, or gone) is sent to the workers again; one whose delete is running is refused."""
    with transaction.atomic():
        if Campaign.objects.filter(pk=campaign.pk, deleting=True).exists():
            job = campaign.jobs.filter(kind=Job.Kind.CAMPAIGN_DELETE).order_by("-pk").first()
            if job is not None and not job.retryable:
                raise InputError(f"campaign '{campaign.name}' is being deleted by job #{job.pk} ({job.status})")
            if job is not None:
                return job_retry(job=job)
        else:
            assessor_services.campaign_delete_start(campaign=campaign)
        return job_create(campaign=campaign, user=user,
                          params=CampaignDeleteParams(campaign=campaign.pk, name=campaign.name))


register(RunIngestParams, _run_ingest, summary=_run_ingest_summary)
register(JudgmentsImportParams, _judgments_import, summary=_judgments_import_summary)
register(PoolBuildParams, _pool_build, summary=_pool_build_summary)
register(CampaignDeleteParams, _campaign_delete, summary=_campaign_delete_summary, while_deleting=True,
         on_cancel=_campaign_delete_cancel)

"""What each kind of job runs: one service each, given the job's params; the result it stores and the warnings it
shows (workflow/job_pages.py puts both into words)."""
from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path

from ir.problems import InputError
from judging import services as assessor_services
from pooling import services
from pooling.models import Campaign, Job
from workflow.job_params import (
    CampaignDeleteParams,
    CollectionIngestParams,
    JudgmentsImportParams,
    LlmJudgeParams,
    PoolBuildParams,
    RunIngestParams,
    TopicsIngestParams,
)
from workflow.llm_judging import campaign_llm_judge
from workflow.store import upload_local

Progress = Callable[[float], None]


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


def _topics_ingest(job: Job, p: TopicsIngestParams, progress) -> tuple[dict, list[str]]:
    with upload_local(p.upload) as path:
        return asdict(services.topics_ingest(campaign=_campaign(job), path=path, filename=p.filename)), []


def _collection_ingest(job: Job, p: CollectionIngestParams, progress) -> tuple[dict, list[str]]:
    with ExitStack() as files:
        paths: list[str | os.PathLike] = [files.enter_context(upload_local(name)) for name in p.uploads]
        result = services.collection_ingest(collection_name=p.collection, paths=paths, names=p.names or None,
                                            progress=progress, replace=p.replace)
    # The collection may have been created by this job: link it now that it exists.
    job.collection_id = result.collection
    job.save(update_fields=["collection"])
    return {"counts": result.counts}, result.warnings


def _judgments_import(job: Job, p: JudgmentsImportParams, progress) -> tuple[dict, list[str]]:
    with upload_local(p.upload) as path, open(path, "rb") as lines:
        result = assessor_services.judgments_import(campaign=_campaign(job), lines=lines, user=job.created_by,
                                                    filename=p.filename, assessor=p.assessor, kind=p.judgment_kind,
                                                    round=p.round, outside=p.outside, assigned=p.assigned)
    return asdict(result), []


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


def _llm_judge(job: Job, p: LlmJudgeParams, progress) -> tuple[dict, list[str]]:
    """Grades the campaign's pool items (and canaries) with its LLM endpoint; stops between batches once the job's
    Cancel button was pressed, keeping what it stored (the result says `cancelled`)."""
    def cancelled() -> bool:
        return Job.objects.filter(pk=job.pk, cancel_requested=True).exists()

    result = campaign_llm_judge(campaign=_campaign(job), params=p, progress=progress, cancelled=cancelled)
    return result.as_json(), []


HANDLERS: dict[str, Callable] = {
    Job.Kind.RUN_INGEST: _run_ingest,
    Job.Kind.TOPICS_INGEST: _topics_ingest,
    Job.Kind.COLLECTION_INGEST: _collection_ingest,
    Job.Kind.POOL_BUILD: _pool_build,
    Job.Kind.CAMPAIGN_DELETE: _campaign_delete,
    Job.Kind.JUDGMENTS_IMPORT: _judgments_import,
    Job.Kind.LLM_JUDGE: _llm_judge,
}

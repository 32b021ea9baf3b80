"""Nugget drafting and the LLM's support labels as kinds of job (jobs/registry.py): the campaign's LLM endpoint
drafts nuggets for its topics (nuggets.drafting.nuggets_draft), or labels each answer's support of the nuggets
(nuggets.llm_support.nuggets_assign_llm)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from django.db import transaction

from jobs.models import Job
from jobs.registry import JobParams, Progress, job_campaign, register
from jobs.runner import job_create
from llm import services as llm_services
from nuggets.drafting import draft_summary, nuggets_draft, topics_of
from nuggets.llm_support import assign_summary, nuggets_assign_llm


@dataclass(frozen=True)
class NuggetDraftParams(JobParams):
    """The topics to draft (empty: all) and overrides of the campaign's endpoint (None: the endpoint's)."""

    kind: ClassVar[str] = Job.Kind.NUGGET_DRAFT
    topics: list[str] = field(default_factory=list)
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None

    def settings_overrides(self) -> dict[str, str | None]:
        return {"base_url": self.base_url, "model": self.model, "api_key_env": self.api_key_env}


def llm_job_queue(*, params: NuggetDraftParams, campaign, user=None) -> Job:
    """A nugget drafting or support-labelling job queued from a page, once its topics are the campaign's and the
    campaign has an endpoint (InputError otherwise, nothing queued)."""
    topics_of(campaign=campaign, topic_ids=params.topics)
    llm_services.endpoint_settings(campaign=campaign)
    with transaction.atomic():
        return job_create(params=params, user=user, campaign=campaign)


def _nugget_draft(job: Job, p: NuggetDraftParams, progress: Progress) -> tuple[dict, list[str]]:
    campaign = job_campaign(job)
    settings = llm_services.endpoint_settings(campaign=campaign, overrides=p.settings_overrides())
    result = nuggets_draft(campaign=campaign, settings=settings, topic_ids=p.topics, user=job.created_by,
                           progress=progress)
    warnings = [f"topic {t}: no pooled answer to draft from" for t in result.skipped]
    return result.as_json(), warnings


def _nugget_draft_summary(job: Job) -> str:
    return draft_summary(job.result)


register(NuggetDraftParams, _nugget_draft, summary=_nugget_draft_summary)


@dataclass(frozen=True)
class NuggetSupportLlmParams(NuggetDraftParams):
    """The topics whose answers the model labels (empty: all) and the same overrides of the endpoint."""

    kind: ClassVar[str] = Job.Kind.NUGGET_SUPPORT_LLM


def _nugget_support_llm(job: Job, p: NuggetSupportLlmParams, progress: Progress) -> tuple[dict, list[str]]:
    campaign = job_campaign(job)
    settings = llm_services.endpoint_settings(campaign=campaign, overrides=p.settings_overrides())
    result = nuggets_assign_llm(campaign=campaign, settings=settings, topic_ids=p.topics, user=job.created_by,
                                progress=progress)
    return result.as_json(), [f"topic {t}: {why}, skipped" for t, why in result.skipped]


def _nugget_support_llm_summary(job: Job) -> str:
    return assign_summary(job.result)


register(NuggetSupportLlmParams, _nugget_support_llm, summary=_nugget_support_llm_summary)

"""The one kind of job whose work reaches above judging (jobs/registry.py): LLM judging (its params and its summary are
llm/tasks.py's), whose canaries are the items the official qrels grade 0 (evaluation.selectors.qrels_by_topic), read
here and handed to llm.services, which sits below judging and may not read judgments itself (docs/architecture.md).
The `llm_judge` command runs the same service."""
from __future__ import annotations

from dataclasses import asdict

from evaluation.selectors import qrels_by_topic
from ir.grades import NOT_RELEVANT
from jobs.models import Job
from jobs.registry import Progress, job_campaign, register
from llm import services
from llm.services import Cancelled, LlmJudgeResult
from llm.tasks import LlmJudgeParams, llm_judge_summary_of
from pooling.models import Campaign

OVERRIDES = ("base_url", "model", "api_key_env", "concurrency", "samples")


def official_zeros(*, campaign: Campaign) -> dict[str, list[str]]:
    """topic id -> the items (formulas: visual ids) the official qrels grade 0."""
    return {topic_id: [item for item, grade in rows if grade == NOT_RELEVANT]
            for topic_id, rows in qrels_by_topic(campaign=campaign)}


def campaign_llm_judge(*, campaign: Campaign, params: LlmJudgeParams, progress: Progress | None = None,
                       cancelled: Cancelled | None = None) -> LlmJudgeResult:
    values = asdict(params)
    settings = services.endpoint_settings(campaign=campaign, overrides={name: values[name] for name in OVERRIDES})
    prompt = services.prompt_named(name=params.prompt) if params.prompt else None
    zeros = official_zeros(campaign=campaign) if params.canaries else {}
    return services.llm_judge(campaign=campaign, settings=settings, prompt=prompt, topics=params.topics or None,
                              limit_per_topic=params.limit_per_topic, canaries=params.canaries, official_zeros=zeros,
                              progress=progress, cancelled=cancelled)


def llm_judge_handler(job: Job, p: LlmJudgeParams, progress: Progress) -> tuple[dict, list[str]]:
    """Grades the campaign's pool items (and canaries) with its LLM endpoint; stops between batches once the job's
    Cancel button was pressed, keeping what it stored (the result says `cancelled`)."""
    def cancelled() -> bool:
        return Job.objects.filter(pk=job.pk, cancel_requested=True).exists()

    result = campaign_llm_judge(campaign=job_campaign(job), params=p, progress=progress, cancelled=cancelled)
    return result.as_json(), []


register(LlmJudgeParams, llm_judge_handler, summary=llm_judge_summary_of, cancellable=True)

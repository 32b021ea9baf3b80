"""LLM judging of a campaign as the command and the job start it (docs/llm.md): the campaign's endpoint with the
run's overrides, and for canaries the items the official judgments graded 0 (read here, above assessor and
evaluation, and handed down to llm.services, which may not read judgments itself)."""
from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from evaluation.selectors import qrels_by_topic
from ir.grades import NOT_RELEVANT
from llm import services
from llm.services import Cancelled, LlmJudgeResult, Progress
from pooling.models import Campaign

if TYPE_CHECKING:
    from workflow.tasks import LlmJudgeParams  # which imports this module

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

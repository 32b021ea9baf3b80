"""What the campaign's LLM page shows besides its forms: the grades stored per model and prompt version."""
from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, Sum

from llm.models import Endpoint, LlmGrade, Prompt
from pooling.models import Campaign


def grade_counts(*, campaign: Campaign) -> list[dict[str, Any]]:
    """Per model and prompt version: grades, failures, canary grades, tokens in and out."""
    rows = (LlmGrade.objects.filter(campaign=campaign).values("model", "prompt__name", "prompt__version")
            .annotate(graded=Count("pk", filter=Q(grade__isnull=False, canary__isnull=True)),
                      failed=Count("pk", filter=Q(grade__isnull=True)),
                      canaries=Count("pk", filter=Q(grade__isnull=False, canary__isnull=False)),
                      tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"))
            .order_by("model", "prompt__name", "prompt__version"))
    return [dict(row) for row in rows]


def failure_reasons(*, campaign: Campaign, limit: int = 5) -> list[dict[str, Any]]:
    """The commonest reasons stored for the campaign's failures (no grade), with their counts, commonest first. The
    texts never hold the key (llm.client scrubs it)."""
    rows = (LlmGrade.objects.filter(campaign=campaign, grade__isnull=True).values("failure")
            .annotate(count=Count("pk")).order_by("-count", "failure")[:limit])
    return [dict(row) for row in rows]


def prompt_users(*, prompts: list[Prompt]) -> dict[str, list[str]]:
    """prompt name -> "campaign (vN)" of every campaign whose endpoint is pinned to a version of it."""
    users: dict[str, list[str]] = {prompt.name: [] for prompt in prompts}
    rows = (Endpoint.objects.filter(prompt__name__in=list(users)).order_by("campaign__name")
            .values_list("prompt__name", "campaign__name", "prompt__version"))
    for name, campaign, version in rows:
        users[name].append(f"{campaign} (v{version})")
    return users

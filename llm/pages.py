"""What the campaign's LLM page shows besides its forms: the grades stored per model and prompt version."""
from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, Sum

from llm.models import LlmGrade
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

"""What the campaign's LLM page shows besides its forms: the grades stored per model and prompt version, their
probabilities, and the form that imports grades made elsewhere."""
from __future__ import annotations

import math
from typing import Any

from django.db.models import Count, Q, Sum

from llm.forms import LlmImportForm
from llm.models import Endpoint, LlmGrade, ProbabilitySource, Prompt
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


def probability_summary(*, campaign: Campaign) -> dict[str, Any]:
    """Per model, of its grades of pool items: how many have probabilities and from which source (logprobs, samples,
    single, file), how many have none (stored before they were kept), and each of the scheme's grades' mean
    probability over those that have them; `grades` the scheme's grades, lowest first, as the means are listed."""
    grades = sorted(g.value for g in campaign.judging_scheme.grades)
    graded = LlmGrade.objects.filter(campaign=campaign, canary__isnull=True, grade__isnull=False)
    models: dict[str, dict[str, Any]] = {}
    for row in graded.values("model", "probability_source").annotate(n=Count("pk")).order_by("model"):
        entry = models.setdefault(row["model"], {"model": row["model"], "sources": {}, "none": 0, "with": 0})
        if row["probability_source"]:
            entry["sources"][row["probability_source"]] = row["n"]
            entry["with"] += row["n"]
        else:
            entry["none"] += row["n"]
    sums: dict[str, list[float]] = {model: [0.0] * len(grades) for model in models}
    for model, probabilities in graded.exclude(probability_source="").values_list("model", "probabilities").iterator(
            chunk_size=2000):
        for i, grade in enumerate(grades):
            value = probabilities.get(str(grade), 0.0) if isinstance(probabilities, dict) else 0.0
            sums[model][i] += value if isinstance(value, (int, float)) and math.isfinite(value) else 0.0
    labels = dict(ProbabilitySource.choices)
    rows = []
    for model, entry in models.items():
        n = entry["with"]
        rows.append({**entry, "means": [total / n for total in sums[model]] if n else [],
                     "sources": [(labels.get(source, source), count) for source, count in
                                 sorted(entry["sources"].items(), key=lambda kv: -kv[1])]})
    return {"grades": grades, "rows": rows}


def page_extras(*, campaign: Campaign) -> dict[str, Any]:
    """The LLM page's context besides the view's own: the grades' probabilities and the import form."""
    return {"probabilities": probability_summary(campaign=campaign), "import_form": LlmImportForm()}

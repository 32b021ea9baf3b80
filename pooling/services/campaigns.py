"""Campaigns, collections by name, and topics."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack, cast

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import models, transaction

from core.bounds import max_chars
from ir.formats.textio import open_binary
from ir.formats.topics import read_topic_file
from ir.grades import Scheme
from ir.problems import InputError, Problem, Problems
from pooling.models import Campaign, Collection, Topic
from pooling.services.common import fits, given_keys


def collection_get_or_create(*, name: str, description: str = "") -> Collection:
    """The collection of that name, created (with `description`) if there is none."""
    name = name.strip()
    if not name:
        raise InputError("a collection needs a name")
    collection, _ = Collection.objects.get_or_create(name=name, defaults={"description": description})
    return collection


class CampaignSettings(TypedDict, total=False):
    """A campaign's pooling settings, maximum run depth and relevance level (evaluation), whichever way they come
    in: the campaigns page and the settings page, the API, create_campaign and edit_campaign. None (or no key): not
    given, so the task's default when a campaign is created, and unchanged when it is edited."""

    primary_depth: int | None
    alternate_depth: int | None
    instances: int | None
    selection: str | None
    seed: int | None
    max_depth: int | None
    relevance_level: int | None
    candidate_notes: bool | None
    # The judging order and its guards, and the budgets (docs/pooling.md, "Live order and budgets"): they
    # change at any time, even while judging (they decide only the items still to come). A budget given as 0
    # (NO_BUDGET) is taken away.
    judging_order: str | None
    warm_up: int | None
    min_depth: int | None
    topic_budget: int | None
    hours_budget: float | None
    budget_spread: str | None


# A budget set to this is removed (the whole pool is judged): None already means "not given".
NO_BUDGET = 0
BUDGETS = ("topic_budget", "hours_budget")


def campaign_settings(values: Mapping[str, Any]) -> CampaignSettings:
    """The settings among other values: a form's cleaned data, a serializer's validated data, a command's options."""
    return cast(CampaignSettings, given_keys(CampaignSettings, values))


def settings_chosen(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings given (None and an empty choice: not given), a budget of NO_BUDGET as None (no budget)."""
    return {key: None if key in BUDGETS and value == NO_BUDGET else value for key, value in settings.items()
            if value is not None and value != ""}


@transaction.atomic
def campaign_create(
    *,
    name: str,
    task: str,
    collection_name: str | None = None,
    user: User | None = None,
    scheme: Scheme | None = None,
    **settings: Unpack[CampaignSettings],
) -> Campaign:
    """Creates a campaign with the ARQMath-3 defaults of its task (and the model's) for every setting not given;
    it judges with `scheme` (ARQMath's when None), whose relevance level it takes unless one is given."""
    name = (name or "").strip()
    if task not in Campaign.Task.values:
        raise InputError(f"task must be one of {', '.join(Campaign.Task.values)}, not '{task}'")
    primary_depth, alternate_depth = Campaign.DEFAULT_DEPTHS[task]
    # A given 0 is a value, out of range like any other (a budget's 0 is none); an empty selection is the form's
    # "default".
    given = settings_chosen(settings)
    chosen = {} if scheme is None or scheme.name == "arqmath" else {
        "scheme": scheme.to_json(), "relevance_level": scheme.relevance_level}
    if scheme is not None and scheme.facets and task != Campaign.Task.ANSWERS:
        raise InputError("a scheme with facets judges answers: formulas are graded instance by instance")
    campaign = Campaign(name=name, task=task, created_by=user,
                        **{"primary_depth": primary_depth, "alternate_depth": alternate_depth, **chosen, **given})
    raise_if_invalid(campaign)
    if collection_name:
        campaign.collection = collection_get_or_create(name=collection_name)
    campaign.save()
    return campaign


def campaign_problems(campaign: Campaign) -> list[str]:
    """What the model's own rules (ranges, choices) and the unique name find wrong with a campaign's settings: the
    one check behind creating and editing a campaign, whatever the form, API or command that asked."""
    problems = []
    if not campaign.name:
        problems.append("a campaign needs a name")
    elif Campaign.objects.filter(name=campaign.name).exclude(pk=campaign.pk).exists():
        problems.append(f"a campaign named '{campaign.name}' already exists")
    try:
        campaign.full_clean(exclude=["created_by", "collection", "name"], validate_unique=False)
    except ValidationError as exc:
        problems += [_sentence(key, error) for key, errors in exc.error_dict.items() for error in errors]
    if len(campaign.name) > max_chars(Campaign, "name"):
        problems.append("a campaign name has at most 100 characters")
    return problems


def _sentence(key: str, error: ValidationError) -> str:
    label, params = setting_label(key), error.params or {}
    if error.code == "min_value":
        return f"{label} must be at least {params['limit_value']}, not {params['show_value']}"
    if error.code == "max_value":
        return f"{label} must be at most {params['limit_value']:,}, not {params['show_value']:,}"
    return f"{label}: {' '.join(error.messages)}"


def raise_if_invalid(campaign: Campaign) -> None:
    problems = campaign_problems(campaign)
    if problems:
        raise InputError([Problem(None, p) for p in problems])


def setting_label(name: str) -> str:
    if name == "__all__":
        return "campaign"
    field = Campaign._meta.get_field(name)
    assert isinstance(field, models.Field), f"{name} is no column of a campaign"  # settings and error keys are
    return str(field.verbose_name)


# What a topic file gives a topic (ir/formats/topics_xml.py TopicRecord), beside its id and position.
TOPIC_TEXTS = ("title", "question", "tags", "formula_id", "latex", "description", "narrative", "prelude", "parent",
               "parent_title")


@dataclass(frozen=True)
class TopicsIngestResult:
    created: int
    updated: int
    total: int  # topics in the file


def topics_ingest(*, campaign: Campaign, path: str | os.PathLike, filename: str | None = None) -> TopicsIngestResult:
    """Adds the topics of a topic file (ARQMath XML, TREC, TSV, JSONL or TREC RAG JSONL: ir/formats/topics.py) to a
    campaign; topics already there are updated. A micro-topic is a topic of its own, with its parent's id, title
    and prelude."""
    problems = Problems(file=filename or Path(path).name)
    with open_binary(path) as stream:
        records = read_topic_file(stream, problems, task=campaign.task, words=campaign.words.kind)
    for r in records:
        fits(r.line, problems, None, ("topic number", r.topic_id), ("Formula_Id", r.formula_id),
             ("parent topic id", r.parent))
    problems.raise_if_any()
    existing = {t.topic_id: t for t in campaign.topics.all()}
    created, updated = [], []
    for position, r in enumerate(records):
        values = {"position": position, **{name: getattr(r, name) for name in TOPIC_TEXTS}}
        topic = existing.get(r.topic_id)
        if topic is None:
            created.append(Topic(campaign=campaign, topic_id=r.topic_id, **values))
        elif any(getattr(topic, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(topic, k, v)
            updated.append(topic)
    Topic.objects.bulk_create(created, batch_size=1000)
    Topic.objects.bulk_update(updated, ["position", *TOPIC_TEXTS], batch_size=1000)
    return TopicsIngestResult(created=len(created), updated=len(updated), total=len(records))

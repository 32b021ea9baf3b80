"""Campaigns, collections by name, and topics."""
from __future__ import annotations

import os
from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction

from ..bounds import max_chars
from ..errors import InputError, Problem, Problems
from ..formats import topics_xml
from ..formats.textio import open_binary
from ..models import Campaign, Collection, Topic
from .common import fits


def collection_get_or_create(*, name: str) -> Collection:
    name = name.strip()
    if not name:
        raise InputError("a collection needs a name")
    collection, _ = Collection.objects.get_or_create(name=name)
    return collection


@transaction.atomic
def campaign_create(
    *,
    name: str,
    task: str,
    collection_name: str | None = None,
    primary_depth: int | None = None,
    alternate_depth: int | None = None,
    instances: int | None = None,
    selection: str | None = None,
    seed: int | None = None,
    max_depth: int | None = None,
    user: User | None = None,
) -> Campaign:
    """Creates a campaign with the ARQMath-3 defaults of its task for every setting not given."""
    problems = []
    name = (name or "").strip()
    if not name:
        problems.append("a campaign needs a name")
    elif Campaign.objects.filter(name=name).exists():
        problems.append(f"a campaign named '{name}' already exists")
    elif len(name) > max_chars(Campaign, "name"):
        problems.append("a campaign name has at most 100 characters")
    if task not in Campaign.Task.values:
        problems.append(f"task must be one of {', '.join(Campaign.Task.values)}, not '{task}'")
    if selection is not None and selection not in Campaign.Selection.values:
        problems.append(f"selection must be one of {', '.join(Campaign.Selection.values)}, not '{selection}'")
    for label, value in (("primary depth", primary_depth), ("alternate depth", alternate_depth),
                         ("instances", instances), ("maximum depth", max_depth)):
        if value is not None and value < 1:
            problems.append(f"{label} must be at least 1, not {value}")
    if problems:
        raise InputError([Problem(None, p) for p in problems])
    default_primary, default_alternate = Campaign.DEFAULT_DEPTHS[task]
    return Campaign.objects.create(
        name=name,
        task=task,
        collection=collection_get_or_create(name=collection_name) if collection_name else None,
        primary_depth=primary_depth or default_primary,
        alternate_depth=alternate_depth or default_alternate,
        instances=instances or 5,
        selection=selection or Campaign.Selection.RR_VOTE,
        seed=seed if seed is not None else 0,
        max_depth=max_depth or 1000,
        created_by=user,
    )


def topics_ingest(*, campaign: Campaign, path: str | os.PathLike, filename: str | None = None) -> dict:
    """Adds the topics of an ARQMath topic file to a campaign; topics already there are updated."""
    problems = Problems(file=filename or Path(path).name)
    with open_binary(path) as stream:
        records = topics_xml.read_topics(stream, problems, task=campaign.task)
    for r in records:
        fits(r.line, problems, None, ("topic number", r.topic_id), ("Formula_Id", r.formula_id))
    problems.raise_if_any()
    existing = {t.topic_id: t for t in campaign.topics.all()}
    created, updated = [], []
    for position, r in enumerate(records):
        values = {"position": position, "title": r.title, "question": r.question, "tags": r.tags,
                  "formula_id": r.formula_id, "latex": r.latex}
        topic = existing.get(r.topic_id)
        if topic is None:
            created.append(Topic(campaign=campaign, topic_id=r.topic_id, **values))
        elif any(getattr(topic, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(topic, k, v)
            updated.append(topic)
    Topic.objects.bulk_create(created, batch_size=1000)
    Topic.objects.bulk_update(updated, ["position", "title", "question", "tags", "formula_id", "latex"],
                              batch_size=1000)
    return {"created": len(created), "updated": len(updated), "total": len(records)}

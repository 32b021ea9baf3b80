"""The sample of a characterisation assignment: drawn from its topic's pool when the assignment is made, recounted
when the campaign's questions change (docs/judging.md, "Characterising answers")."""
from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from django.db.models import Count
from django.utils import timezone

from ir.problems import InputError
from judging.models import (
    Assignment,
    CharacterisationAnswer,
    CharacterisationQuestion,
    SampleItem,
)
from pooling.models import Campaign, PoolItem, Topic


def samples_recount(*, campaign: Campaign) -> None:
    """Marks each sample item of the campaign complete exactly when it has an answer to every question now (after
    a question was added or deleted)."""
    wanted = CharacterisationQuestion.objects.filter(campaign=campaign).count()
    answered = {(a, item): n for a, item, n in CharacterisationAnswer.objects.filter(assignment__campaign=campaign)
                .values_list("assignment_id", "item_id").annotate(n=Count("pk")).values_list("assignment_id",
                                                                                              "item_id", "n")}
    now, changed = timezone.now(), []
    for sample in SampleItem.objects.filter(assignment__campaign=campaign):
        complete = wanted > 0 and answered.get((sample.assignment_id, sample.item_id), 0) >= wanted
        if complete != (sample.completed_at is not None):
            sample.completed_at = now if complete else None
            changed.append(sample)
    SampleItem.objects.bulk_update(changed, ["completed_at"], batch_size=1000)


def sample_draw(*, item_ids: Iterable[str], size: int, seed: int, topic_id: str) -> list[str]:
    """`size` of the item ids (all of them when there are fewer), drawn at random from the campaign's seed and the
    topic's id: the same pool gives the same sample every time, to every assessor, and a larger sample holds the
    smaller one."""
    ordered = sorted(set(item_ids))
    random.Random(f"characterisation {seed} {topic_id}").shuffle(ordered)
    return ordered[:size]


def sample_plan(*, campaign: Campaign, topics: Sequence[Topic], sizes: Mapping[str, int]) -> dict[int, list[str]]:
    """Topic pk -> the item ids of its sample, in pool order (the pool's own seeded mix of Task 1 posts and Task 3
    answers), for a characterisation assignment of each topic. InputError when the campaign cannot be characterised
    (formulas, no question yet) or a topic has no pool."""
    problems = []
    if campaign.task != Campaign.Task.ANSWERS:
        problems.append(f"campaign '{campaign.name}' judges formulas: characterisation asks about answers")
    if not CharacterisationQuestion.objects.filter(campaign=campaign).exists():
        problems.append(f"campaign '{campaign.name}' has no characterisation question yet: add them first (say "
                        "ARQMath's two)")
    pools: dict[int, dict[str, int]] = {}
    for topic_pk, item_id, position in PoolItem.objects.filter(topic__in=topics).values_list(
            "topic_id", "item_id", "position"):
        pools.setdefault(topic_pk, {})[item_id] = position
    for topic in topics:
        if topic.pk not in pools:
            problems.append(f"topic {topic.topic_id} has no pool items: build the pools first")
    if problems:
        raise InputError(problems)
    plan = {}
    for topic in topics:
        pool = pools[topic.pk]
        drawn = sample_draw(item_ids=pool, size=sizes[topic.topic_id], seed=campaign.seed, topic_id=topic.topic_id)
        plan[topic.pk] = sorted(drawn, key=pool.__getitem__)
    return plan


def samples_create(*, assignments: Iterable[Assignment], plan: Mapping[int, list[str]]) -> int:
    """Stores the planned sample of each new characterisation assignment's topic; returns how many items."""
    rows = [SampleItem(assignment=a, item_id=item_id, number=n)
            for a in assignments for n, item_id in enumerate(plan[a.topic_id])]
    SampleItem.objects.bulk_create(rows, batch_size=5000)
    return len(rows)

"""The demo's assignments: load_demo (workflow.demo) calls demo_assign once it has made the demo campaigns, and
demo_delete before `load_demo --reset` deletes them."""
from __future__ import annotations

import random
from collections.abc import Callable

from django.db import transaction

from agreement.models import Adjudication, AdjudicationRevision
from characterisation.services import characterisation_assign, questions_arqmath
from judging.models import Assignment, CharacterisationAnswer, CharacterisationRevision, Judgment, JudgmentRevision
from judging.services import (
    GradeInput,
    assignments_create,
    campaign_rows_delete,
    judgment_submit,
)
from pooling.models import Campaign, PoolItem

# Items of the training round and of the dual topic the demo assessors have judged already, so that the agreement
# dashboard, the disagreement review and the progress page have something to show.
DEMO_JUDGED = 24
# How likely each demo assessor is to give an item its "true" grade (the others are one grade off, or SF/DK).
DEMO_CARE = (0.8, 0.6, 0.45)

# The answers campaign's characterisation (docs/judging.md): ARQMath-3's two questions and a sample of this many
# items of the topic at this position for this assessor (index), left for them to answer.
DEMO_CHARACTERISATION = (0, 0, 5)

# Per task: (assessor index, kind, round, topic positions in the topic file).
PLAN: dict[str, list[tuple[int, str, int | None, list[int]]]] = {
    Campaign.Task.ANSWERS: [
        (0, Assignment.Kind.OFFICIAL, None, [0, 1]),
        (1, Assignment.Kind.OFFICIAL, None, [2, 3]),
        (2, Assignment.Kind.OFFICIAL, None, [4, 5]),
        (0, Assignment.Kind.TRAINING, 1, [6]),
        (1, Assignment.Kind.TRAINING, 1, [6]),
        (2, Assignment.Kind.TRAINING, 1, [6]),
        (1, Assignment.Kind.DUAL, None, [0]),
    ],
    Campaign.Task.FORMULAS: [
        (0, Assignment.Kind.OFFICIAL, None, [0]),
        (1, Assignment.Kind.OFFICIAL, None, [1]),
        (2, Assignment.Kind.OFFICIAL, None, [2]),
    ],
}


@transaction.atomic
def demo_assign(*, campaigns: dict[str, Campaign], assessors: list, say: Callable[[str], None]) -> None:
    """Gives the demo assessors work in `campaigns` (task -> campaign), saying what it did through `say`. load_demo
    gives only the campaigns it has just created: the demo's work never lands in a campaign, or on an assignment,
    that existed before (an organizer's own training round stays unjudged by the demo)."""
    for task, campaign in campaigns.items():
        topic_ids = list(campaign.topics.order_by("position").values_list("topic_id", flat=True))
        created = []
        for index, kind, round_, positions in PLAN.get(task, []):
            if index >= len(assessors):
                continue
            wanted = [topic_ids[p] for p in positions if p < len(topic_ids)]
            if wanted:
                result = assignments_create(campaign=campaign, assessors=[assessors[index]], topic_ids=wanted,
                                            kind=kind, round=round_)
                created += result.created
        say(f"campaign '{campaign.name}': {len(created)} demo assignments created")
        if task == Campaign.Task.ANSWERS:
            judged = _demo_judge(created, assessors)
            say(f"campaign '{campaign.name}': {judged} demo judgments of the training round and the dual topic")
            _demo_characterisation(campaign, topic_ids, assessors, say)


def _demo_characterisation(campaign: Campaign, topic_ids: list[str], assessors: list,
                           say: Callable[[str], None]) -> None:
    """ARQMath-3's questions (MG, UI) and one characterisation assignment with a small sample, in a campaign the demo
    has just made (demo_assign's rule)."""
    index, position, size = DEMO_CHARACTERISATION
    if index >= len(assessors) or position >= len(topic_ids):
        return
    added = questions_arqmath(campaign=campaign)
    result = characterisation_assign(campaign=campaign, assessors=[assessors[index]], topic_ids=[topic_ids[position]],
                                     size=size)
    say(f"campaign '{campaign.name}': {len(added)} characterisation questions, {len(result.created)} "
        f"characterisation assignment of {size} answers (topic {topic_ids[position]})")


def _demo_grade(rng: random.Random, truth: int, care: float) -> GradeInput:
    roll = rng.random()
    if roll < care:
        return GradeInput(grade=str(truth))
    if roll < 0.96:
        return GradeInput(grade=str(min(3, max(0, truth + rng.choice((-1, 1))))))
    return GradeInput(grade="DK", comment="cannot tell without reading the whole thread")


def _demo_judge(created: list[Assignment], assessors) -> int:
    """The first DEMO_JUDGED items of each training and dual assignment the demo has just created, and the same
    items of the dual topic's official assignment, judged through the service (deterministic)."""
    topics = {a.topic_id for a in created if a.kind in (Assignment.Kind.TRAINING, Assignment.Kind.DUAL)}
    index = {user.pk: n for n, user in enumerate(assessors)}
    count = 0
    for a in created:
        if a.topic_id not in topics:
            continue
        rng = random.Random(f"{a.topic.topic_id}-{a.assessor.username}")
        care = DEMO_CARE[index[a.assessor.pk] % len(DEMO_CARE)]
        for item in PoolItem.objects.filter(topic=a.topic).order_by("position")[:DEMO_JUDGED]:
            truth = random.Random(f"{a.topic.topic_id}-{item.item_id}").choice((0, 0, 1, 1, 2, 3))
            result = judgment_submit(assignment_pk=a.pk, item_id=item.item_id, grades=[_demo_grade(rng, truth, care)],
                                     user=a.assessor, active_seconds=rng.uniform(20, 150), source="import")
            count += result.created
    return count


@transaction.atomic
def demo_delete(*, campaigns: list[Campaign]) -> None:
    """Only for load_demo --reset: the demo's judgments go with its campaigns, then the rest of each campaign's rows
    as any campaign delete removes them (services.campaign_rows_delete)."""
    AdjudicationRevision.objects.filter(adjudication__campaign__in=campaigns).delete()
    Adjudication.objects.filter(campaign__in=campaigns).delete()
    JudgmentRevision.objects.filter(judgment__assignment__campaign__in=campaigns).delete()
    Judgment.objects.filter(assignment__campaign__in=campaigns).delete()
    CharacterisationRevision.objects.filter(answer__assignment__campaign__in=campaigns).delete()
    CharacterisationAnswer.objects.filter(assignment__campaign__in=campaigns).delete()
    for campaign in campaigns:
        campaign_rows_delete(campaign=campaign)

"""The demo's assignments: load_demo (pooling) sends demo_loaded, and this gives the demo assessors work."""
from __future__ import annotations

from django.db import transaction

from pooling.models import Campaign

from .models import Assignment, ItemVisit, Judgment, JudgmentRevision
from .services import assignments_create

# Per task: (assessor index, kind, round, topic positions in the topic file).
PLAN = {
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
def demo_assign(sender, *, campaigns, assessors, say, **kwargs) -> None:
    for task, campaign in campaigns.items():
        topic_ids = list(campaign.topics.order_by("position").values_list("topic_id", flat=True))
        created = 0
        for index, kind, round_, positions in PLAN.get(task, []):
            if index >= len(assessors):
                continue
            wanted = [topic_ids[p] for p in positions if p < len(topic_ids)]
            if wanted:
                result = assignments_create(campaign=campaign, assessors=[assessors[index]], topic_ids=wanted,
                                            kind=kind, round=round_)
                created += len(result.created)
        say(f"campaign '{campaign.name}': {created} demo assignments created")


@transaction.atomic
def demo_delete(sender, *, campaigns, **kwargs) -> None:
    """Only for load_demo --reset: the demo's judgments go with its campaigns."""
    JudgmentRevision.objects.filter(judgment__assignment__campaign__in=campaigns).delete()
    Judgment.objects.filter(assignment__campaign__in=campaigns).delete()
    ItemVisit.objects.filter(assignment__campaign__in=campaigns).delete()
    Assignment.objects.filter(campaign__in=campaigns).delete()

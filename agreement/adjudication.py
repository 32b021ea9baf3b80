"""Writes of adjudication: the grade an organizer records for a unit of a training round or of the dual assessment
after the discussion, with a note and every revision kept. Assessors' judgments are only read (docs/agreement.md)."""
from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from agreement import reports
from agreement.models import Adjudication, AdjudicationRevision
from ir.problems import InputError
from judging import rules
from judging.models import Judgment
from pooling.models import Campaign, Topic


@dataclass(frozen=True)
class AdjudicationResult:
    adjudication: Adjudication
    changed: bool  # False: the same grade, note and official mark as recorded already (no new revision)


def _group(campaign: Campaign, kind: str, round_: int | None) -> reports.GroupKey:
    if kind not in (reports.TRAINING, reports.DUAL):
        raise InputError(f"unknown kind '{kind[:20]}': grades are adjudicated for a training round or the dual "
                         "assessment")
    kind, number = rules.kind_and_round(kind, round_)
    key = reports.GroupKey(kind, number if kind == reports.TRAINING else None)
    if key not in reports.agreement_groups(campaign=campaign):
        raise InputError(f"campaign '{campaign.name}' has no {key.label}")
    return key


@transaction.atomic
def adjudication_record(*, campaign: Campaign, kind: str, round: int | None = None, topic_id: str, item_id: str,
                        formula_id: str = "", grade: str, note: str = "", official: bool = False,
                        user: User) -> AdjudicationResult:
    """Records `grade` with `note` as the agreed grade of one unit (a post, or a formula instance) of a training
    round (kind training, `round`) or of the dual assessment (kind dual), the unit being one that an assessor of the
    group judged. A dual assessment's grade may be `official`: the official qrels then take it for the unit
    (evaluation.selectors). Recording again changes the grade and keeps the earlier one as a revision. InputError,
    with every problem, and nothing written, for anything else."""
    key = _group(campaign, kind, round)
    problems = rules.grade_problems(grade, note, scheme=campaign.judging_scheme)
    if official and key.kind != reports.DUAL:
        problems.append("only the dual assessment's grades can be made official; a training round's adjudicated "
                        "grades are exported as its own qrels")
    topic = Topic.objects.filter(campaign=campaign, topic_id=topic_id).first()
    if topic is None:
        problems.append(f"topic '{topic_id[:40]}' is not a topic of campaign '{campaign.name}'")
    elif not Judgment.objects.filter(assignment__in=reports.group_assignments(campaign=campaign, key=key),
                                     assignment__topic=topic, item_id=item_id, formula_id=formula_id).exists():
        what = f"{item_id[:64]}" + (f", instance {formula_id[:64]}" if formula_id else "")
        problems.append(f"no assessor of the {key.label} judged {what} of topic {topic_id}: only what was judged is "
                        "adjudicated")
    if problems:
        raise InputError(problems)
    assert topic is not None
    now = timezone.now()
    unit = {"campaign": campaign, "kind": key.kind, "round": reports.group_round(key), "topic": topic,
            "item_id": item_id, "formula_id": formula_id}
    current = Adjudication.objects.select_for_update(of=("self",)).filter(**unit).first()
    if current is None:
        try:
            with transaction.atomic():  # the same unit recorded at the same moment: the unique constraint decides
                current = Adjudication.objects.create(**unit, grade=grade, note=note, official=official, by=user,
                                                      at=now)
        except IntegrityError:
            current = Adjudication.objects.select_for_update(of=("self",)).get(**unit)
        else:
            _revision(current)
            return AdjudicationResult(current, True)
    if (current.grade, current.note, current.official) == (grade, note, official):
        return AdjudicationResult(current, False)
    current.grade, current.note, current.official = grade, note, official
    current.by, current.at, current.revision = user, now, current.revision + 1
    current.save(update_fields=["grade", "note", "official", "by", "at", "revision"])
    _revision(current)
    return AdjudicationResult(current, True)


def _revision(adjudication: Adjudication) -> None:
    AdjudicationRevision.objects.create(adjudication=adjudication, number=adjudication.revision, by=adjudication.by,
                                        at=adjudication.at, grade=adjudication.grade, note=adjudication.note,
                                        official=adjudication.official)


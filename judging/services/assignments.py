"""Writes of assignments: handing topics to assessors (then sending the judging cache warm-up), withdrawing, closing
topics, and what goes with a deleted campaign."""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from ir.problems import InputError, Problems
from judging import balancing, rules
from judging.models import Assignment, CharacterisationAnswer, CharacterisationQuestion, ItemVisit, Judgment, SampleItem
from judging.services.judging_cache import judging_cache_warm_task
from judging.services.samples import sample_plan, samples_create
from pooling.models import Campaign, Topic

log = logging.getLogger(__name__)



@dataclass
class AssignResult:
    created: list[Assignment]  # made now, and those given back (`revived`)
    existing: list[Assignment]
    revived: list[Assignment] = field(default_factory=list)  # withdrawn ones given back: their judgments and visits


@transaction.atomic
def assignments_create(*, campaign: Campaign, assessors: Sequence[User], topic_ids: Sequence[str],
                       kind: str = Assignment.Kind.OFFICIAL, round: int | None = None,
                       user: User | None = None, sample_sizes: Mapping[str, int] | None = None) -> AssignResult:
    """Gives every listed topic to every listed assessor. Assigning twice is harmless (the existing assignment is
    reported, not duplicated). Rejected as a whole: unknown topics, a second official assessor for a topic, a
    dual assignment for a topic nobody else judges officially. A characterisation assignment takes a sample of its
    topic's pool, `sample_sizes[topic id]` items (services.characterisation.sample_plan); one that exists already
    keeps its sample."""
    kind, round_ = rules.kind_and_round(kind, round)
    if (kind == Assignment.Kind.CHARACTERISATION) != (sample_sizes is not None):
        raise InputError("a characterisation assignment is made with a sample size (the Characterisation page, "
                         "`characterise`), and only it" if sample_sizes is None else
                         f"a sample size is for characterisation assignments, not for {kind}")
    if not assessors:
        raise InputError("no assessor given")
    if not topic_ids:
        raise InputError("no topic given")
    topics = campaign_topics(campaign=campaign, topic_ids=topic_ids)
    plan = None
    if sample_sizes is not None:
        sizes = rules.characterisation_sizes(list(dict.fromkeys(topic_ids)), None, sample_sizes)
        plan = sample_plan(campaign=campaign, topics=list(topics.values()), sizes=sizes)
    pairs = [(assessor, topics[topic_id]) for topic_id in dict.fromkeys(topic_ids) for assessor in assessors]
    return pairs_create(campaign=campaign, pairs=pairs, kind=kind, round_=round_, user=user, plan=plan)


def campaign_topics(*, campaign: Campaign, topic_ids: Sequence[str]) -> dict[str, Topic]:
    """The campaign's topics of these ids; InputError naming every id that is not one."""
    topics = {t.topic_id: t for t in Topic.objects.filter(campaign=campaign, topic_id__in=set(topic_ids))}
    problems = Problems()
    for topic_id in dict.fromkeys(topic_ids):
        if topic_id not in topics:
            problems.add(None, f"topic '{topic_id}' is not a topic of campaign '{campaign.name}'")
    problems.raise_if_any()
    return topics


def pairs_create(*, campaign: Campaign, pairs: Sequence[tuple[User, Topic]], kind: str, round_: int,
                 user: User | None, plan: dict[int, list[str]] | None = None,
                 located: Callable[[User, Topic, str], tuple[int | None, str]] | None = None) -> AssignResult:
    """Gives each topic of `pairs` to its assessor (see assignments_create); rejected as a whole. `located` gives a
    refused pair's problem its line and message (judgments_import: the pair's first line in the file)."""
    problems = Problems()

    def refuse(assessor: User, topic: Topic, message: str) -> None:
        problems.add(*(located(assessor, topic, message) if located else (None, message)))

    topics = {topic.pk: topic for _, topic in pairs}
    active = Assignment.objects.filter(topic__in=topics.values(), withdrawn_at__isnull=True)
    official = {a.topic_id: a for a in active.filter(kind=Assignment.Kind.OFFICIAL).select_related("assessor")}
    dual = set(active.filter(kind=Assignment.Kind.DUAL).values_list("topic_id", "assessor_id"))
    closed = set(active.filter(closed_at__isnull=False).values_list("topic_id", flat=True))
    existing = {(a.topic_id, a.assessor_id): a for a in active.filter(kind=kind, round=round_)}
    # A withdrawn assignment given back to the same assessor comes back with its judgments.
    withdrawn = {(a.topic_id, a.assessor_id): a for a in Assignment.objects.filter(
        topic__in=topics.values(), kind=kind, round=round_, withdrawn_at__isnull=False).order_by("withdrawn_at")}
    created, kept, revived = [], [], []
    for assessor, topic in pairs:
        topic_id = topic.topic_id
        if (topic.pk, assessor.pk) in existing:
            kept.append(existing[(topic.pk, assessor.pk)])
            continue
        owner = official.get(topic.pk)
        if kind == Assignment.Kind.OFFICIAL and (topic.pk, assessor.pk) in dual:
            refuse(assessor, topic, f"{assessor} judges topic {topic_id} as the dual assessor: the official and the "
                                    "dual judging must be by different assessors")
            continue
        if kind == Assignment.Kind.OFFICIAL and owner is not None:
            refuse(assessor, topic, f"topic {topic_id} is already assigned officially to {owner.assessor}; "
                                    "withdraw that assignment first")
            continue
        if kind == Assignment.Kind.DUAL and (owner is None or owner.assessor_id == assessor.pk):
            reason = ("has no official assessor yet" if owner is None
                      else f"is judged officially by {assessor} already")
            refuse(assessor, topic, f"topic {topic_id} {reason}: a dual assessment is a second, independent "
                                    "judging by another assessor")
            continue
        assignment = withdrawn.get((topic.pk, assessor.pk))
        if assignment is not None:
            assignment.withdrawn_at = None
            revived.append(assignment)
        else:
            assignment = Assignment(campaign=campaign, topic=topic, assessor=assessor, kind=kind,
                                    round=round_, created_by=user)
            created.append(assignment)
        # A closed topic stays closed for whoever joins it.
        assignment.closed_at = timezone.now() if topic.pk in closed else None
        if kind == Assignment.Kind.OFFICIAL:
            official[topic.pk] = assignment
    problems.raise_if_any()
    try:
        with transaction.atomic():
            Assignment.objects.bulk_create(created)
            if plan is not None:
                samples_create(assignments=created, plan=plan)
            for assignment in revived:
                assignment.save(update_fields=["withdrawn_at", "closed_at"])
    except IntegrityError:
        # Another organizer assigned the same topic at the same moment: the constraint kept it single.
        raise InputError("these topics were assigned by someone else meanwhile; reload and try again") from None
    given = created + revived
    if given and settings.JUDGING_CACHE_WARM:
        transaction.on_commit(lambda: _judging_cache_warm_enqueue([a.pk for a in given]))
    return AssignResult(created=given, existing=kept, revived=revived)


@transaction.atomic
def assignments_balance(*, campaign: Campaign, assessors: Sequence[User], topic_ids: Sequence[str], per_topic: int,
                        kind: str = Assignment.Kind.OFFICIAL, round: int | None = None,
                        user: User | None = None) -> AssignResult:
    """Brings every listed topic up to `per_topic` assessors of this kind (and round), handing it round-robin to the
    listed assessors, least-loaded first (balancing.balanced_pairs; docs/judging.md, "Assigning at scale"). An
    assessor's load is what they hold of this kind and round in the campaign; a topic's holders count toward its N,
    whoever they are, and none is given twice. Rejected as a whole, as assignments_create is, and when a topic
    cannot reach N from the assessors chosen. `existing`: what the topics' holders held already."""
    kind, round_ = rules.kind_and_round(kind, round)
    if kind == Assignment.Kind.CHARACTERISATION:
        raise InputError("a characterisation assignment is made with a sample size (the Characterisation page, "
                         "`characterise`), not balanced")
    if not assessors:
        raise InputError("no assessor given")
    if not topic_ids:
        raise InputError("no topic given")
    if per_topic < 1:
        raise InputError("assessors per topic is a number from 1")
    if kind == Assignment.Kind.OFFICIAL and per_topic != 1:
        raise InputError("a topic has one official assessor: assessors per topic is 1 for official assignments")
    chosen = {a.username: a for a in assessors}
    if per_topic > len(chosen):
        raise InputError(f"{per_topic} assessors per topic, but {len(chosen)} chosen: choose at least {per_topic}")
    topics = campaign_topics(campaign=campaign, topic_ids=topic_ids)
    # One balancing of the campaign at a time: two at once would both count the same loads and holders.
    Campaign.objects.select_for_update().filter(pk=campaign.pk).exists()
    active = Assignment.objects.filter(campaign=campaign, withdrawn_at__isnull=True)
    held = list(active.filter(kind=kind, round=round_).select_related("assessor", "topic"))
    # The official and the dual judging of a topic are by different assessors.
    opposite: dict[str, str] = {Assignment.Kind.OFFICIAL: Assignment.Kind.DUAL,
                                Assignment.Kind.DUAL: Assignment.Kind.OFFICIAL}
    other = opposite.get(kind)
    barred = set(active.filter(kind=other).values_list("assessor__username", "topic__topic_id")) if other else set()
    wanted = list(dict.fromkeys(topic_ids))  # in the order given (the grid's), not the database's
    pairs = balancing.balanced_pairs(topics=wanted, assessors=list(chosen), per_topic=per_topic,
                           held=[(a.assessor.username, a.topic.topic_id) for a in held], barred=barred)
    count = {topic_id: 0 for topic_id in topics}
    for a in held:
        count[a.topic.topic_id] = count.get(a.topic.topic_id, 0) + 1
    for _, topic_id in pairs:
        count[topic_id] += 1
    problems = Problems()
    for topic_id in wanted:
        if count[topic_id] < per_topic:
            problems.add(None, f"topic {topic_id} would have {count[topic_id]} {kind} assessor(s) of {per_topic}: "
                               "the other assessors chosen judge it already in another way; choose more")
    problems.raise_if_any()
    result = pairs_create(campaign=campaign, pairs=[(chosen[a], topics[t]) for a, t in pairs], kind=kind,
                          round_=round_, user=user)
    result.existing = [a for a in held if a.topic.topic_id in topics]
    return result




def _judging_cache_warm_enqueue(assignment_pks: list[int]) -> None:
    # Only a head start for the pages (a page sanitizes what it misses): a broker or cache that is down must not
    # turn an assignment that was made into an error.
    try:
        judging_cache_warm_task.delay(assignment_pks)
    except Exception:
        log.exception("the judging cache warm-up of assignments %s could not run", assignment_pks)


@transaction.atomic
def assignment_withdraw(*, assignment: Assignment) -> str:
    """Takes a topic away from an assessor. An assignment with no work is deleted; one with judgments is kept,
    read-only, with all of them (nothing submitted is ever deleted). Returns "deleted" or "withdrawn"."""
    assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if not assignment.judgments.exists() and not assignment.characterisations.exists():
        assignment.visits.all().delete()
        assignment.sample.all().delete()
        assignment.delete()
        return "deleted"
    if assignment.withdrawn_at is None:
        assignment.withdrawn_at = timezone.now()
        assignment.save(update_fields=["withdrawn_at"])
    return "withdrawn"


@transaction.atomic
def topic_close(*, topic: Topic, closed: bool = True) -> int:
    """Closes (or reopens) a topic for all its assessors: closed assignments are read-only. Returns how many."""
    assignments = Assignment.objects.filter(topic=topic, withdrawn_at__isnull=True)
    if closed:
        return assignments.filter(closed_at__isnull=True).update(closed_at=timezone.now())
    return assignments.exclude(closed_at__isnull=True).update(closed_at=None)


def campaign_rows_delete(*, campaign: Campaign) -> None:
    """Before a campaign is deleted (services.pools.campaign_delete): its assignments (and what each assessor was
    shown) and its characterisation samples and questions go with it; its training rounds go with the campaign's
    row (agreement/models.py). Refused if any judgment exists: nothing an assessor submitted is
    ever deleted (campaign_delete checks first, under the campaign's lock; this is the check where the judgments
    live)."""
    # A submit locks its assignment's row first (judgment_submit, characterisation_submit): with every assignment of
    # the campaign locked here, the check below waits for a submit in progress and sees its judgment, and a later
    # submit waits for this delete and finds its assignment gone (a 404), never a half-deleted campaign.
    list(Assignment.objects.select_for_update().filter(campaign=campaign).values_list("pk", flat=True))
    if (Judgment.objects.filter(assignment__campaign=campaign).exists()
            or CharacterisationAnswer.objects.filter(assignment__campaign=campaign).exists()):
        raise InputError(f"campaign '{campaign.name}' has judgments and is kept: nothing an assessor submitted is "
                         "ever deleted")
    SampleItem.objects.filter(assignment__campaign=campaign).delete()
    CharacterisationQuestion.objects.filter(campaign=campaign).delete()
    ItemVisit.objects.filter(assignment__campaign=campaign).delete()
    Assignment.objects.filter(campaign=campaign).delete()

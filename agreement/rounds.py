"""Training rounds (docs/agreement.md): an organizer sets up round R of a campaign with chosen topics, an optional gold
qrels to measure each assessor against, and the assessors who take it, in one step."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from agreement.models import GoldJudgment, TrainingRound
from core.bounds import column_bounds
from ir.formats.qrels import read_qrels
from ir.problems import InputError, Problems
from judging.models import Assignment
from judging.selectors import campaign_assignments
from judging.services import AssignResult, assignments_create
from pooling.models import Campaign, Topic

GOLD_GRADES = range(0, 4)
_NUMBER = column_bounds(TrainingRound, "number", min_value=1)


def training_round_number_check(number: int | None) -> int | None:
    """The round's number as the page, the API and the service take it (None: the next round); InputError
    otherwise, with one message wherever it is given."""
    if number is not None and not _NUMBER["min_value"] <= number <= _NUMBER["max_value"]:
        raise InputError(f"a training round is a number from {_NUMBER['min_value']} to {_NUMBER['max_value']}")
    return number


@dataclass
class RoundResult:
    round: TrainingRound
    assignments: AssignResult
    gold: int = 0              # gold qrels lines kept (topics of the round)
    gold_other_topics: int = 0  # lines for topics that are not in the round, left out


def training_round_next(*, campaign: Campaign) -> int:
    """The number the next round gets: one more than any round set up or assigned so far."""
    set_up = TrainingRound.objects.filter(campaign=campaign).aggregate(n=Max("number"))["n"] or 0
    assigned = (Assignment.objects.filter(campaign=campaign, kind=Assignment.Kind.TRAINING)
                .aggregate(n=Max("round"))["n"] or 0)
    return max(set_up, assigned) + 1


def _read_gold(stream: BinaryIO, topics: dict[str, Topic], filename: str) -> tuple[list[tuple[Topic, str, int]], int]:
    problems = Problems(file=filename)
    kept, other = [], 0
    for record in read_qrels(stream, problems):
        if record.mark is not None:
            continue  # SF or DK (5, 6 in a complete qrels file): no grade to measure an assessor against
        if record.grade not in GOLD_GRADES:
            problems.add(record.line, f"grade {record.grade} is not a grade of 0 to 3")
            continue
        topic = topics.get(record.topic_id)
        if topic is None:
            other += 1
            continue
        kept.append((topic, record.item_id, record.grade))
    if not problems and not kept:
        problems.add(None, "no line of the gold qrels is for a topic of this round (" + ", ".join(topics) + ")")
    problems.raise_if_any()
    return kept, other


@transaction.atomic
def training_round_create(*, campaign: Campaign, topic_ids: Sequence[str], assessors: Sequence[User],
                          number: int | None = None, gold: BinaryIO | None = None, gold_name: str = "",
                          user: User | None = None) -> RoundResult:
    """Creates round `number` (default: the next one) with these topics, reads the gold qrels if given (TREC qrels,
    grades 0 to 3; Task 2 by visual id; lines for other topics are left out and counted) and gives every topic to
    every assessor as a training assignment of that round. Rejected as a whole, with every problem."""
    number = training_round_number_check(number)
    if number is None:
        number = training_round_next(campaign=campaign)
    if TrainingRound.objects.filter(campaign=campaign, number=number).exists():
        raise InputError(f"round {number} of campaign '{campaign.name}' exists already: give its topics to more "
                         "assessors on the Assignments page (kind training, this round)")
    wanted = list(dict.fromkeys(topic_ids))
    topics = {t.topic_id: t for t in Topic.objects.filter(campaign=campaign, topic_id__in=wanted)}
    missing = [t for t in wanted if t not in topics]
    if missing:
        raise InputError([f"topic '{t}' is not a topic of campaign '{campaign.name}'" for t in missing])
    if not wanted:
        raise InputError("no topic given: a round needs at least one topic")
    gold_rows: list[tuple[Topic, str, int]] = []
    other = 0
    if gold is not None:
        gold_rows, other = _read_gold(gold, {t: topics[t] for t in wanted}, gold_name or "gold qrels")
    training_round = TrainingRound.objects.create(campaign=campaign, number=number,
                                                  gold_name=(gold_name or "gold qrels") if gold is not None else "",
                                                  created_by=user)
    training_round.topics.set([topics[t] for t in wanted])
    GoldJudgment.objects.bulk_create([GoldJudgment(round=training_round, topic=topic, item_id=item_id, grade=grade)
                                      for topic, item_id, grade in gold_rows], batch_size=5000)
    assigned = assignments_create(campaign=campaign, assessors=assessors, topic_ids=wanted,
                                  kind=Assignment.Kind.TRAINING, round=number, user=user)
    return RoundResult(round=training_round, assignments=assigned, gold=len(gold_rows), gold_other_topics=other)


@dataclass
class RoundSummary:
    number: int
    topics: list[str]
    assessors: list[str]
    done: int
    total: int
    gold_name: str
    gold: int
    set_up: bool  # created as a round (not only through training assignments)


def training_round_list(*, campaign: Campaign) -> list[RoundSummary]:
    """Every training round of the campaign with its topics, assessors and progress (items judged of all)."""
    rounds: dict[int, RoundSummary] = {}
    for r in TrainingRound.objects.filter(campaign=campaign).prefetch_related("topics"):
        rounds[r.number] = RoundSummary(r.number, [t.topic_id for t in r.topics.order_by("position")], [], 0, 0,
                                        r.gold_name, r.gold.count(), True)
    for a in campaign_assignments(campaign=campaign).filter(kind=Assignment.Kind.TRAINING, withdrawn_at__isnull=True):
        summary = rounds.setdefault(a.round, RoundSummary(a.round, [], [], 0, 0, "", 0, False))
        if a.topic.topic_id not in summary.topics:
            summary.topics.append(a.topic.topic_id)
        if a.assessor.username not in summary.assessors:
            summary.assessors.append(a.assessor.username)
        summary.done += a.done
        summary.total += a.total
    for summary in rounds.values():
        summary.assessors.sort()
    return [rounds[n] for n in sorted(rounds)]

"""Reads of characterisation (docs/judging.md, "Characterising answers"): an assessor's page of one sample item with
its questions, the next item to answer, and the per-run report (the fraction of each run's characterised answers
marked yes to each question: ARQMath-3's MG and UI; docs/evaluation.md)."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.contrib.auth.models import User

from ir.prime import MEAN, format_value
from judging.models import Assignment, CharacterisationAnswer, CharacterisationQuestion, SampleItem
from judging.selectors import ItemShown, Progress, item_as_shown, with_progress
from pooling.models import Campaign, PoolItem, Run

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    from judging.selectors import ProgressCounts


def questions_of(campaign: Campaign) -> list[CharacterisationQuestion]:
    return list(CharacterisationQuestion.objects.filter(campaign=campaign))


@dataclass
class CharacterisationPage:
    """One item of an assessor's own characterisation assignment as its page shows it."""
    assignment: Assignment              # with its campaign and topic
    sample: SampleItem
    item: PoolItem                      # unsaved when a forced pool rebuild has dropped it (answers show by id)
    shown: ItemShown
    questions: list[CharacterisationQuestion]
    answers: dict[str, bool]            # label -> the assessor's answer so far
    progress: Progress
    previous: int | None                # number of the sample item before, for "back"


def own_characterisation(*, user: User, assignment_pk: int) -> WithAnnotations[Assignment, ProgressCounts] | None:
    """The user's own characterisation assignment (with campaign, topic and progress), else None."""
    return with_progress(Assignment.objects.filter(pk=assignment_pk, assessor=user,
                                                   kind=Assignment.Kind.CHARACTERISATION)
                         .select_related("campaign", "topic")).first()


def characterisation_page(*, user: User, assignment_pk: int, number: int) -> CharacterisationPage | None:
    """Sample item `number` of the user's own characterisation assignment; None when the assignment is not theirs
    (nobody reaches another assessor's work) or its sample has no such item."""
    assignment = own_characterisation(user=user, assignment_pk=assignment_pk)
    if assignment is None:
        return None
    samples = list(SampleItem.objects.filter(assignment=assignment, number__lte=number).order_by("-number")[:2])
    if not samples or samples[0].number != number:
        return None
    sample, *before = samples
    item = (PoolItem.objects.filter(topic_id=assignment.topic_id, item_id=sample.item_id).first()
            or PoolItem(campaign=assignment.campaign, topic=assignment.topic, item_id=sample.item_id, position=0))
    labels = dict(CharacterisationQuestion.objects.filter(campaign=assignment.campaign).values_list("pk", "label"))
    answers = {labels[q]: a for q, a in CharacterisationAnswer.objects.filter(
        assignment=assignment, item_id=sample.item_id).values_list("question_id", "answer")}
    return CharacterisationPage(assignment=assignment, sample=sample, item=item,
                                shown=item_as_shown(campaign=assignment.campaign, item=item),
                                questions=questions_of(assignment.campaign), answers=answers,
                                progress=Progress(done=assignment.done, total=assignment.total),
                                previous=before[0].number if before else None)


def characterisation_next(*, assignment: Assignment, after: int | None = None) -> SampleItem | None:
    """The first sample item not yet answered in full after number `after` (from the start when None, wrapping
    around); None when every item is."""
    left = SampleItem.objects.filter(assignment=assignment, completed_at__isnull=True).order_by("number")
    return (left.filter(number__gt=after).first() if after is not None else None) or left.first()


# -- the per-run report


@dataclass
class RunCharacterisation:
    run: str
    fractions: dict[str, float | None]  # label -> share of the run's characterised items answered yes (None: none)
    items: dict[str, int]               # label -> the run's items with an answer to that question

    def columns(self) -> list[tuple[float | None, int]]:
        """(fraction, items) of each question, in the questions' order."""
        return [(fraction, self.items[label]) for label, fraction in self.fractions.items()]


@dataclass
class CharacterisationReport:
    questions: list[CharacterisationQuestion]
    topics: list[str]                   # the topics with at least one answer
    runs: list[RunCharacterisation]     # every run of the campaign, by name

    @property
    def labels(self) -> list[str]:
        return [q.label for q in self.questions]

    def of(self, run: str) -> RunCharacterisation | None:
        return next((r for r in self.runs if r.run == run), None)

    def fractions_of(self, run: str) -> dict[str, float | None]:
        """label -> the run's fraction (None: none of its items characterised, or no such run), every question."""
        found = self.of(run)
        return {label: found.fractions[label] if found else None for label in self.labels}


def characterisation_report(*, campaign: Campaign) -> CharacterisationReport:
    """Per run and question: of the run's pool items (those it contributed within its pool depth, the pool's
    provenance) in the characterised topics that have an answer to the question, the share answered yes. An item
    answered by several assessors counts once, as the share of them who said yes. Answers of withdrawn assignments
    are left out."""
    questions = questions_of(campaign)
    labels = [q.label for q in questions]
    votes: dict[tuple[int, str], dict[str, list[bool]]] = {}
    for topic_pk, item_id, label, answer in CharacterisationAnswer.objects.filter(
            assignment__campaign=campaign, assignment__withdrawn_at__isnull=True).values_list(
            "assignment__topic_id", "item_id", "question__label", "answer"):
        votes.setdefault((topic_pk, item_id), {}).setdefault(label, []).append(answer)
    topics = {topic_pk for topic_pk, _item in votes}
    yes: dict[str, dict[str, float]] = {}
    counted: dict[str, dict[str, int]] = {}
    for topic_pk, item_id, provenance in PoolItem.objects.filter(topic_id__in=topics).values_list(
            "topic_id", "item_id", "provenance"):
        for label, answers in votes.get((topic_pk, item_id), {}).items():
            share = sum(answers) / len(answers)
            for run_name, _rank in provenance:
                yes.setdefault(run_name, {}).setdefault(label, 0.0)
                yes[run_name][label] += share
                counted.setdefault(run_name, {}).setdefault(label, 0)
                counted[run_name][label] += 1
    names = Run.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True)
    runs = []
    for name in names:
        n = counted.get(name, {})
        runs.append(RunCharacterisation(
            run=name, items={label: n.get(label, 0) for label in labels},
            fractions={label: yes[name][label] / n[label] if n.get(label) else None for label in labels}))
    topic_names = list(campaign.topics.filter(pk__in=topics).order_by("position").values_list("topic_id", flat=True))
    return CharacterisationReport(questions=questions, topics=topic_names, runs=runs)


# The report as `evaluate --campaign` and the API's TSV write it.
PREFIX = "char:"  # the measure column: char:MG, char:UI


def characterisation_lines(report: CharacterisationReport) -> Iterator[str]:
    """run<TAB>char:LABEL<TAB>all<TAB>fraction (four decimals; n/a for a run none of whose items was characterised),
    for each run and question; nothing when no topic was characterised."""
    if not report.topics:
        return
    for run in report.runs:
        for label in report.labels:
            yield f"{run.run}\t{PREFIX}{label}\t{MEAN}\t{format_value(run.fractions[label])}\n"

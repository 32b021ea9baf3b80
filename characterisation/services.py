"""Writes of characterisation (docs/judging.md, "Characterising answers"): a campaign's yes/no questions, the sample
of a characterisation assignment, and the assessors' answers with every revision."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from ir.problems import InputError
from judging import rules
from judging.models import (
    Assignment,
    CharacterisationAnswer,
    CharacterisationQuestion,
    CharacterisationRevision,
    SampleItem,
)
from judging.services.assignments import AssignResult, assignments_create
from judging.services.judgments import SubmitResult
from judging.services.samples import samples_recount
from pooling.models import Campaign

# ARQMath-3's two questions, in its tables' order (MG, UI): what "Add ARQMath's questions" adds.
ARQMATH_QUESTIONS = (
    ("MG", "Was this answer machine-generated?"),
    ("UI", "Does it contain information unrelated to the question?"),
)


# -- questions


@transaction.atomic
def question_add(*, campaign: Campaign, label: str, text: str) -> CharacterisationQuestion:
    """Adds a yes/no question after the campaign's others. Items already answered in full are no longer complete
    (the new question has no answer yet)."""
    label, text = label.strip(), " ".join(text.split())
    problems = rules.question_problems(label, text)
    if campaign.task != Campaign.Task.ANSWERS:
        problems.append(f"campaign '{campaign.name}' judges formulas: characterisation asks about answers")
    if CharacterisationQuestion.objects.filter(campaign=campaign, label=label).exists():
        problems.append(f"campaign '{campaign.name}' has a question labelled {label} already")
    if problems:
        raise InputError(problems)
    last = CharacterisationQuestion.objects.filter(campaign=campaign).aggregate(n=Max("position"))["n"]
    try:
        with transaction.atomic():
            question = CharacterisationQuestion.objects.create(campaign=campaign, label=label, text=text,
                                                               position=0 if last is None else last + 1)
    except IntegrityError:
        raise InputError(f"a question labelled {label} was added meanwhile") from None
    samples_recount(campaign=campaign)
    return question


@transaction.atomic
def questions_arqmath(*, campaign: Campaign) -> list[CharacterisationQuestion]:
    """Adds ARQMath-3's two questions (MG, UI) that the campaign does not have yet; returns those added."""
    have = set(CharacterisationQuestion.objects.filter(campaign=campaign).values_list("label", flat=True))
    return [question_add(campaign=campaign, label=label, text=text)
            for label, text in ARQMATH_QUESTIONS if label not in have]


@transaction.atomic
def question_delete(*, question: CharacterisationQuestion) -> None:
    """Deletes a question nobody has answered (an answer is never deleted); items may become complete."""
    if question.answers.exists():
        raise InputError(f"question {question.label} has answers and is kept: nothing an assessor submitted is ever "
                         "deleted")
    campaign = question.campaign
    question.delete()
    samples_recount(campaign=campaign)




# -- samples








# -- answers


@transaction.atomic
def characterisation_submit(*, assignment_pk: int, item_id: str, answers: Mapping[str, object], user: User,
                            source: str = "web") -> SubmitResult:
    """Saves the assessor's yes/no answers (by question label) about one item of their sample. Some questions may
    be left for later; the item is complete once every question has an answer. Resubmitting an answer changes
    nothing; a different one is a new revision.

    Assignment.DoesNotExist when the assignment is not the user's characterisation assignment, SampleItem.DoesNotExist
    when the item is not in its sample (a 404 to the page and the API); InputError for answers refused or a closed
    topic."""
    # One submission of an assignment at a time (as judgment_submit): the completeness read below stays true.
    assignment = (Assignment.objects.select_for_update(of=("self",)).select_related("campaign")
                  .get(pk=assignment_pk, assessor=user, kind=Assignment.Kind.CHARACTERISATION))
    if assignment.read_only:
        raise InputError("this topic is closed: its answers can no longer be changed")
    sample = SampleItem.objects.get(assignment=assignment, item_id=item_id)
    questions = {q.label: q for q in CharacterisationQuestion.objects.filter(campaign=assignment.campaign)}
    given = rules.characterisation_answers(answers, set(questions))
    now = timezone.now()
    existing = {a.question_id: a for a in CharacterisationAnswer.objects.filter(assignment=assignment,
                                                                                 item_id=item_id)}
    result = SubmitResult()
    revisions = []
    for label, value in given.items():
        question = questions[label]
        answer = existing.get(question.pk)
        if answer is None:
            answer = CharacterisationAnswer.objects.create(assignment=assignment, item_id=item_id, question=question,
                                                           answer=value, submitted_at=now, updated_at=now)
            existing[question.pk] = answer
            revisions.append(CharacterisationRevision(answer=answer, number=1, user=user, at=now, new=value,
                                                      source=source))
            result.created += 1
        elif answer.answer == value:
            result.unchanged += 1
        else:
            revisions.append(CharacterisationRevision(answer=answer, number=answer.revision + 1, user=user, at=now,
                                                      old=answer.answer, new=value, source=source))
            answer.answer, answer.revision, answer.updated_at = value, answer.revision + 1, now
            answer.save(update_fields=["answer", "revision", "updated_at"])
            result.revised += 1
    CharacterisationRevision.objects.bulk_create(revisions)
    result.complete = {q.pk for q in questions.values()} <= set(existing)
    if result.complete and sample.completed_at is None:
        sample.completed_at = now
        sample.save(update_fields=["completed_at"])
    return result


def characterisation_assign(*, campaign: Campaign, assessors: Sequence[User], topic_ids: Sequence[str],
                            size: int | None = None, sizes: Mapping[str, int] | None = None,
                            user: User | None = None) -> AssignResult:
    """Characterisation assignments (assignments_create): each topic's sample takes `sizes[topic id]` items, else
    `size`."""
    sample_sizes = rules.characterisation_sizes(list(dict.fromkeys(topic_ids)), size, sizes or {})
    return assignments_create(campaign=campaign, assessors=assessors, topic_ids=topic_ids,
                              kind=Assignment.Kind.CHARACTERISATION, user=user, sample_sizes=sample_sizes)

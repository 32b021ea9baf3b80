"""Writes of support judging (docs/nuggets.md, "Support judging"): support assignments, an answer's support labels
against the nuggets of a frozen bank, a sentence's labels by its citations, each change a revision, each submit
key answered once; and nuggetizer's assign output imported as an official assignment's labels."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import BinaryIO

from django.db import IntegrityError, transaction
from django.utils import timezone

from ir.formats.nuggets import read_nugget_assignments
from ir.problems import InputError, Problems
from nuggets.models import (
    BankVersion,
    CitationJudgment,
    CitationLabel,
    CitationRevision,
    SupportAssignment,
    SupportJudgment,
    SupportLabel,
    SupportReceipt,
    SupportRevision,
)
from nuggets.selectors import bank_entries, latest_version
from nuggets.services.bank import bank_freeze
from pooling.models import AnswerSentence, Campaign, Run, RunAnswer, Topic

SUBMIT_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")  # the judging page's outbox keys (judge-outbox.js)
SPAN_MAX = 2000
CLOSED = "this assignment is closed or withdrawn: its labels can be read, no longer changed"
SOURCES = ("web", "api", "import", "llm")
MODEL_MAX = 200  # SupportJudgment.model's length


@dataclass
class SubmitResult:
    """What one submit did: labels created, revised, left as they were; `complete` when every unit of the answer
    (nugget, or sentence and citation) has a label; `revision` the answer's revision after it (the sum of its
    labels' revisions), `repeated` when the key had been seen and nothing was written."""
    created: int = 0
    revised: int = 0
    unchanged: int = 0
    complete: bool = False
    revision: int = 0
    repeated: bool = False

    def as_dict(self, answer_pk: int) -> dict:
        return {"saved": True, "answer": answer_pk, "created": self.created, "revised": self.revised,
                "unchanged": self.unchanged, "complete": self.complete, "revision": self.revision,
                "repeated": self.repeated}


def _single(problems: list[str]) -> InputError:
    return InputError(problems[0] if len(problems) == 1 else "; ".join(problems))


# -- assignments


def _answers(topic: Topic):
    return RunAnswer.objects.filter(topic=topic, run__campaign_id=topic.campaign_id)


@transaction.atomic
def support_assign(*, campaign: Campaign, topic: Topic, assessor, task: str = SupportAssignment.Task.NUGGETS,
                   kind: str = SupportAssignment.Kind.OFFICIAL, round: int | None = None,
                   by=None) -> tuple[SupportAssignment, bool]:
    """The topic's answers given to `assessor` to judge (nuggets: against the topic's bank, frozen now; citations:
    sentence by sentence). Returns (assignment, created): assigning twice is harmless. InputError for a topic of
    another campaign, one without answers, an empty bank, a second official assignment, a bad task or kind."""
    problems = []
    if topic.campaign_id != campaign.pk:
        problems.append(f"topic {topic.topic_id} is not a topic of campaign {campaign.name}")
    if task not in SupportAssignment.Task.values:
        problems.append(f"task '{task}' is not one of: {', '.join(SupportAssignment.Task.values)}")
    if kind not in SupportAssignment.Kind.values:
        problems.append(f"kind '{kind}' is not one of: {', '.join(SupportAssignment.Kind.values)}")
    if round is not None and round < 0:
        problems.append("the round is a whole number from 1")
    if problems:
        raise _single(problems)
    number = (round or 1) if kind == SupportAssignment.Kind.TRAINING else 0
    if not _answers(topic).exists():
        raise InputError(f"topic {topic.topic_id} has no answers to judge: ingest answer runs first")
    existing = SupportAssignment.objects.filter(topic=topic, assessor=assessor, task=task, kind=kind, round=number,
                                                withdrawn_at__isnull=True).first()
    if existing is not None:
        return existing, False
    if kind == SupportAssignment.Kind.OFFICIAL:
        holder = SupportAssignment.objects.filter(topic=topic, task=task, kind=kind,
                                                  withdrawn_at__isnull=True).select_related("assessor").first()
        if holder is not None:
            raise InputError(f"topic {topic.topic_id}: {holder.assessor.username} holds its official {task} "
                             "assignment: withdraw it first, or assign a dual one")
    bank = None
    if task == SupportAssignment.Task.NUGGETS:
        bank = bank_freeze(topic=topic, user=by)
        if not bank.nuggets:
            raise InputError(f"topic {topic.topic_id} has no nuggets in its bank: write or import them first")
    try:
        with transaction.atomic():
            made = SupportAssignment.objects.create(campaign=campaign, topic=topic, assessor=assessor, task=task,
                                                    kind=kind, round=number, bank=bank, created_by=by)
    except IntegrityError:  # the same assignment made at the same moment by another request
        raise InputError(f"topic {topic.topic_id}: this assignment was just made elsewhere; reload") from None
    return made, True


@transaction.atomic
def support_withdraw(*, assignment: SupportAssignment) -> SupportAssignment:
    """The assignment withdrawn (its labels kept, read-only); the topic can be assigned again."""
    if assignment.withdrawn_at is None:
        assignment.withdrawn_at = timezone.now()
        assignment.save(update_fields=["withdrawn_at"])
    return assignment


# -- submits


def _locked(assignment: SupportAssignment) -> SupportAssignment:
    # One submit of an assignment at a time: a withdrawal cannot slip in between the check and the write, and a key
    # looked up below is not being written by a second request of the same key.
    return SupportAssignment.objects.select_for_update(of=("self",)).select_related("bank").get(pk=assignment.pk)


def _receipt(assignment: SupportAssignment, key: str, answer: RunAnswer) -> SubmitResult | None:
    if not key:
        return None
    if not SUBMIT_KEY.fullmatch(key):
        raise InputError("the submit key is not valid: 8 to 64 letters, digits, '-' or '_'")
    receipt = SupportReceipt.objects.filter(assignment=assignment, key=key).first()
    if receipt is None:
        return None
    first = receipt.answer
    if first.get("answer") != answer.pk:
        raise InputError(f"this submit key was used for another answer ({first.get('answer')}), not {answer.pk}")
    return SubmitResult(created=first["created"], revised=first["revised"], unchanged=first["unchanged"],
                        complete=first["complete"], revision=first["revision"], repeated=True)


def _keep(assignment: SupportAssignment, key: str, answer: RunAnswer, result: SubmitResult, at) -> None:
    if key:
        SupportReceipt.objects.create(assignment=assignment, key=key, at=at, answer=result.as_dict(answer.pk))


def answer_text(answer: RunAnswer) -> str:
    """The text an assessor sees of an answer: its sentences, one space apart, else the text the run gave."""
    sentences = [s.text for s in answer.sentences.all()]
    return " ".join(sentences) if sentences else answer.text


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def _check_answer(assignment: SupportAssignment, answer: RunAnswer) -> None:
    if answer.topic_id != assignment.topic_id or answer.run.campaign_id != assignment.campaign_id:
        raise InputError(f"answer {answer.pk} is not an answer to topic {assignment.topic.topic_id}")


@transaction.atomic
def support_submit(*, assignment: SupportAssignment, answer: RunAnswer,
                   labels: Mapping[int, tuple[str, str]], key: str = "", user=None,
                   source: str = "web", suggestions: Mapping[int, int] | None = None) -> SubmitResult:
    """One answer's support labels, `labels` {nugget id: (label, span)}, for the nuggets of the assignment's bank
    version. A changed label (or span) revises the judgment in place and writes a SupportRevision; the same label
    again changes nothing. With `key`, a key seen before writes nothing and answers as the first time did.
    `suggestions` {nugget id: the LLM label's id} are the model's labels the page showed beside the nuggets (suggest
    mode): a label given or changed with one on screen is marked `suggested`. InputError for a nugget not in the
    bank version, a label not in SupportLabel, a span not in the answer, a suggestion that is no LLM label of the
    answer and nugget, a closed or withdrawn assignment, an answer of another topic, or a citations assignment."""
    assignment = _locked(assignment)
    repeated = _receipt(assignment, key, answer)
    if repeated is not None:
        return repeated
    if assignment.read_only:
        raise InputError(CLOSED)
    if assignment.task != SupportAssignment.Task.NUGGETS or assignment.bank is None:
        raise InputError("this is a citation assignment: its sentences are labelled by their citations")
    _check_answer(assignment, answer)
    if source not in SOURCES:
        raise InputError(f"source '{source}' is not one of: {', '.join(SOURCES)}")
    in_bank = [entry["id"] for entry in assignment.bank.nuggets]
    text = _squeezed(answer_text(answer))
    problems = []
    given: dict[int, tuple[str, str]] = {}
    for nugget_id, (label, span) in labels.items():
        if nugget_id not in in_bank:
            problems.append(f"nugget {nugget_id} is not in version {assignment.bank.number} of the topic's bank")
            continue
        if label not in SupportLabel.values:
            problems.append(f"nugget {nugget_id}: label '{label}' is not one of: {', '.join(SupportLabel.values)}")
            continue
        span = _squeezed(span or "")
        if len(span) > SPAN_MAX:
            problems.append(f"nugget {nugget_id}: the span is over {SPAN_MAX} characters")
        elif span and span not in text:
            problems.append(f"nugget {nugget_id}: the span is not a part of the answer's text")
        else:
            given[nugget_id] = (label, span)
    problems += _suggestions_problems(answer, suggestions or {})
    if problems:
        raise _single(problems)
    result = _support_write(assignment, answer, given, user=user, source=source,
                            suggested=frozenset(suggestions or {}))
    result.complete = set(in_bank) <= set(
        SupportJudgment.objects.filter(assignment=assignment, answer=answer).values_list("nugget_id", flat=True))
    _keep(assignment, key, answer, result, timezone.now())
    return result


def _suggestions_problems(answer: RunAnswer, suggestions: Mapping[int, int]) -> list[str]:
    """Each suggestion a submit says was on screen checked to be an LLM label of that answer and nugget. One that
    was shown is recorded whatever the campaign's mode is now: the submit may have waited in the browser's outbox
    while the mode changed, and what the assessor saw stays true (as judging/suggestions.py has it)."""
    found = SupportJudgment.objects.filter(assignment__isnull=True).in_bulk(set(suggestions.values()))
    problems = []
    for nugget_id, pk in suggestions.items():
        shown = found.get(pk)
        if shown is None or not shown.model or shown.answer_id != answer.pk or shown.nugget_id != nugget_id:
            problems.append(f"nugget {nugget_id}: suggestion {pk} is no LLM label of this answer and nugget")
    return problems


def _support_write(assignment: SupportAssignment | None, answer: RunAnswer, given: Mapping[int, tuple[str, str]],
                   *, user, source: str, model: str = "", suggested: frozenset[int] = frozenset()) -> SubmitResult:
    """The labels written as one assignment's (or, with no assignment, as the model `model`'s), each change a
    revision; `suggested` the nuggets whose label was given with the model's on screen."""
    now = timezone.now()
    mine = (SupportJudgment.objects.filter(assignment=assignment) if assignment is not None
            else SupportJudgment.objects.filter(assignment__isnull=True, model=model))
    existing = {j.nugget_id: j for j in mine.filter(answer=answer)}
    result = SubmitResult()
    for nugget_id, (label, span) in given.items():
        judgment = existing.get(nugget_id)
        shown = nugget_id in suggested
        if judgment is None:
            judgment = SupportJudgment.objects.create(assignment=assignment, model=model, answer=answer,
                                                      nugget_id=nugget_id, label=label, span=span, suggested=shown,
                                                      submitted_at=now, updated_at=now)
            existing[nugget_id] = judgment
            SupportRevision.objects.create(judgment=judgment, number=1, user=user, at=now, label=label, span=span,
                                           source=source, suggested=shown)
            result.created += 1
        elif judgment.label == label and judgment.span == span:
            result.unchanged += 1
        else:
            old = judgment.label
            judgment.label, judgment.span, judgment.updated_at, judgment.suggested = label, span, now, shown
            judgment.revision += 1
            judgment.save(update_fields=["label", "span", "updated_at", "revision", "suggested"])
            SupportRevision.objects.create(judgment=judgment, number=judgment.revision, user=user, at=now,
                                           old_label=old, label=label, span=span, source=source, suggested=shown)
            result.revised += 1
    result.revision = sum(j.revision for j in existing.values())
    return result


@transaction.atomic
def support_llm_store(*, answer: RunAnswer, bank: BankVersion, model: str,
                      labels: Mapping[int, str]) -> SubmitResult:
    """A model's labels of one answer, `labels` {nugget id: label}, against the nuggets of `bank` (a frozen version
    of the answer's topic), stored apart from every assignment: `assignment` NULL, `model` its name, one label per
    model, answer and nugget (docs/nuggets.md, "The LLM co-assessor on support"). Neither the scores nor the export
    read them. A changed label is revised in place with a SupportRevision of source "llm"; the same label again
    changes nothing. InputError for no model, a bank of another topic, a nugget not in it, a label of another scale."""
    model = model.strip()
    problems = []
    if not model or len(model) > MODEL_MAX:
        problems.append("the model's name is empty or over 200 characters")
    if bank.topic_id != answer.topic_id:
        problems.append(f"answer {answer.pk} is not an answer to the topic of bank version {bank.number}")
    in_bank = {entry["id"] for entry in bank.nuggets}
    for nugget_id, label in labels.items():
        if nugget_id not in in_bank:
            problems.append(f"nugget {nugget_id} is not in version {bank.number} of the topic's bank")
        elif label not in SupportLabel.values:
            problems.append(f"nugget {nugget_id}: label '{label}' is not one of: {', '.join(SupportLabel.values)}")
    if problems:
        raise _single(problems)
    # One writer of an answer's LLM labels at a time: two runs of the same model cannot both create a label.
    RunAnswer.objects.select_for_update(of=("self",)).filter(pk=answer.pk).first()
    return _support_write(None, answer, {n: (label, "") for n, label in labels.items()}, user=None, source="llm",
                          model=model)


@transaction.atomic
def citation_submit(*, assignment: SupportAssignment, answer: RunAnswer,
                    labels: Mapping[tuple[int, str], str], key: str = "", user=None,
                    source: str = "web") -> SubmitResult:
    """One answer's citation labels, `labels` {(sentence position, cited id): label}, each sentence of the answer
    judged by each item it cites (full, partial, none). Revisions and keys as support_submit's."""
    assignment = _locked(assignment)
    repeated = _receipt(assignment, key, answer)
    if repeated is not None:
        return repeated
    if assignment.read_only:
        raise InputError(CLOSED)
    if assignment.task != SupportAssignment.Task.CITATIONS:
        raise InputError("this is a nugget assignment: its answers are labelled against the nuggets")
    _check_answer(assignment, answer)
    if source not in SOURCES:
        raise InputError(f"source '{source}' is not one of: {', '.join(SOURCES)}")
    sentences = {s.position: s for s in AnswerSentence.objects.filter(answer=answer)}
    units = {(s.position, str(c)) for s in sentences.values() for c in s.citations}
    problems = []
    for (position, cited), label in labels.items():
        if (position, cited) not in units:
            problems.append(f"sentence {position} of the answer does not cite {cited}")
        elif label not in CitationLabel.values:
            problems.append(f"sentence {position}, {cited}: label '{label}' is not one of: "
                            f"{', '.join(CitationLabel.values)}")
    if problems:
        raise _single(problems)
    now = timezone.now()
    existing = {(j.sentence.position, j.citation): j for j in CitationJudgment.objects.filter(
        assignment=assignment, sentence__answer=answer).select_related("sentence")}
    result = SubmitResult()
    for (position, cited), label in labels.items():
        judgment = existing.get((position, cited))
        if judgment is None:
            judgment = CitationJudgment.objects.create(assignment=assignment, sentence=sentences[position],
                                                       citation=cited, label=label, submitted_at=now, updated_at=now)
            existing[(position, cited)] = judgment
            CitationRevision.objects.create(judgment=judgment, number=1, user=user, at=now, label=label,
                                            source=source)
            result.created += 1
        elif judgment.label == label:
            result.unchanged += 1
        else:
            old = judgment.label
            judgment.label, judgment.updated_at = label, now
            judgment.revision += 1
            judgment.save(update_fields=["label", "updated_at", "revision"])
            CitationRevision.objects.create(judgment=judgment, number=judgment.revision, user=user, at=now,
                                            old_label=old, label=label, source=source)
            result.revised += 1
    result.revision = sum(j.revision for j in existing.values())
    result.complete = units <= set(existing)
    _keep(assignment, key, answer, result, now)
    return result


# -- nuggetizer's assign output


@dataclass
class ImportResult:
    assignments: list[SupportAssignment] = field(default_factory=list)
    created: int = 0
    revised: int = 0
    unchanged: int = 0
    skipped_failed: int = 0  # nuggetizer's "failed": no label given, none stored

    def summary(self) -> str:
        """What the command prints last and the page says: the labels' counts."""
        return (f"{self.created} label{'' if self.created == 1 else 's'} created, {self.revised} revised, "
                f"{self.unchanged} unchanged, {self.skipped_failed} left out (nuggetizer's failed)")

    def as_dict(self) -> dict:
        return {"topics": [a.topic.topic_id for a in self.assignments], "created": self.created,
                "revised": self.revised, "unchanged": self.unchanged, "left_out": self.skipped_failed}


@transaction.atomic
def support_import(*, campaign: Campaign, assessor, stream: BinaryIO, filename: str, by=None) -> ImportResult:
    """nuggetizer's assign output (answers mode) as the labels of `assessor`'s official nugget assignments: each
    line's run (by name) and topic to the campaign's answer, each nugget's text to a nugget of the bank version the
    official assignment judges (the topic's latest frozen bank, frozen now if none, for a new one). All or nothing:
    an unknown run, topic, answer or nugget text, or an official assignment another assessor holds, is refused with
    its line. Labels written as the page writes them, each revision with source "import". `stream` is the file
    (the command's, an upload's), `filename` the name its problems give."""
    topics = {t.topic_id: t for t in campaign.topics.all()}
    problems = Problems(file=filename)
    records = read_nugget_assignments(stream, problems, topics=topics)
    problems.raise_if_any()
    runs = {r.name: r for r in Run.objects.filter(campaign=campaign)}
    answers = {(a.run_id, a.topic_id): a for a in RunAnswer.objects.filter(run__campaign=campaign)}
    held: dict[int, SupportAssignment | None] = {}
    banks: dict[int, BankVersion | None] = {}
    plan: list[tuple[Topic, RunAnswer, dict[int, tuple[str, str]]]] = []
    skipped = 0
    for record in records:
        topic = topics[record.topic_id]  # the reader refused any other topic
        run = runs.get(record.run_id)
        if run is None:
            problems.add(record.line, f"no run named '{record.run_id}' in campaign {campaign.name}")
            continue
        answer = answers.get((run.pk, topic.pk))
        if answer is None:
            problems.add(record.line, f"run {record.run_id} has no answer to topic {topic.topic_id}")
            continue
        if topic.pk not in held:
            official = SupportAssignment.objects.filter(
                topic=topic, task=SupportAssignment.Task.NUGGETS, kind=SupportAssignment.Kind.OFFICIAL,
                withdrawn_at__isnull=True).select_related("assessor", "bank").first()
            held[topic.pk] = official
            banks[topic.pk] = official.bank if official is not None else latest_version(topic=topic)
        official = held[topic.pk]
        if official is not None and official.assessor_id != assessor.pk:
            problems.add(record.line, f"topic {topic.topic_id}: {official.assessor.username} holds its official "
                                      "nugget assignment")
            continue
        if official is not None and official.read_only:
            problems.add(record.line, f"topic {topic.topic_id}: the official assignment is closed")
            continue
        bank = banks[topic.pk]
        entries = bank.nuggets if bank is not None else bank_entries(topic=topic)
        by_text = {_squeezed(e["text"]): e["id"] for e in entries}
        given: dict[int, tuple[str, str]] = {}
        for nugget in record.nuggets:
            nugget_id = by_text.get(_squeezed(nugget.text))
            if nugget_id is None:
                problems.add(record.line, f"topic {topic.topic_id}: no nugget '{nugget.text[:80]}' in its bank")
            elif nugget.assignment == "failed":
                skipped += 1
            else:
                given[nugget_id] = (nugget.assignment, "")
        plan.append((topic, answer, given))
    problems.raise_if_any()
    result = ImportResult(skipped_failed=skipped)
    for topic, answer, given in plan:
        official = held[topic.pk]
        if official is None:
            official, _ = support_assign(campaign=campaign, topic=topic, assessor=assessor, by=by)
            held[topic.pk] = official
            result.assignments.append(official)
        elif official not in result.assignments:
            result.assignments.append(official)
        official = _locked(official)  # as a page's submit does: one writer of the assignment's labels at a time
        if official.read_only:
            raise InputError(f"topic {topic.topic_id}: the official assignment was closed or withdrawn while importing")
        assert official.bank is not None
        in_bank = {e["id"] for e in official.bank.nuggets}
        missing = [i for i in given if i not in in_bank]
        if missing:  # the bank changed between the reading and the freeze (it is frozen under the topic's lock)
            raise InputError(f"topic {topic.topic_id}: its bank changed while importing: import again")
        done = _support_write(official, answer, given, user=by, source="import")
        result.created += done.created
        result.revised += done.revised
        result.unchanged += done.unchanged
    return result

"""Writes of nugget banks (docs/nuggets.md, "Nugget banks"): every change to a nugget is kept (NuggetChange) with
who, when, and the nugget before and after; each service is one transaction that locks the topic, so that two
organizers' changes to one bank follow each other. A bank is frozen into a numbered version when support judging
of its topic starts, and stays editable: a later freeze makes a new version."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from ir.formats.nuggets import read_nugget_banks
from ir.formats.textio import shown
from ir.problems import InputError, Problems
from nuggets.models import BankVersion, Importance, Nugget, NuggetChange
from nuggets.selectors import bank_entries, bank_nuggets, latest_version
from pooling.models import Campaign, RunAnswer, Topic

TEXT_MAX = 2000  # characters of a nugget: nuggetizer asks for 1 to 12 words; a selection may be a sentence or two


@transaction.atomic
def bank_freeze(*, topic: Topic, user=None) -> BankVersion:
    """The topic's bank frozen: its latest version when the bank has not changed since, else a new version (number
    one more) of the accepted nuggets as they stand. Locks the topic so that two freezes make one version."""
    _lock(topic)
    entries = bank_entries(topic=topic)
    latest = latest_version(topic=topic)
    if latest is not None and latest.nuggets == entries:
        return latest
    return BankVersion.objects.create(campaign_id=topic.campaign_id, topic=topic,
                                      number=(latest.number if latest else 0) + 1, nuggets=entries,
                                      frozen_at=timezone.now(), frozen_by=user)


def _lock(topic: Topic) -> None:
    Topic.objects.select_for_update().filter(pk=topic.pk).first()


def _state(nugget: Nugget) -> dict:
    state = {"text": nugget.text, "importance": nugget.importance, "status": nugget.status,
             "position": nugget.position}
    if nugget.merged_into_id is not None:
        state["merged_into"] = nugget.merged_into_id
    return state


def _changed(nugget: Nugget, action: str, before: dict, user, at=None) -> NuggetChange:
    after = _state(nugget)
    return NuggetChange.objects.create(
        nugget=nugget, action=action, user=user if user is not None and user.is_authenticated else None,
        at=at or timezone.now(), before={k: v for k, v in before.items() if after.get(k) != v},
        after={k: v for k, v in after.items() if before.get(k) != v})


def _text(text: str) -> str:
    cleaned = " ".join((text or "").split())
    if not cleaned:
        raise InputError("a nugget needs a text")
    if len(cleaned) > TEXT_MAX:
        raise InputError(f"a nugget's text has {len(cleaned):,} characters, more than {TEXT_MAX:,}")
    if "\x00" in cleaned:
        raise InputError("a nugget's text holds a NUL character")
    return cleaned


def _importance(importance: str) -> str:
    if importance not in Importance.values:
        raise InputError(f"importance '{shown(str(importance))}' is neither vital nor okay")
    return importance


def _end(topic: Topic) -> int:
    """The position after every nugget of the topic (bank and drafts): where a new one goes."""
    top = Nugget.objects.filter(topic=topic).aggregate(top=Max("position"))["top"]
    return 0 if top is None else top + 1


def _fresh(nugget: Nugget, *statuses: str) -> Nugget:
    """The nugget re-read under the topic's lock; InputError if it is no longer in one of the statuses."""
    _lock(nugget.topic)
    current = Nugget.objects.select_related("topic").get(pk=nugget.pk)
    if current.status not in statuses:
        raise InputError(f"nugget {current.pk} is {current.get_status_display()}: it cannot be changed so")
    return current


@transaction.atomic
def nugget_add(*, topic: Topic, text: str, importance: str = Importance.OKAY, user=None,
               answer: RunAnswer | None = None) -> Nugget:
    """A nugget written by an organizer, or selected from one of the topic's answers (`answer`: the selection must
    be a part of its text, spaces aside), at the end of the bank."""
    text, importance = _text(text), _importance(importance)
    if answer is not None:
        if answer.topic_id != topic.pk:
            raise InputError(f"the answer of run {answer.run.name} is not an answer to topic {topic.topic_id}")
        if text.casefold() not in " ".join(answer.text.split()).casefold():
            raise InputError("the selected text is not a part of the answer: select it in the answer's text")
    _lock(topic)
    nugget = Nugget.objects.create(campaign_id=topic.campaign_id, topic=topic, text=text, importance=importance,
                                   source=Nugget.Source.SELECTED if answer is not None else Nugget.Source.WRITTEN,
                                   status=Nugget.Status.ACCEPTED, position=_end(topic), answer=answer,
                                   created_by=user if user is not None and user.is_authenticated else None)
    _changed(nugget, NuggetChange.Action.ADD, {}, user)
    return nugget


@transaction.atomic
def nugget_edit(*, nugget: Nugget, text: str, user=None) -> Nugget:
    text = _text(text)
    nugget = _fresh(nugget, Nugget.Status.ACCEPTED, Nugget.Status.DRAFT)
    if nugget.text == text:
        return nugget
    before = _state(nugget)
    nugget.text = text
    nugget.save(update_fields=["text"])
    _changed(nugget, NuggetChange.Action.EDIT, before, user)
    return nugget


@transaction.atomic
def nugget_importance(*, nugget: Nugget, importance: str, user=None) -> Nugget:
    importance = _importance(importance)
    nugget = _fresh(nugget, Nugget.Status.ACCEPTED, Nugget.Status.DRAFT)
    if nugget.importance == importance:
        return nugget
    before = _state(nugget)
    nugget.importance = importance
    nugget.save(update_fields=["importance"])
    _changed(nugget, NuggetChange.Action.IMPORTANCE, before, user)
    return nugget


@transaction.atomic
def nugget_move(*, nugget: Nugget, position: int, user=None) -> Nugget:
    """The nugget moved to `position` (from 0) in the bank, the others keeping their order: the bank renumbered
    0, 1, ..., a change kept for each nugget whose position changed. A position past the end is the end."""
    nugget = _fresh(nugget, Nugget.Status.ACCEPTED)
    if position < 0:
        raise InputError(f"position {position} is before the bank's first (0)")
    order = [n for n in bank_nuggets(topic=nugget.topic) if n.pk != nugget.pk]
    order.insert(min(position, len(order)), nugget)
    at = timezone.now()
    for place, member in enumerate(order):
        if member.position != place:
            before = _state(member)
            member.position = place
            member.save(update_fields=["position"])
            _changed(member, NuggetChange.Action.MOVE, before, user, at)
    return nugget


@transaction.atomic
def nugget_merge(*, keep: Nugget, others: Sequence[Nugget], text: str | None = None, user=None) -> Nugget:
    """Several nuggets of one bank made one: the others MERGED into `keep` (out of the bank, pointing at it), the
    kept one's text replaced by `text` when given."""
    new_text = _text(text) if text is not None and text.strip() else None
    keep = _fresh(keep, Nugget.Status.ACCEPTED)
    merged = [_fresh(other, Nugget.Status.ACCEPTED) for other in others if other.pk != keep.pk]
    if not merged:
        raise InputError("choose at least one other nugget to merge into the one kept")
    for other in merged:
        if other.topic_id != keep.topic_id:
            raise InputError(f"nugget {other.pk} is of another topic's bank")
    at = timezone.now()
    for other in merged:
        before = _state(other)
        other.status, other.merged_into = Nugget.Status.MERGED, keep
        other.save(update_fields=["status", "merged_into"])
        _changed(other, NuggetChange.Action.MERGE, before, user, at)
    before = _state(keep)
    if new_text is not None:
        keep.text = new_text
        keep.save(update_fields=["text"])
    change = _changed(keep, NuggetChange.Action.MERGE, before, user, at)
    change.after = {**change.after, "merged": [other.pk for other in merged]}
    change.save(update_fields=["after"])
    return keep


@transaction.atomic
def nugget_delete(*, nugget: Nugget, user=None) -> Nugget:
    nugget = _fresh(nugget, Nugget.Status.ACCEPTED)
    before = _state(nugget)
    nugget.status = Nugget.Status.DELETED
    nugget.save(update_fields=["status"])
    _changed(nugget, NuggetChange.Action.DELETE, before, user)
    return nugget


@transaction.atomic
def draft_accept(*, nugget: Nugget, user=None) -> Nugget:
    """A draft into the bank, at its end."""
    nugget = _fresh(nugget, Nugget.Status.DRAFT)
    before = _state(nugget)
    nugget.status, nugget.position = Nugget.Status.ACCEPTED, _end(nugget.topic)
    nugget.save(update_fields=["status", "position"])
    _changed(nugget, NuggetChange.Action.ACCEPT, before, user)
    return nugget


@transaction.atomic
def draft_reject(*, nugget: Nugget, user=None) -> Nugget:
    nugget = _fresh(nugget, Nugget.Status.DRAFT)
    before = _state(nugget)
    nugget.status = Nugget.Status.REJECTED
    nugget.save(update_fields=["status"])
    _changed(nugget, NuggetChange.Action.REJECT, before, user)
    return nugget


@transaction.atomic
def drafts_add(*, topic: Topic, nuggets: Sequence[tuple[str, str]], model: str, user=None) -> list[Nugget]:
    """The LLM's drafts of a topic (text, importance), each a DRAFT with its model and a change DRAFT; a text the
    topic has already (in its bank or among its drafts, case and spaces aside) is not drafted again."""
    _lock(topic)
    known = {" ".join(n.split()).casefold() for n in Nugget.objects.filter(
        topic=topic, status__in=[Nugget.Status.ACCEPTED, Nugget.Status.DRAFT]).values_list("text", flat=True)}
    position, at, made = _end(topic), timezone.now(), []
    for text, importance in nuggets:
        try:
            text = _text(text)
        except InputError:
            continue  # an empty or overlong reply item is no nugget
        if text.casefold() in known:
            continue
        known.add(text.casefold())
        nugget = Nugget.objects.create(campaign_id=topic.campaign_id, topic=topic, text=text,
                                       importance=importance if importance in Importance.values else Importance.OKAY,
                                       source=Nugget.Source.DRAFTED, status=Nugget.Status.DRAFT, position=position,
                                       model=model[:200])
        position += 1
        _changed(nugget, NuggetChange.Action.DRAFT, {}, user, at)
        made.append(nugget)
    return made


@dataclass(frozen=True)
class NuggetsImportResult:
    topics: int
    nuggets: int

    def summary(self) -> str:
        return (f"Imported {self.nuggets:,} nugget{'s' if self.nuggets != 1 else ''} into "
                f"{self.topics:,} topic bank{'s' if self.topics != 1 else ''}.")


@transaction.atomic
def nuggets_import(*, campaign: Campaign, stream: BinaryIO, filename: str, user=None) -> NuggetsImportResult:
    """nuggetizer's `create` output appended to the campaign's banks, each nugget ACCEPTED with source IMPORTED and
    a change IMPORT. All or nothing: a file with any problem (a topic the campaign lacks, a malformed line, a nugget
    whose importance nuggetizer could not tell, `failed`) writes nothing and is refused with its lines."""
    topics = {t.topic_id: t for t in Topic.objects.filter(campaign=campaign)}
    problems = Problems(file=filename)
    banks = read_nugget_banks(stream, problems, topics=topics)
    for bank in banks:
        for n, nugget in enumerate(bank.nuggets):
            if nugget.importance not in Importance.values:
                problems.add(bank.line, f"nuggets[{n}] has importance {nugget.importance}: a bank's nuggets are "
                                        "vital or okay")
    problems.raise_if_any()
    at, count = timezone.now(), 0
    for bank in banks:
        topic = topics[bank.topic_id]
        _lock(topic)
        position = _end(topic)
        for nugget in bank.nuggets:
            made = Nugget.objects.create(campaign=campaign, topic=topic, text=nugget.text,
                                         importance=nugget.importance, source=Nugget.Source.IMPORTED,
                                         status=Nugget.Status.ACCEPTED, position=position,
                                         created_by=user if user is not None and user.is_authenticated else None)
            _changed(made, NuggetChange.Action.IMPORT, {}, user, at)
            position += 1
            count += 1
    return NuggetsImportResult(topics=len(banks), nuggets=count)

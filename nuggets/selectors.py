"""Reads of nugget banks (docs/nuggets.md): a topic's bank, its drafts, history and frozen versions, the pooled
answers it is drafted from, and the campaign's banks in nuggetizer's shapes."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Max, Prefetch, Q, QuerySet

from ir.formats.nuggets import AssignedNugget, NuggetAssignment, NuggetBank
from ir.formats.nuggets import Nugget as BankNugget
from nuggets.models import BankVersion, Nugget, NuggetChange, SupportAssignment, SupportJudgment
from pooling.models import AnswerSentence, Campaign, RunAnswer, Topic

# nuggetizer's word for a nugget of the bank with no usable label (docs/nuggets.md, "Export")
UNLABELLED = "failed"


def bank_nuggets(*, topic: Topic) -> QuerySet[Nugget]:
    """The topic's bank as it stands: its accepted nuggets in bank order."""
    return Nugget.objects.filter(topic=topic, status=Nugget.Status.ACCEPTED).order_by("position", "pk")


def bank_entries(*, topic: Topic) -> list[dict]:
    """The bank as a frozen version stores it: [{id, text, importance}, ...] in bank order."""
    return [{"id": nugget.pk, "text": nugget.text, "importance": nugget.importance}
            for nugget in bank_nuggets(topic=topic)]


def latest_version(*, topic: Topic) -> BankVersion | None:
    return BankVersion.objects.filter(topic=topic).order_by("-number").first()


def bank_drafts(*, topic: Topic) -> QuerySet[Nugget]:
    """The LLM's drafts of the topic awaiting acceptance, in the order drafted."""
    return Nugget.objects.filter(topic=topic, status=Nugget.Status.DRAFT).order_by("position", "pk")


def bank_history(*, topic: Topic) -> QuerySet[NuggetChange]:
    """Every change to a nugget of the topic, latest first."""
    return (NuggetChange.objects.filter(nugget__topic=topic).select_related("user", "nugget")
            .order_by("-at", "-pk"))


def bank_versions(*, topic: Topic) -> QuerySet[BankVersion]:
    return BankVersion.objects.filter(topic=topic).select_related("frozen_by").order_by("-number")


def bank_changed_since(*, topic: Topic, version: BankVersion | None) -> bool:
    """Whether the bank differs from the version (a later freeze would make a new one)."""
    return version is not None and version.nuggets != bank_entries(topic=topic)


def topic_query(topic: Topic) -> str:
    """The topic as nuggetizer's `query`: its title, else its narrative, description or question."""
    return topic.title or topic.narrative or topic.description or topic.question


def pooled_answers(*, topic: Topic) -> list[RunAnswer]:
    """The answers of the topic's runs (by run name), each with its sentences in order when it has them."""
    return list(RunAnswer.objects.filter(topic=topic).select_related("run").order_by("run__name", "pk")
                .prefetch_related(Prefetch("sentences", queryset=AnswerSentence.objects.order_by("position"))))


@dataclass(frozen=True)
class BankRow:
    """One topic of the campaign's banks page."""

    topic: Topic
    nuggets: int
    vital: int
    drafts: int
    version: int | None
    changed: bool


def campaign_banks(*, campaign: Campaign) -> list[BankRow]:
    """Per topic: the bank's size (and its vital nuggets), the drafts waiting, the latest version and whether the
    bank changed since."""
    accepted = Q(nuggets__status=Nugget.Status.ACCEPTED)
    topics = (Topic.objects.filter(campaign=campaign).order_by("position", "pk")
              .annotate(size=Count("nuggets", filter=accepted, distinct=True),
                        vital=Count("nuggets", filter=accepted & Q(nuggets__importance="vital"), distinct=True),
                        drafts=Count("nuggets", filter=Q(nuggets__status=Nugget.Status.DRAFT), distinct=True),
                        version=Max("nugget_versions__number")))
    latest: dict[int, BankVersion] = {}
    for version in BankVersion.objects.filter(campaign=campaign).order_by("number"):
        latest[version.topic_id] = version
    current: dict[int, list[dict]] = {}
    for nugget in Nugget.objects.filter(campaign=campaign, status=Nugget.Status.ACCEPTED).order_by("position", "pk"):
        current.setdefault(nugget.topic_id, []).append(
            {"id": nugget.pk, "text": nugget.text, "importance": nugget.importance})
    return [BankRow(topic=t, nuggets=t.size, vital=t.vital, drafts=t.drafts, version=t.version,
                    changed=t.pk in latest and latest[t.pk].nuggets != current.get(t.pk, []))
            for t in topics]


def banks_export(*, campaign: Campaign) -> list[NuggetBank]:
    """Every topic's accepted nuggets in bank order, as nuggetizer's `create` writes them (topics without any left
    out)."""
    by_topic: dict[int, list[BankNugget]] = {}
    for nugget in Nugget.objects.filter(campaign=campaign, status=Nugget.Status.ACCEPTED).order_by("position", "pk"):
        by_topic.setdefault(nugget.topic_id, []).append(BankNugget(nugget.text, nugget.importance))
    return [NuggetBank(line=0, topic_id=topic.topic_id, query=topic_query(topic), nuggets=tuple(by_topic[topic.pk]))
            for topic in Topic.objects.filter(campaign=campaign).order_by("position", "pk") if topic.pk in by_topic]


def assignments_export(*, campaign: Campaign) -> list[NuggetAssignment]:
    """nuggetizer's `assign` output over answers: per topic and run, the nuggets of the frozen bank of the topic's
    official nugget-support assignment with its labels; answers it has no label of are left out, a nugget of the
    bank it did not label is `failed` (nuggetizer's word for no usable label)."""
    official = (SupportAssignment.objects.filter(campaign=campaign, task=SupportAssignment.Task.NUGGETS,
                                                 kind=SupportAssignment.Kind.OFFICIAL, withdrawn_at__isnull=True,
                                                 bank__isnull=False)
                .select_related("topic", "bank").order_by("topic__position", "topic__pk"))
    rows: list[NuggetAssignment] = []
    for assignment in official:
        assert assignment.bank is not None  # filtered
        labels: dict[int, dict[int, str]] = {}
        for answer_pk, nugget_pk, label in SupportJudgment.objects.filter(assignment=assignment).values_list(
                "answer_id", "nugget_id", "label"):
            labels.setdefault(answer_pk, {})[nugget_pk] = label
        topic = assignment.topic
        for answer in RunAnswer.objects.filter(topic=topic, pk__in=labels).select_related("run").order_by(
                "run__name", "pk"):
            given = labels[answer.pk]
            nuggets = tuple(AssignedNugget(entry["text"], entry["importance"], given.get(entry["id"], UNLABELLED))
                            for entry in assignment.bank.nuggets)
            rows.append(NuggetAssignment(line=0, topic_id=topic.topic_id, run_id=answer.run.name,
                                         query=topic_query(topic), answer_text=answer.text,
                                         response_length=len(answer.text.split()), nuggets=nuggets))
    return rows

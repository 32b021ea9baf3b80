"""Editing a topic's text, and deleting a topic of a campaign (a topic uploaded by mistake) while nothing is judged
on it, with its pool items and the rows the runs gave it. Told what is judged, as the other undo services are
(services/undo.py): the caller is the judging app's assessor/services/topics.py, which also removes the topic's
assignments that hold no work."""
from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, ProtectedError

from ir.problems import InputError
from pooling.models import Campaign, PoolItem, Run, RunEntry, Topic
from pooling.services.pools import JudgedItems, campaign_lock

TOPIC_TEXT = ("title", "question", "description", "narrative", "prelude")  # what an organizer may edit


@transaction.atomic
def topic_update(*, campaign: Campaign, topic_id: str, **fields: str) -> Topic:
    """Changes a topic's text (TOPIC_TEXT: its title, question, description, narrative, prelude); a field not
    given stays as it is; one of its title, question and description must keep some text. Its id, position and what
    pooling reads (a formula's id and LaTeX) never change here."""
    unknown = sorted(set(fields) - set(TOPIC_TEXT))
    if unknown:
        raise InputError(f"a topic's {', '.join(unknown)} cannot be edited: only {', '.join(TOPIC_TEXT)}")
    campaign_lock(campaign=campaign)
    topic = Topic.objects.filter(campaign=campaign, topic_id=topic_id).first()
    if topic is None:
        raise InputError(f"topic '{topic_id}' is not a topic of campaign '{campaign.name}'")
    for name, value in fields.items():
        setattr(topic, name, value)
    if not any(getattr(topic, name).strip() for name in ("title", "question", "description")):
        # As an ingested topic has (TSV: "has no text"; JSON: a title): the assessors judge against it.
        raise InputError(f"topic {topic_id} would have no text left: keep its title, its question or its description")
    if fields:
        topic.save(update_fields=list(fields))
    return topic


@dataclass(frozen=True)
class TopicContents:
    """What deleting a topic deletes, counted for the confirmation page and the answer."""

    topic_id: str
    pool_items: int
    run_rows: int
    runs: int


def _topic_rows(topic: Topic):
    """The runs' rows of a topic, found through the primary key (run, topic, item) one run at a time: the topic
    alone has no index, and a scan would read every row of every campaign (millions at ARQMath-3's size)."""
    return RunEntry.objects.filter(run_id__in=list(Run.objects.filter(campaign_id=topic.campaign_id).order_by()
                                                   .values_list("pk", flat=True)), topic=topic)


def topic_contents(*, topic: Topic) -> TopicContents:
    rows = _topic_rows(topic)
    return TopicContents(topic_id=topic.topic_id, pool_items=PoolItem.objects.filter(topic=topic).count(),
                         run_rows=rows.count(), runs=rows.values("run_id").distinct().count())


@transaction.atomic
def topic_delete(*, campaign: Campaign, topic_id: str, judged_items: JudgedItems) -> TopicContents:
    """Deletes a topic with its pool items (and their formula instances), its rows in every run (each run's row and
    topic counts follow) and its Task 3 answers. Refused while any of its items is judged. The pools of the other
    topics stay as they are: no rebuild."""
    campaign_lock(campaign=campaign)
    topic = Topic.objects.filter(campaign=campaign, topic_id=topic_id).first()
    if topic is None:
        raise InputError(f"topic '{topic_id}' is not a topic of campaign '{campaign.name}'")
    judged = len(judged_items.get(topic.pk, ()))
    if judged:
        raise InputError(f"topic {topic_id} has judgments ({judged} judged items) and is kept: nothing an assessor "
                         "submitted is ever deleted")
    contents = topic_contents(topic=topic)
    per_run = dict(_topic_rows(topic).values("run_id").annotate(n=Count("item_id"))
                   .values_list("run_id", "n").order_by())
    PoolItem.objects.filter(topic=topic).delete()  # a topic's pool: hundreds of rows at most, with their instances
    _topic_rows(topic).delete()  # one DELETE: nothing points at a RunEntry, no row is read
    for run in Run.objects.filter(pk__in=per_run):
        run.row_count = max(run.row_count - per_run[run.pk], 0)
        run.topic_count = max(run.topic_count - 1, 0)
        run.save(update_fields=["row_count", "topic_count"])
    try:
        topic.delete()  # its Task 3 answers (RunAnswer, AnswerText) go by cascade
    except ProtectedError:
        # An assignment the caller did not remove: made meanwhile (assigning does not lock the campaign).
        raise InputError(f"topic {topic_id} was assigned meanwhile and is kept; reload and try again") from None
    return contents

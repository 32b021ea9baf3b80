"""Check assignments (docs/agreement.md, "Disagreements to people"): items an organizer sends to an assessor from the
review of the LLM's disagreements with the official judgments. The assessor judges just those items; their judgments are
a second opinion beside the official ones, never in the qrels."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from ir.problems import InputError, Problems
from judging.models import Assignment, CheckItem
from judging.services.assignments import campaign_topics, pairs_create
from pooling.models import Campaign, PoolItem


@dataclass(frozen=True)
class ChecksSent:
    assignments: list[Assignment]  # one check assignment per topic, made now or already there
    sent: int                      # items added to them
    already: int                   # items they held already


@transaction.atomic
def check_items_send(*, campaign: Campaign, assessor: User, items: Sequence[tuple[str, str]],
                     user: User | None = None) -> ChecksSent:
    """Sends pool items, (topic id, item id), to `assessor` to judge: per topic their check assignment (made once, kept
    afterwards) gets the items it lacks. Rejected as a whole: no item, or an item not in the campaign's pools."""
    wanted = list(dict.fromkeys(items))
    if not wanted:
        raise InputError("choose the items to send")
    pooled = set(PoolItem.objects.filter(campaign=campaign, topic__topic_id__in={t for t, _ in wanted})
                 .values_list("topic__topic_id", "item_id"))
    problems = Problems()
    for topic_id, item_id in wanted:
        if (topic_id, item_id) not in pooled:
            problems.add(None, f"item {item_id[:64]} is not in the pool of topic {topic_id[:64]}")
    problems.raise_if_any()
    topics = list(dict.fromkeys(t for t, _ in wanted))
    # assignments_create refuses the kind (rules.kind_and_round): a check assignment is made here, with its items.
    by_id = campaign_topics(campaign=campaign, topic_ids=topics)
    result = pairs_create(campaign=campaign, pairs=[(assessor, by_id[t]) for t in topics],
                          kind=Assignment.Kind.CHECK, round_=0, user=user)
    by_topic = {a.topic.topic_id: a for a in [*result.created, *result.existing]}
    held = set(CheckItem.objects.filter(assignment__in=list(by_topic.values()))
               .values_list("assignment_id", "item_id"))
    new = [CheckItem(assignment=by_topic[t], item_id=i, sent_by=user) for t, i in wanted
           if (by_topic[t].pk, i) not in held]
    CheckItem.objects.bulk_create(new, ignore_conflicts=True)  # a double submit adds nothing twice
    return ChecksSent(assignments=[by_topic[t] for t in topics], sent=len(new), already=len(wanted) - len(new))

"""The live judging order (docs/pooling.md "Live order and budgets"): what an assignment's policy reads to
choose its next items (the pool's provenance, that assignment's judgments so far), and the LLM filter mode's items
sent to the end of the queue (docs/pooling.md). Read-side: selectors.next_item and selectors.items_ahead use it."""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import NamedTuple

from ir import grades
from ir.pools.adaptive import next_items
from ir.uncertain import uncertain_items
from judging.models import Assignment, ItemVisit, Judgment
from llm import selectors as llm_selectors
from llm.models import Mode
from pooling.models import Campaign, JudgingOrder, PoolItem


def demoted_items(*, campaign: Campaign, topic_id: int) -> set[str]:
    """The items of the topic that the campaign's LLM graded 0 when its endpoint is in filter mode (else none): they
    go to the end of each assessor's queue. The grade read is the endpoint model's current grade
    (`llm.selectors.current_grades`, docs/llm.md); a formula is graded 0 when every instance graded is."""
    endpoint = llm_selectors.endpoint_in_mode(campaign, Mode.FILTER)
    if endpoint is None:
        return set()
    found = llm_selectors.llm_grades(campaign=campaign, model=endpoint.model, topic_pk=topic_id, endpoint=endpoint)
    return {item_id for (_topic, item_id), grade in llm_selectors.item_grades(found).items()
            if grade == grades.NOT_RELEVANT}


class Pooled(NamedTuple):
    pk: int
    position: int
    provenance: list


@dataclass
class Queue:
    """What an assignment's next items are chosen from: its topic's pool (with provenance), its items complete and
    their relevance in the order they were completed, the items it skipped (skipped longest ago first), and the
    filter mode's demoted items."""

    topic_id: str
    items: dict[str, Pooled]
    judged: dict[str, bool]
    skipped: list[str]
    demoted: set[str]

    def pool_item(self, item_id: str) -> PoolItem:
        """The chosen item as a PoolItem (made from the row read, not read again)."""
        pk, position, provenance = self.items[item_id]
        return PoolItem(pk=pk, topic_id=self.topic_pk, campaign_id=self.campaign_pk, item_id=item_id,
                        position=position, provenance=provenance)

    topic_pk: int = 0
    campaign_pk: int = 0


def queue_of(*, assignment: Assignment, campaign: Campaign) -> Queue:
    """One query for the pool (its provenance read once), one for the visits, one for the grades (and the filter
    mode's). An item complete counts as relevant when a grade of it (Task 2: of any instance) reaches the campaign's
    relevance level; SF and DK count as not relevant (docs/pooling.md)."""
    # Plain rows, not models: a pool of 450 items made into models took longer than the policy's choice.
    items = {item_id: Pooled(pk, position, provenance) for pk, item_id, position, provenance in
             PoolItem.objects.filter(topic_id=assignment.topic_id).order_by("position")
             .values_list("pk", "item_id", "position", "provenance")}
    completed: list[tuple[datetime, str]] = []
    skipped: list[tuple[datetime, int, str]] = []
    for item_id, completed_at, skipped_at in (ItemVisit.objects.filter(assignment=assignment)
                                              .values_list("item_id", "completed_at", "skipped_at")):
        if completed_at is not None:
            completed.append((completed_at, item_id))
        elif skipped_at is not None and item_id in items:
            skipped.append((skipped_at, items[item_id].position, item_id))
    relevant = set(Judgment.objects.filter(
        assignment=assignment, grade__in=campaign.judging_scheme.relevant_grades(campaign.relevance_level))
        .values_list("item_id", flat=True))
    return Queue(topic_id=assignment.topic.topic_id, topic_pk=assignment.topic_id, campaign_pk=campaign.pk,
                 items=items,
                 judged={item_id: item_id in relevant for _, item_id in sorted(completed)},
                 skipped=[item_id for *_, item_id in sorted(skipped)],
                 demoted=demoted_items(campaign=campaign, topic_id=assignment.topic_id))


def order_of(*, campaign: Campaign, queue: Queue) -> Callable[..., list[str]]:
    """The campaign's order as a function of (pool, judged, seed=..., warm_up=..., ...): `uncertain` reads the stored
    calibration of the topic's items (never fitted here), and without one is random's (ir/uncertain.py)."""
    if campaign.judging_order == JudgingOrder.UNCERTAIN:
        calibrated = llm_selectors.order_calibration(campaign=campaign, topic_id=queue.topic_id)
        return partial(uncertain_items, calibrated=calibrated)
    return partial(next_items, campaign.judging_order)


def policy_choices(*, campaign: Campaign, queue: Queue, judged: Mapping[str, bool], count: int,
                   excluding: Collection[str] = ()) -> list[PoolItem]:
    """The policy's next `count` items given `judged`, never a skipped or excluded one; the filter mode's demoted
    items come after every other (the policy's choice among the rest first: a stable partition), and then the
    skipped ones, skipped longest ago first, as in the random order."""
    pool = {item_id: item.provenance for item_id, item in queue.items.items()}  # [run, rank] pairs as stored
    # Judged items are never chosen again; given as excluded too, the policy would take them for items it never
    # chose, and move-to-front would not move on from a run whose item was not relevant.
    left_out = {*queue.skipped, *excluding} - judged.keys()
    chosen: list[str] = []
    order = order_of(campaign=campaign, queue=queue)
    for exclude in (left_out | queue.demoted, left_out):
        if len(chosen) < count:
            chosen += order(pool, judged, seed=campaign.seed, warm_up=campaign.warm_up, min_depth=campaign.min_depth,
                            count=count - len(chosen), exclude=(exclude | set(chosen)) - judged.keys(),
                            topic_id=queue.topic_id)
    if len(chosen) < count:
        # An item no run retrieved (no provenance) is in no run's list: the policies reach it only in their random
        # warm-up. Never "every item is judged" while one is left: those come in display order, before the skipped.
        taken = {*chosen, *left_out, *judged}
        chosen += [item_id for item_id in queue.items if item_id not in taken][:count - len(chosen)]
    chosen += [item_id for item_id in queue.skipped
               if item_id not in judged and item_id not in excluding][:max(0, count - len(chosen))]
    return [queue.pool_item(item_id) for item_id in chosen]

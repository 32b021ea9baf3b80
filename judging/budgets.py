"""Judging budgets (docs/pooling.md "Live order and budgets"): the items an assignment may judge, from the
campaign's budget per topic and its budget in assessor hours (turned into items through the planner's seconds per
judgment, then spread over the topics evenly or by the relevant items found), and the closing of an assignment whose
budget is spent (Assignment.closed_at, as an organizer's close: read-only, every judgment kept)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Count
from django.utils import timezone

from ir.pools.budgets import budget_spread
from judging.models import Assignment, ItemVisit, Judgment
from judging.progress import judging_time
from pooling.models import Campaign, PoolItem
from pooling.selectors import plan_seconds_per_judgment

# The hours budget's spread is read again at most this often (seconds): it counts every topic's relevant items and
# the campaign's time per judgment, which the next item should not wait for on every request.
SPREAD_CACHE_SECONDS = 60


@dataclass(frozen=True)
class Budget:
    """An assignment's budget: `items` it may complete (None: the whole pool), `done` so far."""

    items: int | None
    done: int

    @property
    def spent(self) -> bool:
        return self.items is not None and self.done >= self.items

    @property
    def left(self) -> int | None:
        return None if self.items is None else max(0, self.items - self.done)


def hours_items(campaign: Campaign) -> int:
    """The items the campaign's hours budget buys: hours over the planner's seconds per judgment (the measured mean
    once enough judgments measure it), a formula costing one judgment per instance judged (the campaign's instances
    per formula, at most)."""
    assert campaign.hours_budget is not None
    seconds = plan_seconds_per_judgment(measured=judging_time(campaign)).seconds
    per_item = campaign.instances if campaign.task == Campaign.Task.FORMULAS else 1
    return math.floor(campaign.hours_budget * 3600 / (seconds * per_item))


def topic_budgets(campaign: Campaign) -> dict[int, int]:
    """Topic pk -> items per assignment that the campaign's hours budget gives each topic with a pool (none without
    an hours budget): budget_spread of hours_items over the pools, by the relevant items found so far in each topic
    (distinct items judged relevant at the campaign's relevance level by any of its assessors) when so spread."""
    if campaign.hours_budget is None:
        return {}
    key = f"budget-spread:{campaign.pk}:{campaign.hours_budget}:{campaign.budget_spread}:{campaign.instances}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    pks: dict[str, int] = {}
    pools: dict[str, int] = {}
    for pk, topic_id, n in (PoolItem.objects.filter(campaign=campaign).order_by()
                            .values_list("topic_id", "topic__topic_id").annotate(n=Count("*"))):
        pks[topic_id], pools[topic_id] = pk, n
    found: dict[str, int] = {}
    if campaign.budget_spread == Campaign.BudgetSpread.FOUND:
        relevant = campaign.judging_scheme.relevant_grades(campaign.relevance_level)
        found = dict(Judgment.objects.filter(assignment__campaign=campaign, grade__in=relevant).order_by()
                     .values_list("assignment__topic__topic_id").annotate(n=Count("item_id", distinct=True)))
    spread = {pks[topic_id]: items for topic_id, items in budget_spread(hours_items(campaign), pools, found,
                                                                        spread=campaign.budget_spread).items()}
    cache.set(key, spread, SPREAD_CACHE_SECONDS)
    return spread


@dataclass(frozen=True)
class HoursSpread:
    """What the settings page says of an hours budget: the items it buys, at how many seconds per judgment (measured
    or the default), and each topic's share now."""

    items: int
    seconds: float
    measured: bool
    topics: list[tuple[str, int]]


def hours_spread(campaign: Campaign) -> HoursSpread | None:
    if campaign.hours_budget is None:
        return None
    time = plan_seconds_per_judgment(measured=judging_time(campaign))
    spread = topic_budgets(campaign)
    return HoursSpread(items=hours_items(campaign), seconds=time.seconds, measured=time.measured,
                       topics=[(topic.topic_id, spread[topic.pk]) for topic in campaign.topics.order_by("position")
                               if topic.pk in spread])


def assignment_budget(*, assignment: Assignment) -> Budget:
    """The assignment's budget: the least of the campaign's budget per topic and its topic's share of the hours
    budget; None for a characterisation (its sample is its budget) or a campaign without budgets."""
    campaign = assignment.campaign
    if assignment.kind == Assignment.Kind.CHARACTERISATION or (campaign.topic_budget is None
                                                               and campaign.hours_budget is None):
        return Budget(items=None, done=0)
    limits = [campaign.topic_budget] if campaign.topic_budget is not None else []
    if campaign.hours_budget is not None:
        limits.append(topic_budgets(campaign).get(assignment.topic_id, 0))
    done = ItemVisit.objects.filter(assignment=assignment, completed_at__isnull=False).count()
    return Budget(items=min(limits), done=done)


def budget_close(*, assignment: Assignment) -> Budget:
    """Closes the assignment when its budget is spent (read-only from then on, as a topic the organizer closed; the
    organizer reopens it by reopening the topic, after raising the budget). A withdrawn or closed assignment stays
    as it is. Returns the budget."""
    budget = assignment_budget(assignment=assignment)
    if budget.spent and not assignment.read_only:
        assignment.closed_at = timezone.now()
        Assignment.objects.filter(pk=assignment.pk, closed_at__isnull=True).update(closed_at=assignment.closed_at)
    return budget


def budget_message(assignment: Assignment, budget: Budget) -> str:
    """What the assessor reads when the budget closed their assignment."""
    items = f"{budget.items} item{'' if budget.items == 1 else 's'}"
    return (f"Topic {assignment.topic.topic_id}: its judging budget ({items}) is spent, and the topic is closed for "
            "you. Thank you! The items left are not judged.")

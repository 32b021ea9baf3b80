"""Organizer reads over the judging work: each assessor's progress per topic, their measured time per judgment and a
projected finish date (docs/agreement.md, "Progress"), and the time per judgment the pool planner uses."""
from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Avg, Count, F, IntegerField, Max, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce, Least, TruncDate
from django.utils import timezone

from core.aggregates import Epoch, Median, Seconds
from ir.pools.stopping import TopicStopping, topic_stopping
from judging.models import Assignment, ItemVisit, Judgment
from judging.selectors import campaign_assignments
from pooling.models import Campaign, JudgingOrder, PoolItem

# Longest active time one submission may report: a page left open over a weekend is not a day of work.
MAX_ACTIVE_SECONDS = 4 * 3600


@dataclass
class ProgressRow:
    assessor: str
    topic: str
    kind: str
    round: int
    judged: int
    total: int
    # Seconds per completed item, on the server's clock (first shown to complete) and in active time; None where
    # none was measured.
    server_mean: float | None = None
    server_median: float | None = None
    active_mean: float | None = None
    active_median: float | None = None
    days: int = 0   # days on which an item was completed
    timed: int = 0   # completed items with a measured time (server or active)
    finish: dt.date | None = None

    @property
    def remaining(self) -> int:
        return max(self.total - self.judged, 0)

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.total) if self.total else 100

    @property
    def seconds_per_item(self) -> float | None:
        """Mean seconds per judged item: active time when the page measured it, else server time."""
        return self.active_mean or self.server_mean

    @property
    def per_hour(self) -> float | None:
        """Judgments per hour of work (`seconds_per_item`)."""
        seconds = self.seconds_per_item
        return 3600 / seconds if seconds else None


@dataclass
class ProgressReport:
    rows: list[ProgressRow]
    assessors: list[ProgressRow]   # one total row per assessor (topic "all")
    total: ProgressRow
    timed: int = 0   # judged items of the rows with a measured time (server or active); imported ones have none


def _timed() -> tuple[Q, Least, Q]:
    """(the visits whose server time counts, that time capped at MAX_ACTIVE_SECONDS, the visits with active time)."""
    return (Q(skipped_at__isnull=True, completed_at__gt=F("first_shown_at")),
            Least(Seconds("first_shown_at", "completed_at"), Value(float(MAX_ACTIVE_SECONDS))),
            Q(active_seconds__gt=0))


def visit_timing(visits: QuerySet[ItemVisit], *group: str) -> dict[tuple, dict]:
    """Means and medians of the completed visits' server and active seconds, their days and timed items, by the
    values of the `group` fields (one query; the database does the sums). Server time leaves out skipped items (the
    gap is not work) and items submitted without having been shown (imports, an API client that never asked for the
    item), and is capped at MAX_ACTIVE_SECONDS."""
    server_kept, server, active_kept = _timed()
    sums = {"server_mean": Avg(server, filter=server_kept), "server_median": Median(server, filter=server_kept),
            "active_mean": Avg("active_seconds", filter=active_kept),
            "active_median": Median("active_seconds", filter=active_kept),
            "days": Count(TruncDate("completed_at"), distinct=True),
            "timed": Count("pk", filter=server_kept | active_kept)}
    completed = visits.filter(completed_at__isnull=False).order_by()
    if not group:
        return {(): completed.aggregate(**sums)}
    return {tuple(row.pop(name) for name in group): row for row in completed.values(*group).annotate(**sums)}


def _project(row: ProgressRow, per_day: float | None, today: dt.date) -> dt.date | None:
    """The day the row's remaining items would be judged at `per_day`; None for a finished row (the page says done)
    and where no time was measured (no rate: imported judgments say nothing of a pace)."""
    if row.remaining == 0 or not per_day or row.per_hour is None:
        return None
    return today + dt.timedelta(days=math.ceil(row.remaining / per_day))


def progress_report(*, campaign: Campaign, today: dt.date | None = None,
                    visits_stamp: tuple | None = None) -> ProgressReport:
    """Per assessor and topic: judged of total items, seconds per judged item on the server's clock and in active
    time (`visit_timing`), judgments per hour, and a projected finish date at the assessor's own pace (items per day
    on which they judged). Two queries while nothing was judged since the last view (`progress_timing`);
    `visits_stamp`: the campaign's `visits_stamp`, when the caller has read it already."""
    today = today or timezone.localdate()
    assignments = (campaign_assignments(campaign=campaign).filter(withdrawn_at__isnull=True)
                   .order_by("assessor__username", "topic__position", "kind", "round"))
    rows = {a.pk: ProgressRow(a.assessor.username, a.topic.topic_id, a.kind, a.round, a.done, a.total)
            for a in assignments}
    per_assignment, per_assessor, overall = progress_timing(campaign, {pk: row.assessor for pk, row in rows.items()},
                                                            visits_stamp=visits_stamp)
    for pk, timing in per_assignment.items():
        vars(rows[pk]).update(timing)
    by_assessor: dict[str, ProgressRow] = {}
    for row in rows.values():
        total = by_assessor.setdefault(row.assessor, ProgressRow(row.assessor, "all", "", 0, 0, 0))
        total.judged += row.judged
        total.total += row.total
    for username, timing in per_assessor.items():
        vars(by_assessor[username]).update(timing)
    for row in rows.values():
        mine = by_assessor[row.assessor]
        row.finish = _project(row, mine.judged / mine.days if mine.days else None, today)
    for total in by_assessor.values():
        total.finish = _project(total, total.judged / total.days if total.days else None, today)
    everyone = ProgressRow("all", "all", "", 0, sum(r.judged for r in rows.values()),
                           sum(r.total for r in rows.values()), **overall)
    return ProgressReport(rows=list(rows.values()), assessors=[by_assessor[n] for n in sorted(by_assessor)],
                          total=everyone, timed=everyone.timed)


PROGRESS_CACHE_SECONDS = 7 * 24 * 3600


def progress_timing(campaign: Campaign, assessors: dict[int, str], *, visits_stamp: tuple | None = None
                    ) -> tuple[dict[int, dict], dict[str, dict], dict]:
    """`visit_timing` of the visits of the assignments in `assessors` (assignment pk -> assessor's username: the
    campaign's assignments not withdrawn) by assignment, by assessor and over all of them. Its three aggregates sort
    every completed visit (the medians) and took a sixth of a second at ARQMath-3's size, so their result is kept in
    the cache beside the campaign's `visits_stamp` (one aggregate, a fifth of their cost) and `assessors`: a visit
    shown, skipped, completed or given time, an assignment withdrawn or given to someone else makes the next view
    compute them again."""
    visits = ItemVisit.objects.filter(assignment_id__in=list(assessors)).order_by()
    stamp = (visits_stamp if visits_stamp is not None else campaign_visits_stamp(campaign),
             sorted(assessors.items()), timezone.get_current_timezone_name())
    key = f"progress-timing:v2:{campaign.pk}"
    cached = cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    timing = ({pk: t for (pk,), t in visit_timing(visits, "assignment_id").items()},
              {name: t for (name,), t in visit_timing(visits, "assignment__assessor__username").items()},
              visit_timing(visits)[()])
    cache.set(key, (stamp, timing), PROGRESS_CACHE_SECONDS)
    return timing


def campaign_visits_stamp(campaign: Campaign) -> tuple:
    """What the campaign's visits hold that their timing reads (`progress_timing`, `judging_time`), in one aggregate
    without a sort: a visit added or removed (their number, the last), skipped, completed or not any more, its
    completion or first showing moved, or given active time changes one of these. Visits of withdrawn assignments
    count too (they no longer change)."""
    row = ItemVisit.objects.filter(assignment__campaign=campaign).order_by().aggregate(
        n=Count("pk"), last=Max("pk"), completed=Count("completed_at"), skipped=Count("skipped_at"),
        last_skip=Max("skipped_at"), done=Sum(Epoch("completed_at")),
        shown=Sum(Epoch("first_shown_at"), filter=Q(completed_at__isnull=False)), active=Sum("active_seconds"))
    return tuple(row.values())


def judging_time(campaign: Campaign, *, visits_stamp: tuple | None = None) -> tuple[float, int] | None:
    """(mean seconds per judgment, judgments measured), for the pool planner: the time of the completed items
    (active time where the page reported it, else server time) over the judgments they hold (answers: one per item;
    formulas: one per instance, which is what the planner counts). None before anything is judged. The pages that
    show the planner give it to pooling.selectors.plan_seconds_per_judgment, which decides whether the sample is
    large enough. For answers it is kept in the cache beside the campaign's `visits_stamp` (given by a caller that
    has read it already), which is all it reads; formulas count each visit's judgments, and compute it each time."""
    if campaign.task == Campaign.Task.FORMULAS:
        return _judging_time(campaign)
    stamp = visits_stamp if visits_stamp is not None else campaign_visits_stamp(campaign)
    key = f"judging-time:{campaign.pk}"
    cached = cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    measured = _judging_time(campaign)
    cache.set(key, (stamp, measured), PROGRESS_CACHE_SECONDS)
    return measured


def _judging_time(campaign: Campaign) -> tuple[float, int] | None:
    # The judgments each visit's item holds (at least one: an item judged with none recorded counts as one). An
    # answer holds one judgment at most (one per assignment, item and instance, and an answer has no instance): one,
    # without a count per visit (15,000 of them took half a second at ARQMath-3's size).
    judgments: Value | Coalesce = Value(1)
    if campaign.task == Campaign.Task.FORMULAS:
        held = (Judgment.objects.filter(assignment_id=OuterRef("assignment_id"), item_id=OuterRef("item_id"))
                .order_by().values("assignment_id", "item_id").annotate(n=Count("*")).values("n"))
        judgments = Coalesce(Subquery(held, output_field=IntegerField()), Value(1))
    server_kept, server, active_kept = _timed()
    sums = (ItemVisit.objects.filter(assignment__campaign=campaign, completed_at__isnull=False).order_by()
            .aggregate(active=Sum("active_seconds", filter=active_kept), active_n=Sum(judgments, filter=active_kept),
                       server=Sum(server, filter=server_kept), server_n=Sum(judgments, filter=server_kept)))
    # Active time where any page reported it, else server time.
    for seconds, n in ((sums["active"], sums["active_n"]), (sums["server"], sums["server_n"])):
        if n:
            return seconds / n, n
    return None


@dataclass
class StoppingRow:
    """One topic's estimate of the relevant items left and the stopping rules' advice (ir/pools/stopping.py)."""

    topic: str
    stopping: TopicStopping | None  # None: nothing judged yet


STOPPING_CACHE_SECONDS = 7 * 24 * 3600


def stopping_report(*, campaign: Campaign) -> list[StoppingRow]:
    """Per topic with a pool, in topic order: the judged items of its official assignment (the one not withdrawn),
    relevant at the campaign's relevance level (a formula: any of its instances), in the order first judged, against
    its pool's provenance (docs/pooling.md, "Knowing when to stop"). The 78 regressions of a full campaign take a
    tenth of a second or more, and reading their pools half a second, so each topic's row is kept in the cache beside
    a stamp of what it reads (`_stopping_topic_stamps`, two grouped queries): a judgment, a revision or a withdrawal
    makes the next view compute its topic again, a rebuilt pool or a changed setting every topic."""
    topic_stamps = _stopping_topic_stamps(campaign)
    key = f"stopping-report:v2:{campaign.pk}"
    before: dict[int, tuple[tuple, StoppingRow]] = cache.get(key) or {}
    rows = {pk: before[pk][1] for pk, topic_stamp in topic_stamps.items()
            if pk in before and before[pk][0] == topic_stamp}
    stale = [pk for pk in topic_stamps if pk not in rows]
    rows.update(_stopping_rows(campaign, topic_pks=stale))
    # A topic whose pool went (a rebuild, a topic deleted) between the stamps and the rows is left out; its stamp
    # changed, so the next view looks again.
    kept = [pk for pk in topic_stamps if pk in rows]
    if stale or len(before) != len(kept):
        cache.set(key, {pk: (topic_stamps[pk], rows[pk]) for pk in kept}, STOPPING_CACHE_SECONDS)
    return [rows[pk] for pk in kept]


def _stopping_topic_stamps(campaign: Campaign) -> dict[int, tuple]:
    """Topic pk -> what its row reads: its pool rows (their number and newest id), its official assignment's
    judgments (their number, latest change, summed revisions and the assignment) and the campaign's settings; the
    topics with a pool, in topic order. Two grouped queries."""
    settings = (campaign.judging_order, campaign.warm_up, campaign.relevance_level)
    judged = {topic_pk: rest for topic_pk, *rest in (
        Judgment.objects.filter(assignment__campaign=campaign, assignment__kind=Assignment.Kind.OFFICIAL,
                                assignment__withdrawn_at__isnull=True)
        .order_by().values("assignment__topic_id")
        .annotate(n=Count("pk"), latest=Max("updated_at"), summed=Sum("revision"), assignment=Max("assignment_id"))
        .values_list("assignment__topic_id", "n", "latest", "summed", "assignment"))}
    return {topic_pk: (n, last, *judged.get(topic_pk, ()), *settings) for topic_pk, n, last in (
        PoolItem.objects.filter(campaign=campaign).order_by().values("topic_id")
        .annotate(n=Count("pk"), last=Max("pk"), position=Max("topic__position")).order_by("position")
        .values_list("topic_id", "n", "last"))}


def _stopping_rows(campaign: Campaign, *, topic_pks: list[int]) -> dict[int, StoppingRow]:
    if not topic_pks:
        return {}
    pools: dict[int, dict[str, list[tuple[str, int]]]] = {}
    names: dict[int, str] = {}
    for topic_pk, topic_id, item_id, provenance in (
            PoolItem.objects.filter(campaign=campaign, topic_id__in=topic_pks).order_by("topic__position", "position")
            .values_list("topic_id", "topic__topic_id", "item_id", "provenance").iterator(chunk_size=5000)):
        pools.setdefault(topic_pk, {})[item_id] = [(run, rank) for run, rank in provenance]
        names[topic_pk] = topic_id
    judged: dict[int, dict[str, bool]] = {}
    relevant_grades = set(campaign.judging_scheme.relevant_grades(campaign.relevance_level))
    for topic_pk, item_id, grade in (
            Judgment.objects.filter(assignment__campaign=campaign, assignment__kind=Assignment.Kind.OFFICIAL,
                                    assignment__withdrawn_at__isnull=True, assignment__topic_id__in=topic_pks)
            .order_by("assignment__topic_id", "submitted_at", "pk")
            .values_list("assignment__topic_id", "item_id", "grade").iterator(chunk_size=5000)):
        relevant = grade in relevant_grades
        items = judged.setdefault(topic_pk, {})
        items[item_id] = items.get(item_id, False) or relevant
    adaptive = campaign.judging_order != JudgingOrder.RANDOM
    return {pk: StoppingRow(topic=names[pk], stopping=topic_stopping(pool, judged[pk], warm_up=campaign.warm_up,
                                                                     adaptive=adaptive) if judged.get(pk) else None)
            for pk, pool in pools.items()}

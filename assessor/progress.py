"""Organizer reads over the judging work: each assessor's progress per topic, their measured time per judgment and a
projected finish date (SPEC 7, the progress dashboard), and the time per judgment the pool planner uses."""
from __future__ import annotations

import datetime as dt
import math
import statistics
from dataclasses import dataclass, field

from django.db.models import Count
from django.utils import timezone

from pooling.models import Campaign

from .models import ItemVisit, Judgment
from .selectors import campaign_assignments
from .services import MAX_ACTIVE_SECONDS


@dataclass
class ProgressRow:
    assessor: str
    topic: str
    kind: str
    round: int
    judged: int
    total: int
    server: list[float]   # seconds from first shown to complete, per completed item
    active: list[float]   # active seconds per completed item the page reported time for
    days: set = field(default_factory=set)
    finish: dt.date | None = None

    @property
    def remaining(self) -> int:
        return max(self.total - self.judged, 0)

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.total) if self.total else 100

    @property
    def server_mean(self) -> float | None:
        return statistics.fmean(self.server) if self.server else None

    @property
    def server_median(self) -> float | None:
        return statistics.median(self.server) if self.server else None

    @property
    def active_mean(self) -> float | None:
        return statistics.fmean(self.active) if self.active else None

    @property
    def active_median(self) -> float | None:
        return statistics.median(self.active) if self.active else None

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


def _seconds(visit_first: dt.datetime, completed: dt.datetime) -> float:
    return min(max((completed - visit_first).total_seconds(), 0.0), MAX_ACTIVE_SECONDS)


def _project(row: ProgressRow, per_day: float | None, today: dt.date) -> dt.date | None:
    """The day the row's remaining items would be judged at `per_day`; None for a finished row (the page says done)
    and where no time was measured (no rate: imported judgments say nothing of a pace)."""
    if row.remaining == 0 or not per_day or row.per_hour is None:
        return None
    return today + dt.timedelta(days=math.ceil(row.remaining / per_day))


def progress_report(*, campaign: Campaign, today: dt.date | None = None) -> ProgressReport:
    """Per assessor and topic: judged of total items, seconds per judged item on the server's clock (first shown
    to complete; items skipped on the way, or never shown before their submission, are left out of it) and in
    active time, judgments per hour, and a projected finish date at the assessor's own pace (items per day on which
    they judged)."""
    today = today or timezone.localdate()
    assignments = (campaign_assignments(campaign=campaign).filter(withdrawn_at__isnull=True)
                   .order_by("assessor__username", "topic__position", "kind", "round"))
    rows = {a.pk: ProgressRow(a.assessor.username, a.topic.topic_id, a.kind, a.round, a.done, a.total, [], [])
            for a in assignments}
    visits = (ItemVisit.objects.filter(assignment_id__in=list(rows), completed_at__isnull=False)
              .values_list("assignment_id", "first_shown_at", "completed_at", "skipped_at", "active_seconds"))
    timed = 0
    for pk, first, completed, skipped, active in visits.iterator(chunk_size=5000):
        assert completed is not None  # completed_at__isnull=False
        row = rows[pk]
        row.days.add(timezone.localdate(completed))
        # Skipped items: the gap is not work. Submitted without having been shown (imports, an API client that
        # never asked for the item): no server time was measured.
        server = skipped is None and completed > first
        if server:
            row.server.append(_seconds(first, completed))
        if active > 0:
            row.active.append(active)
        timed += server or active > 0
    by_assessor: dict[str, ProgressRow] = {}
    for row in rows.values():
        total = by_assessor.setdefault(row.assessor, ProgressRow(row.assessor, "all", "", 0, 0, 0, [], []))
        total.judged += row.judged
        total.total += row.total
        total.server += row.server
        total.active += row.active
        total.days |= row.days
    for row in rows.values():
        mine = by_assessor[row.assessor]
        per_day = mine.judged / len(mine.days) if mine.days else None
        row.finish = _project(row, per_day, today)
    for total in by_assessor.values():
        total.finish = _project(total, total.judged / len(total.days) if total.days else None, today)
    everyone = ProgressRow("all", "all", "", 0, sum(r.judged for r in rows.values()),
                           sum(r.total for r in rows.values()), [s for r in rows.values() for s in r.server],
                           [s for r in rows.values() for s in r.active])
    return ProgressReport(rows=list(rows.values()), assessors=[by_assessor[n] for n in sorted(by_assessor)],
                          total=everyone, timed=timed)


def seconds_per_judgment(campaign: Campaign) -> float | None:
    """The campaign's measured mean seconds per judgment (see `judging_time`); None before anything is judged."""
    measured = judging_time(campaign)
    return measured[0] if measured else None


def judging_time(campaign: Campaign) -> tuple[float, int] | None:
    """(mean seconds per judgment, judgments measured), for the pool planner: the time of the completed items
    (active time where the page reported it, else server time) over the judgments they hold (answers: one per item;
    formulas: one per instance, which is what the planner counts). None before anything is judged. The pages that
    show the planner give it to pooling.selectors.plan_seconds_per_judgment, which decides whether the sample is
    large enough."""
    visits = ItemVisit.objects.filter(assignment__campaign=campaign, completed_at__isnull=False)
    timed = [(pk, item, a) for pk, item, a in
             visits.filter(active_seconds__gt=0).values_list("assignment_id", "item_id", "active_seconds")]
    if not timed:
        timed = [(pk, item, _seconds(first, done)) for pk, item, first, done in visits.filter(
            skipped_at__isnull=True).values_list("assignment_id", "item_id", "first_shown_at", "completed_at")
            if done is not None and done > first]  # done: never None (completed_at__isnull=False)
    if not timed:
        return None
    counts = {(pk, item): n for pk, item, n in Judgment.objects.filter(assignment__campaign=campaign).order_by()
              .values_list("assignment_id", "item_id").annotate(n=Count("id")).values_list("assignment_id",
                                                                                          "item_id", "n")}
    judgments = sum(counts.get((pk, item), 1) for pk, item, _ in timed)
    return sum(seconds for _, _, seconds in timed) / judgments, judgments

"""Reads of the Job rows for the jobs pages."""
from __future__ import annotations

from django.db.models import QuerySet

from jobs.models import Job
from jobs.registry import unlisted_kinds
from pooling.models import Campaign


def job_list(*, campaign: Campaign | None = None, limit: int = 100) -> QuerySet[Job]:
    """The latest jobs (of a campaign), newest first, without the housekeeping kinds (a scores refresh)."""
    jobs = Job.objects.select_related("campaign", "collection", "created_by").exclude(kind__in=unlisted_kinds())
    if campaign is not None:
        jobs = jobs.filter(campaign=campaign)
    return jobs[:limit]

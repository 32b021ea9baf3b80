"""Reads of the pooling app for pages and APIs."""
from __future__ import annotations

from django.db.models import Count, QuerySet

from .models import Campaign, Collection, Job


def campaign_list() -> QuerySet[Campaign]:
    return (Campaign.objects.select_related("collection")
            .annotate(topic_count=Count("topics", distinct=True), run_count=Count("runs", distinct=True)))


def collection_list() -> QuerySet[Collection]:
    return Collection.objects.annotate(campaign_count=Count("campaigns", distinct=True))


def job_list(*, campaign: Campaign | None = None, limit: int = 100) -> QuerySet[Job]:
    jobs = Job.objects.select_related("campaign", "collection", "created_by")
    if campaign is not None:
        jobs = jobs.filter(campaign=campaign)
    return jobs[:limit]

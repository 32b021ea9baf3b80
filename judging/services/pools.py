"""The judging app's side of every change to a campaign's pools (docs/architecture.md, "Which app imports which").

Pooling does not know what is judged: it is told. Each function here, in one transaction, locks the campaign,
reads what is judged (selectors.judged_items_of_campaign), calls pooling's service with it, and, when pools that
held judged items were rebuilt, recounts what each assessor has completed (visits_recount). The pages, API, jobs
and commands that build pools, change runs or settings, or delete a campaign call these, never pooling's own.
"""
from __future__ import annotations

import os
from typing import Unpack

from django.contrib.auth.models import User
from django.db import transaction

from ir.grades import Scheme
from jobs.models import Job
from judging.selectors import judged_items_of_campaign
from judging.services.assignments import campaign_rows_delete
from judging.services.judgments import visits_recount
from pooling import services as pooling
from pooling.models import Campaign, Run
from pooling.services.common import Progress


def _judged_locked(campaign: Campaign) -> pooling.JudgedItems:
    """What is judged in the campaign, read under its lock: no other build or change of its pools until the caller's
    transaction ends."""
    pooling.campaign_lock(campaign=campaign)
    return judged_items_of_campaign(campaign)


def _recounted(campaign: Campaign, judged: pooling.JudgedItems, after: pooling.PoolsAfter) -> pooling.PoolsAfter:
    if judged and after.rebuilt is not None:
        visits_recount(campaign=campaign)
    return after


@transaction.atomic
def pools_rebuild(*, campaign: Campaign, force: bool = False, progress: Progress = None) -> pooling.PoolBuildResult:
    """Builds (or rebuilds) the campaign's pools: pooling.services.pool_build told what is judged. Once judging has
    started only with `force`, which keeps every judgment; the visits are then recounted against the new pools."""
    judged = _judged_locked(campaign)
    result = pooling.pool_build(campaign=campaign, judged_items=judged, force=force, progress=progress)
    if judged:
        visits_recount(campaign=campaign)
    return result


@transaction.atomic
def run_delete(*, run: Run, force: bool = False) -> pooling.PoolsAfter:
    """pooling.services.run_delete told what is judged; the visits recounted if judged pools were rebuilt."""
    judged = _judged_locked(run.campaign)
    return _recounted(run.campaign, judged, pooling.run_delete(run=run, judged_items=judged, force=force))


@transaction.atomic
def run_replace(
    *,
    run: Run,
    path: str | os.PathLike,
    filename: str | None = None,
    force: bool = False,
    user: User | None = None,
    progress: Progress = None,
) -> tuple[Run, pooling.PoolsAfter]:
    """pooling.services.run_replace told what is judged; the visits recounted if judged pools were rebuilt."""
    judged = _judged_locked(run.campaign)
    new, after = pooling.run_replace(run=run, judged_items=judged, path=path, filename=filename, force=force,
                                     user=user, progress=progress)
    return new, _recounted(run.campaign, judged, after)


@transaction.atomic
def campaign_update(
    *,
    campaign: Campaign,
    name: str | None = None,
    collection_name: str | None = None,
    force: bool = False,
    scheme: Scheme | None = None,
    **settings: Unpack[pooling.CampaignSettings],
) -> tuple[Campaign, pooling.PoolsAfter]:
    """pooling.services.campaign_update (the same name, collection, scheme and settings) told what is judged; the
    visits recounted if judged pools were rebuilt."""
    judged = _judged_locked(campaign)
    campaign, after = pooling.campaign_update(campaign=campaign, judged_items=judged, name=name,
                                              collection_name=collection_name, force=force, scheme=scheme, **settings)
    return campaign, _recounted(campaign, judged, after)


@transaction.atomic
def campaign_delete_start(*, campaign: Campaign) -> pooling.CampaignContents:
    """The first step of a campaign delete, in the request: refused with a judgment (nothing an assessor submitted is
    ever deleted, and nothing is deleted); else its assignments, what each assessor was shown and its training rounds
    go (assignments protect the campaign; without them nobody judges in it any more) and pooling marks it as being
    deleted (pooling.campaign_delete_start). A job then runs campaign_delete."""
    judged = _judged_locked(campaign)
    if not judged:
        campaign_rows_delete(campaign=campaign)
    return pooling.campaign_delete_start(campaign=campaign, judged_items=judged)


def campaign_delete(*, campaign: Campaign, progress: Progress = None) -> pooling.CampaignContents:
    """Deletes a campaign that has no judgment, in steps that each hold its lock for a moment: campaign_delete_start
    unless the request took it, its run rows a topic at a time (pooling.campaign_entries_delete, with progress), then
    in one transaction whatever judging rows appeared meanwhile and pooling.campaign_delete its topics, runs, pools
    and jobs. With a judgment, pooling refuses and nothing an assessor submitted is deleted. Returns what was
    deleted (runs counted by their rows as loaded)."""
    if not campaign.deleting:
        campaign_delete_start(campaign=campaign)
    pooling.campaign_entries_delete(campaign=campaign, progress=progress)
    with transaction.atomic():
        pooling.campaign_lock(campaign=campaign, being_deleted=True)
        judged = judged_items_of_campaign(campaign)
        if not judged:
            campaign_rows_delete(campaign=campaign)
            # The job deleting the campaign stays in the jobs list, its name in its params (a refusal rolls back).
            campaign.jobs.filter(kind=Job.Kind.CAMPAIGN_DELETE).update(campaign=None)
        return pooling.campaign_delete(campaign=campaign, judged_items=judged)

"""Undoing an organizer's mistake: deleting or replacing a run, editing a campaign's settings, deleting a campaign.

Nothing an assessor submitted is ever deleted (docs/pooling.md, "Undoing a mistake"). Before judging starts a run may go
or be replaced freely; once any item is judged only with `force`, and then the pools are rebuilt by pool_build's forced
rebuild, which keeps every judgment (judgments name their items by id, not by a pool row) and reports the judged items
the new pools leave out. A campaign with judgments is never deleted. docs/pooling.md, "Undoing a mistake".

Each change is told what is judged (`judged_items`, as pool_build is): the judging app's services
(assessor/services/pools.py) read it under the campaign's lock and call these.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Unpack

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import PROTECT, ProtectedError

from core.bounds import max_chars
from ir.grades import Scheme
from ir.problems import InputError, Problem
from pooling.models import AnswerSentence, Campaign, Collection, PoolItem, Run, RunAnswer, RunEntry, Topic
from pooling.services.campaigns import (
    CampaignSettings,
    campaign_problems,
    collection_get_or_create,
    setting_label,
    settings_chosen,
)
from pooling.services.common import Progress
from pooling.services.corpus import missing_documents_warnings
from pooling.services.pools import (
    JudgedItems,
    PoolBuildResult,
    campaign_lock,
    judged_count,
    pool_build,
    pool_rows_delete,
    unpooled_warnings,
)
from pooling.services.runs import run_facts_set, run_ingest, run_options

# The settings that decide what the pools hold: once the pools are built they change only with a rebuild.
POOL_SETTINGS = ("primary_depth", "alternate_depth", "instances", "selection", "seed")


@dataclass
class PoolsAfter:
    """What a change did to the campaign's pools: None when they had not been built (nothing to redo)."""

    rebuilt: PoolBuildResult | None = None
    unpooled: list[list[str]] = field(default_factory=list)

    def messages(self) -> list[str]:
        """The judged items the new pools left out (and the pooled documents a corpus lacks), as job warnings and
        command lines say them."""
        missing = self.rebuilt.documents_missing if self.rebuilt is not None else None
        return unpooled_warnings(self.unpooled) + missing_documents_warnings(missing or [])


def pools_built(*, campaign: Campaign) -> bool:
    return PoolItem.objects.filter(campaign=campaign).exists()


def _lock_run(run: Run) -> Campaign:
    """Locks the run's campaign, then checks the run is still there (another change may have taken it meanwhile)."""
    campaign = run.campaign
    campaign_lock(campaign=campaign)
    if not Run.objects.filter(pk=run.pk).exists():
        raise InputError(f"run '{run.name}' no longer exists in campaign '{campaign.name}'")
    return campaign


def _refuse_once_judged(campaign: Campaign, judged: JudgedItems, force: bool, what: str) -> bool:
    """Raises unless judging has not started or `force` is given; True when judging has started."""
    items, topics = judged_count(judged)
    if items and not force:
        raise InputError(
            f"judging has started in campaign '{campaign.name}' ({items} judged items in {topics} topics): {what}. "
            "Forced, the pools are rebuilt and every judgment is kept (the judged items the new pools leave out "
            "are listed)")
    return bool(items)


def _pools_redo(campaign: Campaign, was_built: bool, judged: JudgedItems) -> PoolsAfter:
    """Rebuilds pools that had been built, after the runs or the settings changed under them."""
    if not was_built:
        return PoolsAfter()
    if campaign.runs.exists():
        result = pool_build(campaign=campaign, judged_items=judged, force=True)
        return PoolsAfter(rebuilt=result, unpooled=result.unpooled or [])
    # The last run went: no pools, and every judged item is out of them (its judgments stay).
    pool_rows_delete(campaign)
    topic_ids = dict(campaign.topics.values_list("pk", "topic_id"))
    return PoolsAfter(rebuilt=PoolBuildResult(sizes={}, items=0),
                      unpooled=sorted([topic_ids[pk], item] for pk, items in judged.items() for item in items))


@transaction.atomic
def run_delete(*, run: Run, judged_items: JudgedItems, force: bool = False) -> PoolsAfter:
    """Deletes a run and its rows. Built pools are rebuilt from the runs left; once judging has started only
    with `force` (every judgment kept)."""
    campaign = _lock_run(run)
    _refuse_once_judged(campaign, judged_items, force, f"run '{run.name}' was not deleted")
    was_built = pools_built(campaign=campaign)
    with _labels_kept(f"run '{run.name}' was not deleted"):
        run.delete()  # with its rows, in one DELETE: nothing points at a RunEntry, so Django does not load them first
    return _pools_redo(campaign, was_built, judged_items)


@transaction.atomic
def run_replace(
    *,
    run: Run,
    judged_items: JudgedItems,
    path: str | os.PathLike,
    filename: str | None = None,
    force: bool = False,
    user: User | None = None,
    progress: Progress = None,
) -> tuple[Run, PoolsAfter]:
    """Replaces a run's file: the new file becomes the run of the same name, with the same options (its facts:
    kind, manual, baseline, team, ...; its own depth). A rejected file changes nothing, the old run included. Built
    pools are rebuilt; once judging has started only with `force` (every judgment kept)."""
    campaign = _lock_run(run)
    _refuse_once_judged(campaign, judged_items, force, f"run '{run.name}' was not replaced")
    was_built = pools_built(campaign=campaign)
    with _labels_kept(f"run '{run.name}' was not replaced"):
        Run.objects.filter(pk=run.pk).delete()  # not run.delete(): a rejected file leaves the caller's run as it was
    # allow_missing: the run was taken once; its ids missing from the collection are a warning, as they were then.
    options = run_options(run)
    options["allow_missing"] = True
    new = run_ingest(campaign=campaign, path=path, filename=filename, user=user, progress=progress, **options)
    # Its facts as they were, edited ones included: a mark unticked or a fact emptied is not read from the name again.
    run_facts_set(run=new, **{fact: getattr(run, fact) for fact in Run.FACTS})
    return new, _pools_redo(campaign, was_built, judged_items)


@transaction.atomic
def campaign_update(
    *,
    campaign: Campaign,
    judged_items: JudgedItems,
    name: str | None = None,
    collection_name: str | None = None,
    force: bool = False,
    scheme: Scheme | None = None,
    **settings: Unpack[CampaignSettings],
) -> tuple[Campaign, PoolsAfter]:
    """Changes a campaign's settings; None leaves a setting as it is. The task never changes (its topics and runs
    were read for it). The name may always change. The pooling settings change freely until the pools are built;
    then only with `force`, which rebuilds the pools at once (once judging has started, every judgment is kept).
    The collection changes only while the campaign has no run (runs are checked against it); the maximum run depth
    only rises once runs are in (they were read against it)."""
    campaign_lock(campaign=campaign)
    campaign.refresh_from_db()
    changed: dict[str, object] = {k: v for k, v in settings_chosen(settings).items() if v != getattr(campaign, k)}
    if name is not None and name.strip() != campaign.name:
        changed["name"] = name.strip()
    problems: list[str] = []
    has_runs = campaign.runs.exists()
    collection = campaign.collection
    if collection_name is not None and collection_name.strip() != (collection.name if collection else ""):
        if has_runs:
            problems.append(f"the collection cannot change: the campaign's runs were checked against "
                            f"'{collection or 'no collection'}'. Delete its runs first, or create a new campaign")
        elif len(collection_name.strip()) > max_chars(Collection, "name"):
            problems.append("collection: a collection name has at most 100 characters")
        elif not collection_name.strip():
            changed["collection"] = None
        else:
            changed["collection"] = collection_get_or_create(name=collection_name)
    if scheme is not None and scheme != campaign.judging_scheme:
        # The judging scheme changes until judging starts (a judgment's grade is read in the scheme it was given in).
        if any(judged_items.values()):
            problems.append("the judging scheme cannot change: judging has started (its grades are read in it)")
        elif scheme.facets and campaign.task != Campaign.Task.ANSWERS:
            problems.append("a scheme with facets judges answers: formulas are graded instance by instance")
        else:
            changed["scheme"] = scheme.to_json()
            changed.setdefault("relevance_level", scheme.relevance_level)
    max_depth = settings.get("max_depth")
    if has_runs and max_depth is not None and max_depth < campaign.max_depth:
        problems.append(f"the maximum run depth cannot go below {campaign.max_depth}: the campaign's runs were "
                        "read against it (it may rise)")
    # Pooling answers reads neither the instance count nor the selection.
    unread = ("instances", "selection") if campaign.task == Campaign.Task.ANSWERS else ()
    pooled = [k for k in POOL_SETTINGS if k in changed and k not in unread]
    was_built = pools_built(campaign=campaign)
    if pooled and was_built and not force:
        problems.append(
            f"the pools are built: {', '.join(setting_label(k) for k in pooled)} would change what they hold, so "
            "nothing was changed. Forced, the settings change and the pools are rebuilt at once (every judgment is "
            "kept; the judged items the new pools leave out are listed); the name may change without it")
    for key, value in changed.items():
        setattr(campaign, key, value)
    problems += campaign_problems(campaign)
    if problems:
        campaign.refresh_from_db()  # the caller's object as it was: nothing changed
        raise InputError([Problem(None, p) for p in problems])
    if changed:
        campaign.save(update_fields=[k for k in changed])
    return campaign, _pools_redo(campaign, was_built and bool(pooled), judged_items)


@dataclass(frozen=True)
class CampaignContents:
    """What deleting a campaign would delete, counted for the confirmation page, and the judged items that
    forbid it."""

    topics: int
    runs: int
    run_rows: int
    pool_items: int
    jobs: int
    judged_items: int


def campaign_contents(*, campaign: Campaign, judged: int) -> CampaignContents:
    """What deleting the campaign would delete, with `judged`, its judged items (judged_count, or the judging app's
    count where a page shows only the number)."""
    return CampaignContents(
        topics=campaign.topics.count(), runs=campaign.runs.count(),
        run_rows=sum(campaign.runs.values_list("row_count", flat=True)),
        pool_items=PoolItem.objects.filter(campaign=campaign).count(), jobs=campaign.jobs.count(),
        judged_items=judged)


def _refuse_judged(campaign: Campaign, contents: CampaignContents) -> None:
    if contents.judged_items:
        raise InputError(
            f"campaign '{campaign.name}' has judgments ({contents.judged_items} judged items) and is kept: nothing "
            "an assessor submitted is ever deleted. Export its qrels or close its topics instead")


# How each of pooling's rows that other apps' rows may protect (on_delete=PROTECT) reaches its campaign.
_PROTECTABLE = {Campaign: "", Topic: "campaign", Run: "campaign", RunAnswer: "run__campaign",
                AnswerSentence: "answer__run__campaign"}


def protecting_rows(campaign: Campaign) -> str:
    """The model of the first rows of another app that protect the campaign or one of its topics, runs, answers or
    sentences from a delete (judging's unjudged assignments are gone by now: its caller deletes them first); "" when
    none. Read from the models' relations, so that pooling names no app above it."""
    for model, path in _PROTECTABLE.items():
        for relation in model._meta.related_objects:
            if getattr(relation, "on_delete", None) is not PROTECT:
                continue
            lookup = relation.field.name + (f"__{path}" if path else "")
            if relation.related_model._default_manager.filter(**{lookup: campaign}).exists():
                return str(relation.related_model._meta.verbose_name_plural)
    return ""


@transaction.atomic
def campaign_delete_start(*, campaign: Campaign, judged_items: JudgedItems) -> CampaignContents:
    """The first step of a campaign delete, short enough for a request: refused once any item is judged (nothing an
    assessor submitted is ever deleted) or while it is already being deleted; else marks the campaign as being
    deleted, so that nothing new starts on it (campaign_lock and job_create refuse it), and counts what will go.
    The rows then go in batches (campaign_entries_delete), and the rest with campaign_delete."""
    campaign_lock(campaign=campaign)
    contents = campaign_contents(campaign=campaign, judged=judged_count(judged_items)[0])
    _refuse_judged(campaign, contents)
    kept = protecting_rows(campaign)
    if kept:
        raise InputError(f"campaign '{campaign.name}' is kept: it has {kept} (of its generated answers, say), which "
                         "protect it: nothing judged is ever deleted")
    campaign.deleting = True
    campaign.save(update_fields=["deleting"])
    return contents


def campaign_entries_delete(*, campaign: Campaign, progress: Progress = None) -> int:
    """Deletes the run rows of a campaign being deleted, one topic at a time (that topic's rows of every run), each
    in a transaction of its own: a million rows no longer hold the campaign for the whole delete. Progress is the
    share of the runs' rows gone. Returns the rows deleted; run again after an interruption, it deletes the rest."""
    assert campaign.deleting, "campaign_delete_start marks the campaign first"
    runs = list(campaign.runs.values_list("pk", flat=True))
    total = sum(campaign.runs.values_list("row_count", flat=True))
    deleted = 0
    if not runs:
        return 0
    for topic in campaign.topics.values_list("pk", flat=True):
        with transaction.atomic():
            deleted += RunEntry.objects.filter(run_id__in=runs, topic_id=topic).delete()[0]
        if progress is not None and total:
            progress(min(deleted / total, 0.99))
    return deleted


@transaction.atomic
def campaign_delete(*, campaign: Campaign, judged_items: JudgedItems) -> CampaignContents:
    """The last step of a campaign delete (after campaign_delete_start, and campaign_entries_delete for a large one):
    deletes the campaign with its topics, runs, pools and jobs (its caller, judging's campaign_delete, first detaches
    the job deleting it, which stays in the jobs list). Refused once any item is judged: nothing an assessor submitted
    is ever deleted. The judging app's rows of the campaign (its assignments protect it) are deleted first by its
    caller, assessor.services.campaign_delete."""
    campaign_lock(campaign=campaign, being_deleted=True)
    contents = campaign_contents(campaign=campaign, judged=judged_count(judged_items)[0])
    _refuse_judged(campaign, contents)
    pool_rows_delete(campaign)
    with _labels_kept(f"campaign '{campaign.name}' was not deleted"):
        campaign.delete()
    return contents


@contextmanager
def _labels_kept(refused: str) -> Iterator[None]:
    """A delete that would take support or citation labels of generated answers (people's or the LLM's: their rows
    protect the answers, docs/nuggets.md) is refused instead, in the caller's transaction: nothing is deleted."""
    try:
        yield
    except ProtectedError:
        raise InputError(f"{refused}: its generated answers have support or citation labels (or support assignments), "
                         "and nothing judged is ever deleted") from None

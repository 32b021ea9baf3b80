"""Fused runs into a campaign (docs/evaluation.md "Fused runs"): a fused run (evaluation/fusion.py) ingested
as a baseline marked fused, through the run ingest service (fuse_runs --ingest) or its job (the campaign page's "Add a
fused baseline")."""
from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from django.contrib.auth.models import AnonymousUser, User
from django.core.files.base import ContentFile
from django.db import transaction

from evaluation.fusion import Sources, fused_text, stored_sources
from ir import fusion
from ir.problems import InputError
from jobs.models import Job
from jobs.runner import job_create
from jobs.store import upload_save
from judging.tasks import RunIngestParams
from pooling.models import Campaign, Run
from pooling.services import run_ingest


def fused_ingest(*, campaign: Campaign, sources: Sources, how: fusion.Settings, name: str,
                 user: User | None = None) -> Run:
    """Fuses and stores the fused run in the campaign through the run ingest service (its checks, its rows), marked a
    baseline and fused, its method and sources in `fused_from`."""
    text = fused_text(sources=sources, how=how, name=name)
    with tempfile.TemporaryDirectory(prefix="assess-fused-") as folder:
        path = Path(folder) / f"{name}.tsv"
        path.write_text(text, encoding="utf-8")
        return run_ingest(campaign=campaign, path=path, filename=path.name, user=user, name=name, baseline=True,
                          fused=True, fused_from=how.as_dict())


@transaction.atomic
def fused_upload(*, campaign: Campaign, names: Sequence[str], how: fusion.Settings, name: str,
                 user: User | AnonymousUser | None) -> Job:
    """The campaign page's "Add a fused baseline": fuses the stored runs and queues the job that ingests the fused run
    (as an uploaded run file is ingested), marked a baseline and fused."""
    if Run.objects.filter(campaign=campaign, name=name).exists():
        raise InputError(f"the campaign already has a run named '{name}'")
    text = fused_text(sources=stored_sources(campaign=campaign, names=names), how=how, name=name)
    stored = upload_save(file=ContentFile(text.encode("utf-8"), name=f"{name}.tsv"))
    return job_create(campaign=campaign, user=user, params=RunIngestParams(
        upload=stored, filename=f"{name}.tsv",
        options={"name": name, "baseline": True, "fused": True, "fused_from": how.as_dict()}))

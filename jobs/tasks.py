"""The kinds of job whose work is pooling's alone (a topic file's ingest, a collection's): pooling lies below the jobs
layer and cannot register them itself, so they are registered here, each calling one pooling service. The one Celery
task every job runs through is the runner's (jobs/runner.py)."""
from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import ClassVar

from core.words import counted
from jobs.models import Job
from jobs.registry import JobParams, Progress, UploadParams, job_campaign, register
from jobs.store import upload_local
from pooling import services


@dataclass(frozen=True)
class TopicsIngestParams(UploadParams):
    """A topic file (its name in the store) for services.topics_ingest."""

    kind: ClassVar[str] = Job.Kind.TOPICS_INGEST


def topics_ingest_handler(job: Job, p: TopicsIngestParams, progress: Progress) -> tuple[dict, list[str]]:
    with upload_local(p.upload) as path:
        return asdict(services.topics_ingest(campaign=job_campaign(job), path=path, filename=p.filename)), []


def topics_ingest_summary(job: Job) -> str:
    r = job.result
    return (f"Loaded {counted(r.get('total', 0), 'topic')}{_from_file(job)}: {r.get('created', 0):,} new, "
            f"{r.get('updated', 0):,} updated.")


def _from_file(job: Job) -> str:
    source = job.params.get("filename")
    return f" from {source}" if source else ""


@dataclass(frozen=True)
class CollectionIngestParams(JobParams):
    """Collection files (their names in the store) for services.collection_ingest, into the collection of that name
    (created if need be); `names` are the files' names as uploaded."""

    kind: ClassVar[str] = Job.Kind.COLLECTION_INGEST
    collection: str
    uploads: list[str]
    names: list[str] = field(default_factory=list)
    replace: bool = False  # the collection's documents replaced (services.collection_ingest)

    def uploads_stored(self) -> list[str]:
        return list(self.uploads)


def collection_ingest_handler(job: Job, p: CollectionIngestParams, progress: Progress) -> tuple[dict, list[str]]:
    with ExitStack() as files:
        paths: list[str | os.PathLike] = [files.enter_context(upload_local(name)) for name in p.uploads]
        result = services.collection_ingest(collection_name=p.collection, paths=paths, names=p.names or None,
                                            progress=progress, replace=p.replace)
    # The collection may have been created by this job: link it now that it exists.
    job.collection_id = result.collection
    job.save(update_fields=["collection"])
    return {"counts": result.counts}, result.warnings


_COLLECTION_KINDS = {"posts": ("post", None), "jsonl": ("document", None), "comments": ("comment", None),
                     "formulas": ("formula", None), "formula_extra": ("formula representation", None),
                     "slt_index": ("SLT string", None), "opt_index": ("OPT string", None)}


def collection_ingest_summary(job: Job) -> str:
    r = job.result
    names = job.params.get("names") or [Path(p).name for p in job.params.get("paths", [])]
    parts = [counted(n, *_COLLECTION_KINDS.get(kind, (kind, None))) for kind, n in r.get("counts", {}).items()]
    into = f" into collection {job.collection.name}" if job.collection is not None else ""
    files = f" from {', '.join(names)}" if names else ""
    return f"Loaded {', '.join(parts) or 'nothing'}{into}{files}."


register(TopicsIngestParams, topics_ingest_handler, summary=topics_ingest_summary)
register(CollectionIngestParams, collection_ingest_handler, summary=collection_ingest_summary)

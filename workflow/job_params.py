"""What each kind of job is given: one dataclass per kind. A job is created from one (job_create stores it as the
job's JSON `params`) and runs its service with the same dataclass read back (`params_of`), so a page, the API and
the worker cannot disagree on a name or a type."""
from __future__ import annotations

from dataclasses import Field, asdict, dataclass, field
from typing import Any, ClassVar, Self

from pooling.models import Job, Run
from pooling.services import RunIngestOptions, run_options


class JobParams:
    kind: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # every subclass is a dataclass

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def uploads_stored(self) -> list[str]:
        """The names in the store (workflow/store.py) of the files the job reads: deleted once it is done."""
        return []

    @classmethod
    def from_json(cls, params: dict[str, Any]) -> Self:
        return cls(**params)


@dataclass(frozen=True)
class UploadParams(JobParams):
    """A job that reads one file: `upload` is its name in the store, `filename` its name as uploaded."""

    upload: str
    filename: str = ""

    def uploads_stored(self) -> list[str]:
        return [self.upload]


@dataclass(frozen=True)
class RunIngestParams(UploadParams):
    """A run file for services.run_ingest, or with `replace` (a run's pk) a new file for that run, replaced by
    services.run_replace (once judging has started only with `force`)."""

    kind: ClassVar[str] = Job.Kind.RUN_INGEST
    options: RunIngestOptions = field(default_factory=RunIngestOptions)
    replace: int | None = None
    force: bool = False

    def to_json(self) -> dict[str, Any]:
        """The options beside the file, as the jobs' params have always held them."""
        replace = {"replace": self.replace, "force": self.force} if self.replace is not None else {}
        return {"upload": self.upload, "filename": self.filename, **self.options, **replace}

    @classmethod
    def replacing(cls, run: Run, *, upload: str, filename: str, force: bool) -> Self:
        """A new file for `run`, which keeps its options (its name is kept here for the job's messages)."""
        return cls(upload=upload, filename=filename, options={"name": run.name}, replace=run.pk, force=force)

    @classmethod
    def from_json(cls, params: dict[str, Any]) -> Self:
        options = run_options(params)
        return cls(options=options, **{key: value for key, value in params.items() if key not in options})


@dataclass(frozen=True)
class TopicsIngestParams(UploadParams):
    """A topic file (its name in the store) for services.topics_ingest."""

    kind: ClassVar[str] = Job.Kind.TOPICS_INGEST


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


@dataclass(frozen=True)
class JudgmentsImportParams(UploadParams):
    """A judgments TSV (docs/formats.md, Judgments) or a TREC qrels file for assessor.services.judgments_import, with
    the organizer's choices: a qrels file's assessor, kind and round, and what becomes of lines outside the pools or of
    topics assigned already (the service's `outside` and `assigned`)."""

    kind: ClassVar[str] = Job.Kind.JUDGMENTS_IMPORT
    assessor: str = ""
    judgment_kind: str = ""
    round: int | None = None
    outside: str = "refuse"
    assigned: str = "refuse"


@dataclass(frozen=True)
class PoolBuildParams(JobParams):
    """services.pool_build of the job's campaign; `force` once judging has started."""

    kind: ClassVar[str] = Job.Kind.POOL_BUILD
    force: bool = False


@dataclass(frozen=True)
class CampaignDeleteParams(JobParams):
    """judging.services.campaign_delete of a campaign marked as being deleted; its name for the jobs list once the
    campaign (and the job's link to it) is gone."""

    kind: ClassVar[str] = Job.Kind.CAMPAIGN_DELETE
    campaign: int
    name: str


@dataclass(frozen=True)
class LlmJudgeParams(JobParams):
    """llm.services.llm_judge of the job's campaign (workflow/llm_judging.py): the campaign's endpoint with these
    overrides (None: the endpoint's), the prompt by name (empty: the endpoint's or the task's default), the topics
    (empty: all), the items per topic (None: all) and the canaries per topic."""

    kind: ClassVar[str] = Job.Kind.LLM_JUDGE
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    concurrency: int | None = None
    samples: int | None = None
    prompt: str = ""
    topics: list[str] = field(default_factory=list)
    limit_per_topic: int | None = None
    canaries: int = 0


_KINDS: dict[str, type[JobParams]] = {
    params.kind: params for params in (RunIngestParams, TopicsIngestParams, CollectionIngestParams, PoolBuildParams,
                                       CampaignDeleteParams, JudgmentsImportParams, LlmJudgeParams)}


def params_of(job: Job) -> JobParams:
    """A job's params as its kind's dataclass; ValueError for params that do not fit it (an unknown or a missing
    key: a job stored by another version of the code)."""
    try:
        return _KINDS[job.kind].from_json(job.params)
    except TypeError as exc:
        raise ValueError(f"the parameters of job #{job.pk} do not fit a {job.kind} job: {exc}") from None

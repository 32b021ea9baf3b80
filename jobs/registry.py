"""What each kind of job is given and runs: one dataclass of params per kind and the handler that calls its service,
registered by the app that owns the work (its tasks.py, imported by its AppConfig.ready). A job is created from its
params (job_create stores them as the job's JSON) and runs its handler with the same dataclass read back
(`params_of`), so a page, the API and the worker cannot disagree on a name or a type."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, asdict, dataclass
from typing import Any, ClassVar, Self

from jobs.models import Job
from pooling import services
from pooling.models import Campaign

# What a handler is given to report its progress: the fraction done, and optionally what the job page says beside it.
Progress = Callable[..., None]


class JobParams:
    kind: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # every subclass is a dataclass

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def uploads_stored(self) -> list[str]:
        """The names in the store (jobs/store.py) of the files the job reads: deleted once it is done."""
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


def _no_summary(job: Job) -> str:
    return ""


def _default_queue() -> str | None:
    return None


@dataclass(frozen=True)
class JobKind:
    """A kind of job: its params, its handler (job, params, progress) -> (result, warnings), what the job pages say
    of a finished one (`summary`), and how the runner treats it."""

    params: type[JobParams]
    handler: Callable[[Job, Any, Progress], tuple[dict, list[str]]]
    summary: Callable[[Job], str] = _no_summary
    # Stops between batches once its Cancel button is pressed (and keeps what it wrote); others cancel only queued.
    cancellable: bool = False
    # Run on a campaign that is being deleted (the delete itself); other kinds are refused on one.
    while_deleting: bool = False
    # Shown in the jobs lists (the jobs page, a campaign's recent jobs); a housekeeping kind is not.
    listed: bool = True
    # The Celery queue its messages go to (None: the default one), read when the job is sent.
    queue: Callable[[], str | None] = _default_queue
    # Called by job_cancel before it cancels the job: what the job page then says, or InputError to refuse.
    on_cancel: Callable[[Job], str] | None = None


_KINDS: dict[str, JobKind] = {}


def register(params: type[JobParams], handler: Callable[[Job, Any, Progress], tuple[dict, list[str]]],
             **options: Any) -> None:
    """Registers the kind `params.kind` (one of Job.Kind), run by `handler`; the options are JobKind's."""
    if params.kind not in Job.Kind.values:
        raise ValueError(f"{params.kind} is not one of Job.Kind")
    _KINDS[params.kind] = JobKind(params=params, handler=handler, **options)


def kind_of(kind: str) -> JobKind:
    """The registered kind; LookupError for a kind no installed app registers."""
    try:
        return _KINDS[kind]
    except KeyError:
        raise LookupError(f"no app registers jobs of kind {kind}") from None


def unlisted_kinds() -> list[str]:
    return [kind for kind, registered in _KINDS.items() if not registered.listed]


def queues() -> set[str]:
    """The queues other than the default one that some kind sends its jobs to."""
    return {queue for registered in _KINDS.values() if (queue := registered.queue())}


def job_campaign(job: Job) -> Campaign:
    """The campaign of a job of a kind that has one (all but a collection's ingest), given by job_create; a job
    queued before its campaign began to be deleted is refused."""
    assert job.campaign is not None, f"a {job.kind} job without a campaign"
    if job.campaign.deleting:
        raise services.campaign_deleting_error(job.campaign)
    return job.campaign


def params_of(job: Job) -> JobParams:
    """A job's params as its kind's dataclass; ValueError for params that do not fit it (an unknown or a missing
    key: a job stored by another version of the code)."""
    try:
        return kind_of(job.kind).params.from_json(job.params)
    except TypeError as exc:
        raise ValueError(f"the parameters of job #{job.pk} do not fit a {job.kind} job: {exc}") from None

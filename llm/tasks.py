"""The LLM judging job's params and what the job pages say of a finished one (jobs/registry.py). Its handler is
registered by workflow/tasks.py: the job's canaries are the items the official qrels grade 0, read above judging."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from core.words import counted
from jobs.models import Job
from jobs.registry import JobParams
from llm import services


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


def llm_judge_summary_of(job: Job) -> str:
    return llm_judge_summary(job.result)


def llm_judge_summary(r: dict) -> str:
    """What an LLM judging run did (llm.services.LlmJudgeResult as JSON), in one sentence."""
    reasons = "; ".join(f"{count:,} × {reason.rstrip('.')}" for count, reason in r.get("failure_reasons", []))
    commonest = f" Commonest failures: {reasons}." if reasons else ""
    if r.get("gave_up"):
        # The status says "failed" before this sentence. The run gives up after its first GIVE_UP failures; the
        # requests already in flight then come back failed too, and are counted apart.
        failed = r.get("failed", 0)
        give_up = services.GIVE_UP  # read when it is said: a test lowers it
        first = min(failed, give_up) if failed else give_up
        flight = f" ({failed - first:,} more in flight failed with them)" if failed > first else ""
        return (f"the first {counted(first, 'request')} to {r.get('model', '')} all failed{flight}, so the run "
                f"stopped there; nothing was graded and the other items were not sent.{commonest} Check the "
                "endpoint on the LLM page, then retry.")
    if r.get("all_failed"):
        return (f"every one of the {counted(r.get('failed', 0), 'item')} sent to {r.get('model', '')} failed, "
                f"nothing was graded ({r.get('skipped', 0):,} already graded before).{commonest} Check the "
                "endpoint on the LLM page, then retry.")
    stopped = "Cancelled: stopped after judging" if r.get("cancelled") else "Judged"
    canaries = f"; {counted(r['canaries_created'], 'canary', 'canaries')} made" if r.get("canaries_created") else ""
    missing = (f", {counted(r['missing'], 'item')} whose text the collection lacks (not sent, and not until its text "
               "is loaded)" if r.get("missing") else "")
    return (f"{stopped} {counted(r.get('judged', 0), 'item')} with {r.get('model', '')}, "
            f"{counted(r.get('failed', 0), 'failure')} (tried again by the next run){missing}, "
            f"{r.get('skipped', 0):,} already graded{canaries}; {r.get('tokens_in', 0):,} tokens in, "
            f"{r.get('tokens_out', 0):,} out, "
            f"{r.get('seconds', 0):.1f} s.{commonest}")

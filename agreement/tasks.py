"""The kind of job whose work is agreement's (jobs/registry.py): the refit of a campaign's LLM calibrations on the
official judgments (agreement/calibration.py), queued by the agreement page when one is stale, at most one pending
per campaign (as evaluation/tasks.py queues the scores)."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import ClassVar

from agreement import calibration
from core.words import counted
from jobs.models import Job
from jobs.registry import JobParams, Progress, job_campaign, register
from jobs.runner import PENDING, job_request_once
from pooling.models import Campaign

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class CalibrationRefitParams(JobParams):
    """calibration.calibration_refit of every stale model of the job's campaign: nothing more to say."""

    kind: ClassVar[str] = Job.Kind.LLM_CALIBRATION


def calibration_refit_pending(*, campaign: Campaign) -> bool:
    return Job.objects.filter(campaign=campaign, kind=Job.Kind.LLM_CALIBRATION, status__in=PENDING).exists()


def calibration_refit_request(*, campaign: Campaign) -> bool:
    """Queues the refit of the campaign's stale calibrations unless one is pending (jobs.runner.job_request_once);
    whether it did."""
    return job_request_once(params=CalibrationRefitParams(), campaign=campaign)


def _calibration_refit(job: Job, p: CalibrationRefitParams, progress: Progress) -> tuple[dict, list[str]]:
    campaign = job_campaign(job)
    models = calibration.stale_models(campaign=campaign)
    for done, model in enumerate(models):
        calibration.calibration_refit(campaign=campaign, model=model)
        progress((done + 1) / len(models))
    return {"fitted": models}, []


def _calibration_refit_summary(job: Job) -> str:
    return f"Calibrated {counted(len(job.result.get('fitted', [])), 'model')} on the official judgments."


register(CalibrationRefitParams, _calibration_refit, summary=_calibration_refit_summary, listed=False)

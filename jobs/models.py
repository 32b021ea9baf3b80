"""The Job rows: one per long operation (an upload's ingest, a pool build, a campaign delete, LLM judging, a scores
refresh, a judging simulation), run by the one runner (jobs/runner.py) through the kinds' registry (jobs/registry.py).
"""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import connection, models
from django.utils import timezone

from pooling.models import Campaign, Collection


class Job(models.Model):
    class Kind(models.TextChoices):
        COLLECTION_INGEST = "collection_ingest", "collection ingest"
        TOPICS_INGEST = "topics_ingest", "topics ingest"
        RUN_INGEST = "run_ingest", "run ingest"
        POOL_BUILD = "pool_build", "pool build"
        CAMPAIGN_DELETE = "campaign_delete", "campaign delete"
        JUDGMENTS_IMPORT = "judgments_import", "judgments import"
        LLM_JUDGE = "llm_judge", "LLM judging"
        SCORES_REFRESH = "scores_refresh", "scores refresh"
        JUDGING_SIMULATION = "judging_simulation", "judging simulation"
        LLM_CALIBRATION = "llm_calibration", "LLM calibration"
        NUGGET_DRAFT = "nugget_draft", "nugget drafting"
        NUGGET_SUPPORT_LLM = "nugget_support_llm", "LLM support assignment"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    kind = models.CharField(max_length=32, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0.0, help_text="0 to 1, written while running")
    message = models.TextField(blank=True)
    problems = models.JSONField(default=list, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, null=True, blank=True, related_name="jobs")
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, null=True, blank=True, related_name="jobs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # `attempts` counts the runs a worker began, so that a job that kills its worker each time is not run forever.
    attempts = models.PositiveSmallIntegerField(default=0)
    # Set by the Cancel button of a running job of a kind that stops between batches (LLM judging): the job sees it
    # there and ends cancelled, keeping what it wrote (jobs/runner.py: job_cancel).
    cancel_requested = models.BooleanField(default=False)
    # When a message for it was last sent to the workers: a queued job whose message the broker no longer holds is
    # sent again by the workers' sweep (jobs/runner.py: jobs_sweep).
    sent_at = models.DateTimeField(null=True, blank=True)
    # Written every JOB_HEARTBEAT_EVERY seconds by the worker running it: older than JOB_STALE_AFTER, the worker is
    # taken as lost. `claim` is the token of that run: only it writes the job's progress, beat and outcome.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    claim = models.CharField(max_length=32, blank=True)

    class Meta:
        db_table = "pooling_job"  # the table the job rows had in the pooling app (jobs/migrations/0001_from_pooling.py)
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "created_at"], name="job_status_created")]
        # At most one pending recompute of a campaign's scores, however many pages find them stale at once
        # (evaluation/tasks.py: scores_refresh_request).
        constraints = [models.UniqueConstraint(
            fields=["campaign", "kind"], condition=models.Q(kind="scores_refresh", status__in=["queued", "running"]),
            name="job_one_pending_scores_refresh"),
            # and of its LLM calibrations (agreement/tasks.py: calibration_refit_request)
            models.UniqueConstraint(
                fields=["campaign", "kind"],
                condition=models.Q(kind="llm_calibration", status__in=["queued", "running"]),
                name="job_one_pending_llm_calibration")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED, self.Status.CANCELLED)

    @property
    def stale(self) -> bool:
        """Running, but its worker is gone: its heartbeat (or, before the first beat, its start) is older than
        JOB_STALE_AFTER seconds, or, on PostgreSQL, nobody holds the job's advisory lock, which its worker holds while
        it runs it (jobs/runner.py) and the server drops with the worker's connection. Without advisory locks
        (SQLite, where a job runs inside the web request and beats nowhere), running for more than an hour."""
        if self.status != self.Status.RUNNING:
            return False
        if connection.vendor != "postgresql":
            return self.started_at is None or self.started_at < timezone.now() - timedelta(hours=1)
        beat = self.heartbeat_at or self.started_at
        if beat is None or beat < timezone.now() - timedelta(seconds=settings.JOB_STALE_AFTER):
            return True
        with connection.cursor() as cursor:
            cursor.execute("SELECT NOT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
                           "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                           "AND classid = %s AND objid = %s AND objsubid = 2)", [JOB_LOCK, self.pk])
            return cursor.fetchone()[0]

    @property
    def retryable(self) -> bool:
        """Not running and not to be rejected again: queued (its message is sent again), failed for another reason
        than its input (a lost worker, an internal error), or running with its worker gone. A rejected input
        (`problems`) would be rejected again, so it is uploaded anew instead."""
        return (self.status == self.Status.QUEUED or self.stale
                or (self.status == self.Status.FAILED and not self.problems))


# The first key of the advisory lock (pg_advisory_lock(JOB_LOCK, job id)) a worker holds while it runs a job.
JOB_LOCK = 1_000_023

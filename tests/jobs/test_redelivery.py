"""Each job runs once (docs/deploy.md, "Jobs and workers"): a recompute of a campaign's scores that outlives the
broker's visibility timeout is handed out again by Redis, and the copy neither runs it a second time nor takes its
claim; a worker killed in the middle of one is replaced within a minute by the heartbeat and the sweep, not after
the visibility timeout. Real Celery workers on PostgreSQL and Redis.

The recompute is held in the middle by a row lock the test takes on its snapshot, which the recompute writes at its
end: the worker is surely inside the job, for as long as the test wants.
"""
import time
from contextlib import contextmanager

import psycopg2
import pytest

from evaluation import snapshots
from evaluation.models import ScoreSnapshot
from jobs.models import Job
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.jobs.test_celery_worker import database_url
from tests.jobs.test_job_recovery import kill, wait_until, workers  # noqa: F401 (fixture)

pytestmark = [pytest.mark.postgresql, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@contextmanager
def snapshot_held(campaign):
    """The campaign's leaderboard snapshot row locked on a connection of the test's own until the block ends."""
    holder = psycopg2.connect(database_url())
    try:
        with holder.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {ScoreSnapshot._meta.db_table} WHERE campaign_id = %s FOR UPDATE",
                           [campaign.pk])
        yield
    finally:
        holder.rollback()
        holder.close()


def refresh_queued(campaign) -> Job:
    """A page reads the stale leaderboard: one recompute queued (no worker takes it yet)."""
    assert snapshots.leaderboard(campaign=campaign).updating or snapshots.leaderboard(campaign=campaign).computing
    return Job.objects.get(campaign=campaign, kind=Job.Kind.SCORES_REFRESH)


def received(log) -> int:
    """How many job messages the worker was handed (Celery logs each as "Task ...job_execute_task[id] received")."""
    return sum(1 for line in log.read_text().splitlines() if "job_execute_task[" in line and "received" in line)


def test_a_recompute_longer_than_the_visibility_timeout_runs_once_under_one_claim(workers, judged_answers):  # noqa: F811
    job = refresh_queued(judged_answers)
    with snapshot_held(judged_answers):
        first, first_log = workers()  # visibility timeout: 2 s (the fixture's)
        running = wait_until(lambda: (j := Job.objects.get(pk=job.pk)).status == Job.Status.RUNNING and j, 60,
                             f"the first worker took the recompute\n{first_log.read_text()[-2000:]}")
        second, second_log = workers()
        # Held well past the visibility timeout: Redis hands the message to the idle second worker.
        wait_until(lambda: received(second_log), 60,
                   f"the broker handed the recompute out again\n{second_log.read_text()[-2000:]}")
        time.sleep(3)  # the copy had time to do whatever it would do
        during = Job.objects.get(pk=job.pk)
        assert (during.status, during.attempts, during.claim) == (Job.Status.RUNNING, 1, running.claim)
    done = wait_until(lambda: (j := Job.objects.get(pk=job.pk)).finished and j, 60,
                      f"the recompute finished\n{first_log.read_text()[-2000:]}")
    assert (done.status, done.attempts, done.claim) == (Job.Status.DONE, 1, running.claim), done.message
    assert "lost its worker" not in first_log.read_text() + second_log.read_text()
    assert done.result["computed"] == 1  # one snapshot, computed by one run
    assert ScoreSnapshot.objects.get(campaign=judged_answers).version == snapshots.leaderboard_version(judged_answers)
    assert first.poll() is None and second.poll() is None


def test_a_recompute_whose_worker_is_killed_is_taken_again_within_a_minute(workers, judged_answers):  # noqa: F811
    job = refresh_queued(judged_answers)
    with snapshot_held(judged_answers):
        # Redis's visibility timeout as deployed (5 minutes), and the workers' sweep on: the heartbeat and the sweep
        # must decide, not the timeout.
        deployed = {"CELERY_VISIBILITY_TIMEOUT": "300", "CELERY_TASK_ALWAYS_EAGER": "0"}
        first, first_log = workers(**deployed)
        wait_until(lambda: Job.objects.get(pk=job.pk).status == Job.Status.RUNNING, 60,
                   f"the first worker took the recompute\n{first_log.read_text()[-2000:]}")
        second, second_log = workers(**deployed)
        wait_until(lambda: "ready" in second_log.read_text(), 60,
                   f"the second worker started\n{second_log.read_text()}")
        kill(first)
        killed_at = time.monotonic()
        again = wait_until(lambda: (j := Job.objects.get(pk=job.pk)).attempts == 2 and j, 60,
                           f"the other worker took the recompute again\n{second_log.read_text()[-3000:]}")
        assert again.status == Job.Status.RUNNING and time.monotonic() - killed_at < 60
    done = wait_until(lambda: (j := Job.objects.get(pk=job.pk)).finished and j, 60, "the recompute finished")
    assert (done.status, done.attempts) == (Job.Status.DONE, 2), done.message
    assert ScoreSnapshot.objects.get(campaign=judged_answers).version == snapshots.leaderboard_version(judged_answers)

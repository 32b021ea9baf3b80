"""A job whose worker dies is taken again, or failed with Retry, and never leaves half its rows (issue 14.3).

The first tests play a live worker by holding the job's lock on a connection of their own, and a dead one by holding
nothing; the last ones start real Celery workers on PostgreSQL and Redis and kill one with SIGKILL in the middle of a
job.
"""
import dataclasses
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import psycopg2
import pytest
from django.conf import settings as django_settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import OperationalError, connection
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery_app import app
from jobs import registry
from jobs.models import JOB_LOCK, Job
from jobs.runner import job_create, job_execute
from judging.tasks import PoolBuildParams, RunIngestParams
from pooling.models import Campaign, PoolItem, Run, RunEntry
from tests.factories import CampaignFactory, TopicFactory
from tests.jobs.test_celery_worker import database_url
from tests.pooling.run_files import answers_campaign

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def enqueued(monkeypatch, jobs_run_on_commit):
    """Job ids sent to the workers (the commit is played: tests never commit)."""
    sent = []
    monkeypatch.setattr("jobs.runner.job_execute_task.apply_async", lambda args, **kwargs: sent.append(args[0]))
    return sent


def running_job(campaign, *, attempts: int = 1, started_ago: timedelta = timedelta(hours=2)) -> Job:
    """A pool build that a worker began `started_ago` and holds no more: its worker died."""
    return Job.objects.create(kind=Job.Kind.POOL_BUILD, campaign=campaign, status=Job.Status.RUNNING,
                              started_at=timezone.now() - started_ago, attempts=attempts)


@contextmanager
def worker_holding(job: Job):
    """A live worker running `job`: it holds the job's lock on its connection and beats on its row (on SQLite, where
    jobs run inside the request, a job that began a moment ago is live)."""
    if connection.vendor != "postgresql":
        Job.objects.filter(pk=job.pk).update(started_at=timezone.now())
        yield
        return
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now())
    worker = psycopg2.connect(database_url())
    try:
        with worker.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", [JOB_LOCK, job.pk])
        yield
    finally:
        worker.close()


@pytest.mark.django_db
def test_a_job_its_worker_still_holds_is_left_to_it_and_is_stalled_once_the_worker_is_gone(tmp_path, enqueued):
    job = running_job(answers_campaign(tmp_path))
    with worker_holding(job):
        assert not Job.objects.get(pk=job.pk).stale
        assert job_execute(job_id=job.pk).status == Job.Status.RUNNING  # a message delivered again does nothing
        assert Job.objects.get(pk=job.pk).attempts == 1
    if connection.vendor == "postgresql":  # the worker's connection ended: PostgreSQL drops its lock as its server
        # process exits, a moment after the client closed it (later on a loaded machine)
        wait_until(lambda: Job.objects.get(pk=job.pk).stale, 10, "the lock went with the worker's connection")


@pytest.mark.django_db
def test_a_redelivered_message_takes_a_job_whose_worker_stopped_and_runs_it(tmp_path):
    campaign = answers_campaign(tmp_path)
    job = running_job(campaign)
    assert job.stale
    job = job_execute(job_id=job.pk)
    assert (job.status, job.attempts) == (Job.Status.DONE, 2)
    assert job.message == "Built pools for 2 topics: 9 items."
    assert PoolItem.objects.filter(campaign=campaign).count() == 9


@pytest.mark.django_db
def test_a_job_whose_worker_stopped_on_its_last_attempt_is_failed_with_the_reason(tmp_path):
    campaign = answers_campaign(tmp_path)
    last = running_job(campaign, attempts=django_settings.JOB_MAX_ATTEMPTS)
    last = job_execute(job_id=last.pk)
    assert last.status == Job.Status.FAILED and last.finished_at is not None and not last.stale
    assert last.message.startswith(f"its worker stopped {django_settings.JOB_MAX_ATTEMPTS} times while running it")
    assert not PoolItem.objects.filter(campaign=campaign).exists()


@pytest.mark.django_db
def test_the_job_page_says_a_stalled_job_lost_its_worker_and_retry_runs_it(client, organizer, tmp_path, monkeypatch):
    campaign = answers_campaign(tmp_path)
    job = running_job(campaign)
    client.force_login(organizer)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "stalled" in page and "its worker stopped answering (it started the job at" in page
    assert f'action="/jobs/{job.pk}/retry/"' in page
    listing = client.get("/jobs/").content.decode()
    assert 'class="job-stalled"' in listing and "stalled" in listing
    assert client.get(f"/api/jobs/{job.pk}/").json()["stale"] is True

    monkeypatch.setattr("jobs.runner.transaction.on_commit", lambda callback, *args, **kwargs: callback())
    response = client.post(f"/jobs/{job.pk}/retry/", follow=True)
    assert response.status_code == 200
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.attempts == 1
    assert "Built pools for 2 topics: 9 items." in response.content.decode()
    assert PoolItem.objects.filter(campaign=campaign).count() == 9


@pytest.mark.django_db
def test_retry_is_refused_for_a_live_job_and_a_rejected_input(client, organizer, tmp_path, enqueued):
    campaign = answers_campaign(tmp_path)
    live = running_job(campaign)
    rejected = Job.objects.create(kind=Job.Kind.RUN_INGEST, campaign=campaign, status=Job.Status.FAILED,
                                  message="rejected: 1 problem, nothing was written",
                                  problems=[{"line": 1, "message": "bad", "file": "r.tsv"}])
    client.force_login(organizer)
    with worker_holding(live):
        for job in (live, rejected):
            page = client.get(f"/jobs/{job.pk}/").content.decode()
            assert "Retry</button>" not in page
            response = client.post(f"/jobs/{job.pk}/retry/", follow=True)
            assert response.status_code == 200
            assert Job.objects.get(pk=job.pk).status == job.status
    assert "would be rejected again" in response.content.decode()
    assert enqueued == []


@pytest.mark.django_db
def test_an_internal_error_is_failed_with_retry_on_the_job_page(client, organizer, tmp_path, monkeypatch):
    campaign = answers_campaign(tmp_path)
    monkeypatch.setattr("jobs.runner.transaction.on_commit", lambda callback, *args, **kwargs: callback())
    monkeypatch.setattr("jobs.runner.services.pool_build", lambda **kwargs: 1 / 0)
    job = job_create(campaign=campaign, params=PoolBuildParams())
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and job.message == "internal error: ZeroDivisionError: division by zero"
    client.force_login(organizer)
    page = client.get("/jobs/").content.decode()
    assert 'class="job-failed"' in page and "<strong>failed</strong>" in page
    assert "Retry</button>" in client.get(f"/jobs/{job.pk}/").content.decode()


# -- real workers, killed


@pytest.fixture
def workers(tmp_path):
    """Starts Celery workers on a queue of the test's own, whose broker hands out again a message not acknowledged
    within 2 seconds (not 5 minutes); stops them all at the end."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    started = []
    saved = (app.conf.task_always_eager, app.conf.task_default_queue)
    app.conf.task_always_eager, app.conf.task_default_queue = False, queue

    def start(**env_overrides):
        env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings.test", DATABASE_URL=database_url(),
                   REDIS_URL=django_settings.TEST_REDIS_URL, TEST_MEDIA_ROOT=str(django_settings.MEDIA_ROOT),
                   CELERY_TEST_QUEUE=queue, CELERY_VISIBILITY_TIMEOUT="2", PYTHONUNBUFFERED="1")
        env.update(env_overrides)
        log = tmp_path / f"worker-{len(started)}.log"
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "-Q", queue,
             "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=INFO"],
            cwd=ROOT, env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT)
        started.append(process)
        return process, log

    yield start
    app.conf.task_always_eager, app.conf.task_default_queue = saved
    for process in started:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=20)


def wait_until(condition, deadline_s: float, what: str, log: Path | None = None):
    """The condition's first true value within `deadline_s`, else a failure naming `what` with the end of `log`."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    tail = log.read_text()[-4000:] if log is not None and log.exists() else ""
    raise AssertionError(f"{what}: not within {deadline_s} s\n{tail}")


def kill(process) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def api(user) -> APIClient:
    client = APIClient()
    client.force_login(user)  # a session, which the request-body bound sees (force_authenticate passes it by)
    return client


@pytest.mark.postgresql
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_pool_build_whose_worker_is_killed_is_taken_again_by_a_new_worker(workers, organizer, tmp_path, settings):
    campaign = answers_campaign(tmp_path)
    first, first_log = workers()
    # The build waits for this lock on the campaign, held on a connection of its own: the worker is surely inside
    # the job, beating, when it is killed.
    holder = psycopg2.connect(database_url())
    try:
        with holder.cursor() as cursor:
            cursor.execute("SELECT id FROM pooling_campaign WHERE id = %s FOR NO KEY UPDATE", [campaign.pk])
        response = api(organizer).post(f"/api/campaigns/{campaign.pk}/pools/")
        assert response.status_code == 202
        job_id = response.json()["id"]
        wait_until(lambda: Job.objects.get(pk=job_id).status == Job.Status.RUNNING, 60,
                   f"the first worker took the job\n{first_log.read_text()[-2000:]}")
        assert not Job.objects.get(pk=job_id).stale  # its worker holds it
        kill(first)
    finally:
        holder.rollback()
        holder.close()
    job = Job.objects.get(pk=job_id)
    assert job.status == Job.Status.RUNNING and not PoolItem.objects.filter(campaign=campaign).exists()
    wait_until(lambda: Job.objects.get(pk=job_id).stale, 20, "the job went stale")

    second, second_log = workers()
    job = wait_until(lambda: (j := Job.objects.get(pk=job_id)).finished and j, 90,
                     f"the second worker finished the job\n{second_log.read_text()[-3000:]}")
    assert job.status == Job.Status.DONE, job.message
    assert job.attempts == 2 and job.message == "Built pools for 2 topics: 9 items."
    assert PoolItem.objects.filter(campaign=campaign).count() == 9
    assert second.poll() is None


def large_run(path: Path, topics: list[str], depth: int) -> int:
    with open(path, "w") as f:
        for topic in topics:
            f.writelines(f"{topic}\t{rank * 7}\t{rank}\t{10000 - rank}.5\tbig\n" for rank in range(1, depth + 1))
    return len(topics) * depth


def copy_running() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND state = 'active' AND query LIKE %s", ['COPY "pooling_runentry"%'])
        return cursor.fetchone()[0] > 0


@pytest.mark.postgresql
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_run_ingest_killed_mid_copy_writes_nothing_is_failed_with_retry_and_the_retry_loads_it_all(
        workers, organizer, tmp_path, client, settings):
    campaign = CampaignFactory(name="big", task=Campaign.Task.ANSWERS)
    topics = [f"A.{n}" for n in range(1, 301)]
    for position, topic_id in enumerate(topics):
        TopicFactory(campaign=campaign, topic_id=topic_id, position=position)
    rows = large_run(tmp_path / "big.tsv", topics, 1000)
    first, first_log = workers()
    with open(tmp_path / "big.tsv", "rb") as f:
        response = api(organizer).post(f"/api/campaigns/{campaign.pk}/runs/", {"file": f})
    assert response.status_code == 202
    job_id = response.json()["id"]
    wait_until(copy_running, 90, f"the worker was writing the run's rows\n{first_log.read_text()[-2000:]}")
    # The progress bar moves while the job's transaction is still open.
    wait_until(lambda: Job.objects.get(pk=job_id).progress > 0, 30, "the job's progress was written")
    kill(first)
    wait_until(lambda: not copy_running(), 20, "the killed worker's COPY ended")
    assert not Run.objects.filter(campaign=campaign).exists() and not RunEntry.objects.exists()
    wait_until(lambda: Job.objects.get(pk=job_id).stale, 20, "the job went stale")

    # A worker that allows one attempt only fails the job with the reason, and the page offers Retry.
    second, second_log = workers(JOB_MAX_ATTEMPTS="1")
    job = wait_until(lambda: (j := Job.objects.get(pk=job_id)).finished and j, 60,
                     f"the job was failed\n{second_log.read_text()[-3000:]}")
    assert job.status == Job.Status.FAILED
    assert re.fullmatch(r"its worker stopped 1 time while running it \(last started at .+\); nothing was "
                        r"written\. Retry once the cause \(memory, disk, a restart\) is dealt with", job.message)
    assert not Run.objects.filter(campaign=campaign).exists() and not RunEntry.objects.exists()
    client.force_login(organizer)
    page = client.get(f"/jobs/{job_id}/").content.decode()
    assert "Retry</button>" in page and "failed" in page

    response = client.post(f"/jobs/{job_id}/retry/", follow=True)
    assert response.status_code == 200
    job = wait_until(lambda: (j := Job.objects.get(pk=job_id)).finished and j, 120,
                     f"the retry finished\n{second_log.read_text()[-3000:]}")
    assert job.status == Job.Status.DONE, job.message
    assert job.message == (f"Loaded run big from big.tsv: {rows:,} rows for 300 topics. "
                           "Taken as primary: the name says neither -P nor -A.")
    assert RunEntry.objects.filter(run__campaign=campaign).count() == rows
    assert Run.objects.filter(campaign=campaign).count() == 1


@pytest.mark.django_db
def test_the_api_retries_a_stalled_job_and_refuses_a_live_one(organizer, tmp_path, monkeypatch):
    campaign = answers_campaign(tmp_path)
    live = running_job(campaign)
    with worker_holding(live):
        response = api(organizer).post(f"/api/jobs/{live.pk}/retry/")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        f"job #{live.pk} is running: only a failed job, a queued one or one whose worker stopped is retried"]
    stalled = running_job(campaign)
    monkeypatch.setattr("jobs.runner.transaction.on_commit", lambda callback, *args, **kwargs: callback())
    response = api(organizer).post(f"/api/jobs/{stalled.pk}/retry/")
    assert response.status_code == 202 and response.json()["status"] == "queued"
    assert Job.objects.get(pk=stalled.pk).status == Job.Status.DONE  # no broker here: it ran at the commit


@pytest.mark.django_db
def test_assessors_and_anonymous_cannot_retry(client, assessor_user, tmp_path, enqueued):
    job = running_job(answers_campaign(tmp_path))
    assert APIClient().post(f"/api/jobs/{job.pk}/retry/").status_code in (401, 403)
    assert api(assessor_user).post(f"/api/jobs/{job.pk}/retry/").status_code == 403
    assert client.post(f"/jobs/{job.pk}/retry/").status_code == 302  # to the login page
    client.force_login(assessor_user)
    assert client.post(f"/jobs/{job.pk}/retry/").status_code == 403
    assert Job.objects.get(pk=job.pk).status == Job.Status.RUNNING and enqueued == []


@pytest.mark.django_db
def test_a_progress_write_that_fails_costs_the_progress_bar_not_the_job(tmp_path, enqueued, monkeypatch):
    from tests.pooling.run_files import task1_lines

    campaign = answers_campaign(tmp_path)
    upload = default_storage.save("uploads/r9.tsv", ContentFile(
        "".join("\t".join(line) + "\n" for line in task1_lines("A.1", ["30", "31"], "r9"))))
    job = job_create(campaign=campaign, params=RunIngestParams(upload=upload, filename="r9.tsv"))
    failed = []

    class Away:
        def cursor(self):
            failed.append(True)
            raise OperationalError("the database went away")

        def close(self) -> None:
            pass

    monkeypatch.setattr("jobs.runner.connections.create_connection", lambda alias: Away())
    monkeypatch.setattr("pooling.services.runs.PROGRESS_EVERY", 1)
    done = job_execute(job_id=job.pk)
    if connection.vendor == "postgresql":  # SQLite writes no progress while the job runs
        assert failed, "the run's ingest reported no progress: the test tests nothing"
    assert done.status == Job.Status.DONE and Run.objects.filter(campaign=campaign, name="r9").exists()


@pytest.mark.django_db
def test_a_queued_job_of_any_kind_offers_retry_and_cancel_and_cancel_stops_it(client, organizer, tmp_path, enqueued):
    job = job_create(campaign=answers_campaign(tmp_path), params=PoolBuildParams())
    client.force_login(organizer)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert f'action="/jobs/{job.pk}/retry/"' in page and f'action="/jobs/{job.pk}/cancel/"' in page
    assert client.post(f"/jobs/{job.pk}/retry/").status_code == 302
    assert enqueued == [job.pk, job.pk]  # sent again
    assert api(organizer).post(f"/api/jobs/{job.pk}/cancel/").status_code == 202
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED and job_execute(job_id=job.pk).status == Job.Status.CANCELLED
    assert not PoolItem.objects.exists()


@pytest.mark.django_db
def test_a_queued_campaign_delete_cancelled_keeps_the_campaign_and_one_that_failed_is_deleted_again(
        client, organizer, tmp_path, enqueued):
    from judging.tasks import campaign_delete_job

    campaign = answers_campaign(tmp_path)
    job = campaign_delete_job(campaign=campaign, user=organizer)
    assert Campaign.objects.get(pk=campaign.pk).deleting
    assert api(organizer).post(f"/api/jobs/{job.pk}/cancel/").status_code == 202
    assert not Campaign.objects.get(pk=campaign.pk).deleting  # restored: it can be used, or deleted, again
    client.force_login(organizer)
    response = client.post(f"/campaigns/{campaign.pk}/delete/")
    again = Job.objects.filter(kind=Job.Kind.CAMPAIGN_DELETE).latest("pk")
    assert response.status_code == 302 and again.pk != job.pk
    Job.objects.filter(pk=again.pk).update(status=Job.Status.FAILED, message="internal error: boom",
                                           started_at=timezone.now())
    assert api(organizer).post(f"/api/jobs/{again.pk}/cancel/").status_code == 400  # it began: finish it instead
    response = api(organizer).delete(f"/api/campaigns/{campaign.pk}/")  # stuck "being deleted": deleted again
    assert response.status_code == 202 and response.json()["id"] == again.pk
    assert job_execute(job_id=again.pk).status == Job.Status.DONE
    assert not Campaign.objects.filter(pk=campaign.pk).exists()


@pytest.mark.django_db
def test_a_run_whose_claim_was_taken_over_writes_no_outcome(tmp_path, monkeypatch, enqueued):
    """A run that was retried and replaced while it went on (same attempt number) leaves the new run's job alone."""
    campaign = answers_campaign(tmp_path)
    job = job_create(campaign=campaign, params=PoolBuildParams())

    def replaced_meanwhile(job, params, progress):
        Job.objects.filter(pk=job.pk).update(status=Job.Status.DONE, message="the new run's outcome", attempts=1,
                                             claim="the-new-run")
        raise RuntimeError("the old run fails late")

    monkeypatch.setitem(registry._KINDS, Job.Kind.POOL_BUILD,
                        dataclasses.replace(registry.kind_of(Job.Kind.POOL_BUILD), handler=replaced_meanwhile))
    job_execute(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.message, job.claim) == (Job.Status.DONE, "the new run's outcome", "the-new-run")

"""Jobs outlive the broker: a Redis of the test's own is killed with SIGKILL and restarted empty, and real Celery
workers go on; a job whose message was lost with it is sent again by the workers' sweep; a job sent while it is down
answers 503 and saves nothing; a worker killed mid-job is replaced within seconds (docs/deploy.md, "Jobs and
workers")."""
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg2
import pytest
from django.conf import settings as django_settings
from django.core.files.storage import default_storage

from config.celery_app import app
from jobs.models import Job
from jobs.runner import job_create
from judging.tasks import PoolBuildParams, campaign_delete_job
from pooling.models import Campaign, PoolItem, RunEntry
from tests.factories import CampaignFactory, TopicFactory
from tests.jobs.test_celery_worker import database_url
from tests.jobs.test_job_recovery import api, copy_running, large_run, wait_until
from tests.pooling.run_files import answers_campaign

ROOT = Path(__file__).resolve().parent.parent.parent
FAST = {"CELERY_TASK_ALWAYS_EAGER": "0", "JOB_SWEEP_EVERY": "1", "JOB_RESEND_AFTER": "2", "JOB_STALE_AFTER": "3",
        "JOB_HEARTBEAT_EVERY": "0.5"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Redis:
    """A redis-server of the test's own, without persistence: killed, it comes back empty."""

    def __init__(self, tmp_path: Path) -> None:
        self.port, self.dir, self.process = free_port(), tmp_path, None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.dir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self.answers, 20, "redis-server started")

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


def point_app_at(url: str, queue: str) -> None:
    """This process's Celery app sends to `url` (its producer pool made anew), on `queue`, not eagerly."""
    app.conf.broker_url, app.conf.task_default_queue, app.conf.task_always_eager = url, queue, False
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def broker(tmp_path):
    """A Redis of the test's own, this process sending jobs to it, and a starter of real workers on it."""
    redis = Redis(tmp_path)
    redis.start()
    queue = f"test-{uuid.uuid4().hex[:8]}"
    saved = (app.conf.broker_url, app.conf.task_default_queue, app.conf.task_always_eager)
    point_app_at(redis.url, queue)
    started = []

    def worker(*extra: str, **env_overrides: str):
        env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings.test", DATABASE_URL=database_url(),
                   REDIS_URL=redis.url, TEST_MEDIA_ROOT=str(django_settings.MEDIA_ROOT), CELERY_TEST_QUEUE=queue,
                   CELERY_VISIBILITY_TIMEOUT="3600", **FAST, **env_overrides)
        log = tmp_path / f"worker-{len(started)}.log"
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "--loglevel=INFO", *extra],
            cwd=ROOT, env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT)
        started.append(process)
        return process, log

    redis.worker = worker
    yield redis
    for process in started:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
    if redis.process.poll() is None:
        redis.kill()
    app.conf.broker_url, app.conf.task_default_queue, app.conf.task_always_eager = saved
    app._pool = None
    app.amqp._producer_pool = None


def campaigns(tmp_path: Path, count: int) -> list[Campaign]:
    """`count` pooled-ready campaigns (tests.pooling.run_files.answers_campaign), each named apart."""
    made = []
    for n in range(count):
        (tmp_path / str(n)).mkdir()
        campaign = answers_campaign(tmp_path / str(n))
        Campaign.objects.filter(pk=campaign.pk).update(name=f"answers-{n}")
        made.append(Campaign.objects.get(pk=campaign.pk))
    return made


def stored_uploads() -> list[str]:
    return sorted(default_storage.listdir("uploads")[1]) if default_storage.exists("uploads") else []


def finished(job_id: int) -> Job | None:
    job = Job.objects.get(pk=job_id)
    return job if job.finished else None


@pytest.mark.django_db
def test_an_upload_while_redis_is_down_answers_503_and_saves_nothing(client, organizer, tmp_path):
    campaign = answers_campaign(tmp_path)
    jobs, stored = Job.objects.count(), stored_uploads()
    saved = (app.conf.broker_url, app.conf.task_default_queue, app.conf.task_always_eager)
    point_app_at(f"redis://127.0.0.1:{free_port()}/0", "nowhere")  # nothing listens there: Redis is down
    try:
        run = tmp_path / "r9.tsv"
        run.write_text("A.1\tQ0\t30\t1\t1.0\tr9\n")
        with open(run, "rb") as f:
            response = api(organizer).post(f"/api/campaigns/{campaign.pk}/runs/", {"file": f})
        assert response.status_code == 503 and "the job queue (Redis) does not answer" in response.json()["detail"]
        assert response["Retry-After"] == "30"
        client.force_login(organizer)
        with open(run, "rb") as f:
            page = client.post(f"/campaigns/{campaign.pk}/runs/upload/", {"file": f})
        assert page.status_code == 503 and "Try again in a minute" in page.content.decode()
        delete = client.post(f"/campaigns/{campaign.pk}/delete/")
        assert delete.status_code == 503
    finally:
        app.conf.broker_url, app.conf.task_default_queue, app.conf.task_always_eager = saved
        app._pool = None
        app.amqp._producer_pool = None
    assert Job.objects.count() == jobs  # no orphan: neither the job nor its file nor the delete's mark
    assert stored_uploads() == stored
    assert not Campaign.objects.get(pk=campaign.pk).deleting


@pytest.mark.postgresql
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_jobs_whose_messages_redis_lost_run_once_a_worker_sweeps_and_a_stuck_delete_finishes(broker, tmp_path):
    made = campaigns(tmp_path, 3)
    builds = [job_create(campaign=c, params=PoolBuildParams()).pk for c in made[:2]]
    delete = campaign_delete_job(campaign=made[2]).pk
    # Made while no worker runs: their messages wait in Redis, which is then killed and comes back empty.
    broker.kill()
    broker.start()
    worker, log = broker.worker("--pool=solo")
    for job_id in [*builds, delete]:
        job = wait_until(lambda job_id=job_id: finished(job_id), 60, f"job {job_id} ran", log)
        assert job.status == Job.Status.DONE, job.message
    assert [PoolItem.objects.filter(campaign=c).count() for c in made[:2]] == [9, 9]
    assert not Campaign.objects.filter(pk=made[2].pk).exists()
    assert "has no message in the broker: sent again" in log.read_text()
    assert worker.poll() is None


@pytest.mark.postgresql
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_outlives_redis_killed_mid_job_and_runs_a_job_sent_after_the_restart(broker, organizer, tmp_path):
    campaign, later = campaigns(tmp_path, 2)
    # As compose starts it (prefork, its flags read from docker-compose.yml), with one process.
    import yaml

    compose = yaml.safe_load((Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text())
    flags = [f for f in compose["services"]["worker"]["command"] if f.startswith("--without")]
    assert flags == ["--without-gossip", "--without-mingle"]
    worker, log = broker.worker("--concurrency=1", *flags)
    holder = psycopg2.connect(database_url())  # the build waits on this lock: the worker is mid-job
    try:
        with holder.cursor() as cursor:
            cursor.execute("SELECT id FROM pooling_campaign WHERE id = %s FOR NO KEY UPDATE", [campaign.pk])
        job_id = api(organizer).post(f"/api/campaigns/{campaign.pk}/pools/").json()["id"]
        wait_until(lambda: Job.objects.get(pk=job_id).status == Job.Status.RUNNING, 60,
                   "the worker took the job", log)
        broker.kill()
        wait_until(lambda: not broker.answers(), 10, "Redis is gone")
    finally:
        holder.rollback()
        holder.close()
    assert wait_until(lambda: finished(job_id), 60, "the job finished").status == Job.Status.DONE
    broker.start()
    later_id = wait_until(lambda: _accepted(api(organizer).post(f"/api/campaigns/{later.pk}/pools/")), 30,
                          "the API sends jobs again")
    job = wait_until(lambda: finished(later_id), 90, "the job sent after the restart ran", log)
    assert job.status == Job.Status.DONE and PoolItem.objects.filter(campaign=later).count() == 9
    assert worker.poll() is None, log.read_text()[-4000:]
    assert "Unrecoverable error" not in log.read_text()


def _accepted(response) -> int | None:
    return response.json()["id"] if response.status_code == 202 else None


@pytest.mark.postgresql
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_ingest_is_replaced_within_a_minute_every_row_once(broker, organizer, tmp_path, client):
    campaign = CampaignFactory(name="big", task=Campaign.Task.ANSWERS)
    topics = [f"A.{n}" for n in range(1, 301)]
    for position, topic_id in enumerate(topics):
        TopicFactory(campaign=campaign, topic_id=topic_id, position=position)
    rows = large_run(tmp_path / "big.tsv", topics, 1000)
    first, first_log = broker.worker("--pool=solo")
    with open(tmp_path / "big.tsv", "rb") as f:
        job_id = api(organizer).post(f"/api/campaigns/{campaign.pk}/runs/", {"file": f}).json()["id"]
    wait_until(copy_running, 90, "the worker was writing the run's rows", first_log)
    second, second_log = broker.worker("--pool=solo")  # idle, sweeping; Redis would hand the message out in an hour
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    killed = time.monotonic()
    wait_until(lambda: Job.objects.get(pk=job_id).attempts == 2, 60,
               "the second worker took the job", second_log)
    assert time.monotonic() - killed < 60
    job = wait_until(lambda: finished(job_id), 180, "the job finished", second_log)
    assert job.status == Job.Status.DONE, job.message
    assert RunEntry.objects.filter(run__campaign=campaign).count() == rows
    client.force_login(organizer)
    page = client.get(f"/jobs/{job_id}/").content.decode()
    assert "An earlier worker was lost while running it; a live worker took it again (attempt 2)." in page

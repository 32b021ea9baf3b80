"""A run upload through the API, queued on Redis, ingested by a real Celery worker process."""
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from config.celery_app import app
from jobs.models import Job
from pooling import services
from pooling.models import RunEntry

ROOT = Path(__file__).resolve().parent.parent.parent


def database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@contextmanager
def celery_worker(log_path: Path, **env: str) -> Iterator[subprocess.Popen]:
    """A real Celery worker process on a queue of its own, which this process's jobs are sent to meanwhile; `env`
    adds to its environment (by default it shares this process's MEDIA_ROOT)."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": database_url(),
           "REDIS_URL": settings.TEST_REDIS_URL, "TEST_MEDIA_ROOT": str(settings.MEDIA_ROOT),
           "CELERY_TEST_QUEUE": queue, **env}
    log = open(log_path, "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "-Q", queue, "--without-gossip",
         "--without-mingle", "--without-heartbeat", "--loglevel=INFO"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    saved = (app.conf.task_always_eager, app.conf.task_default_queue)
    app.conf.task_always_eager, app.conf.task_default_queue = False, queue
    try:
        yield process
    finally:
        app.conf.task_always_eager, app.conf.task_default_queue = saved
        process.terminate()
        process.wait(timeout=20)
        log.close()


@pytest.fixture
def worker(tmp_path):
    with celery_worker(tmp_path / "worker.log") as process:
        yield process, tmp_path / "worker.log"


def wait_for(job_id: int, deadline_s: float, process) -> Job:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        if job.finished:
            return job
        assert process.poll() is None, "the Celery worker stopped"
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish within {deadline_s} s")


@pytest.mark.postgresql
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_uploaded_run_is_ingested_by_a_celery_worker(worker, organizer, arqmath_data):
    process, log = worker
    campaign = services.campaign_create(name="celery", task="answers")
    services.topics_ingest(campaign=campaign, path=arqmath_data / "topics" / "topics.arqmath-2020-task1-origin.xml")
    client = APIClient()
    client.force_authenticate(organizer)
    with open(arqmath_data / "runs" / "ensemble-task1.tsv", "rb") as f:
        response = client.post(f"/api/campaigns/{campaign.pk}/runs/", {"file": f, "alternate": "true"})
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "queued"
    job = wait_for(response.json()["id"], 90, process)
    assert job.status == "done", (job.message, log.read_text()[-2000:])
    assert job.result["rows"] == RunEntry.objects.filter(run__campaign=campaign).count() == 5000
    assert "celery@" in log.read_text()


@pytest.mark.postgresql
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_rejected_upload_reports_its_problems_through_the_worker(worker, organizer, tmp_path):
    process, _ = worker
    campaign = services.campaign_create(name="celery-bad", task="answers")
    topics = tmp_path / "t.xml"
    topics.write_text('<Topics><Topic number="A.1"><Title>t</Title><Question>q</Question></Topic></Topics>')
    services.topics_ingest(campaign=campaign, path=topics)
    bad = tmp_path / "bad.tsv"
    bad.write_text("A.1\t1\t1\t1\tr\nA.1\t2\tx\t1\tr\n")
    client = APIClient()
    client.force_authenticate(organizer)
    with open(bad, "rb") as f:
        response = client.post(f"/api/campaigns/{campaign.pk}/runs/", {"file": f})
    job = wait_for(response.json()["id"], 60, process)
    assert job.status == "failed"
    assert [{k: p[k] for k in ("line", "message", "file", "count")} for p in job.problems] == [
        {"line": 2, "message": "rank 'x' is not a whole number >= 1", "file": "bad.tsv", "count": 1}]
    assert not RunEntry.objects.filter(run__campaign=campaign).exists()

"""Web and worker on different hosts: an upload stored by the web in an S3-compatible store (moto's server, on this
machine) is ingested by a real Celery worker with a MEDIA_ROOT of its own, and deleted from the store once done."""
import socket
from pathlib import Path

import boto3
import pytest
from django.core.files.storage import default_storage
from moto.server import ThreadedMotoServer
from rest_framework.test import APIClient

from jobs.models import Job
from pooling import services
from pooling.models import RunEntry
from tests.jobs.test_celery_worker import celery_worker, wait_for

BUCKET = "assess-uploads"
KEYS = {"AWS_ACCESS_KEY_ID": "test-key", "AWS_SECRET_ACCESS_KEY": "test-secret", "AWS_S3_REGION_NAME": "us-east-1"}


@pytest.fixture
def s3_endpoint():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=KEYS["AWS_ACCESS_KEY_ID"],
                 aws_secret_access_key=KEYS["AWS_SECRET_ACCESS_KEY"],
                 region_name=KEYS["AWS_S3_REGION_NAME"]).create_bucket(Bucket=BUCKET)
    yield endpoint
    server.stop()


def files_in(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


@pytest.mark.postgresql
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_an_upload_to_the_web_is_ingested_by_a_worker_on_another_host_through_the_store(
        s3_endpoint, settings, organizer, arqmath_data, tmp_path):
    web, worker = tmp_path / "web", tmp_path / "worker"
    for folder in (web / "media", web / "tmp", worker / "media", worker / "tmp"):
        folder.mkdir(parents=True)
    settings.MEDIA_ROOT, settings.FILE_UPLOAD_TEMP_DIR = web / "media", str(web / "tmp")
    settings.AWS_STORAGE_BUCKET_NAME, settings.AWS_S3_ENDPOINT_URL = BUCKET, s3_endpoint
    for name, value in KEYS.items():
        setattr(settings, name, value)
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # the run file goes through a temporary file, as a large one does
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "storages.backends.s3.S3Storage"}}
    campaign = services.campaign_create(name="s3", task="answers")
    services.topics_ingest(campaign=campaign, path=arqmath_data / "topics" / "topics.arqmath-2020-task1-origin.xml")
    client = APIClient()
    client.force_authenticate(organizer)
    log = tmp_path / "worker.log"
    with celery_worker(log, MEDIA_STORAGE="s3", AWS_STORAGE_BUCKET_NAME=BUCKET, AWS_S3_ENDPOINT_URL=s3_endpoint,
                       TEST_MEDIA_ROOT=str(worker / "media"), FILE_UPLOAD_TEMP_DIR=str(worker / "tmp"),
                       **KEYS) as process:
        with open(arqmath_data / "runs" / "ensemble-task1.tsv", "rb") as f:
            response = client.post(f"/api/campaigns/{campaign.pk}/runs/", {"file": f, "alternate": "true"})
        assert response.status_code == 202, response.content
        job = wait_for(response.json()["id"], 90, process)
        assert job.status == Job.Status.DONE, (job.message, log.read_text()[-2000:])
    assert job.result["rows"] == RunEntry.objects.filter(run__campaign=campaign).count() == 5000
    assert job.params["upload"].startswith("uploads/")
    assert not default_storage.exists(job.params["upload"])  # deleted from the store once ingested
    assert files_in(web) == [] and files_in(worker) == []

"""An upload stays in the store while its job may still read it: deleted once the job is done or its file rejected,
kept for Retry when the job failed for another reason."""
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from jobs.models import Job
from pooling.models import Run
from tests.pooling.run_files import answers_campaign, task1_lines

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]


def uploads() -> list[Path]:
    return [p for p in Path(settings.MEDIA_ROOT).rglob("*") if p.is_file()]


def post_run(client: APIClient, campaign, name: str, text: str) -> Job:
    response = client.post(f"/api/campaigns/{campaign.pk}/runs/",
                           {"file": SimpleUploadedFile(name, text.encode())}, format="multipart")
    assert response.status_code == 202, response.content
    return Job.objects.get(pk=response.json()["id"])


@pytest.fixture
def client(organizer):
    client = APIClient()
    client.force_authenticate(organizer)
    return client


def test_an_ingested_or_rejected_upload_leaves_no_file_behind(client, tmp_path):
    campaign = answers_campaign(tmp_path)
    before = uploads()
    good = "".join("\t".join(line) + "\n" for line in task1_lines("A.1", ["30", "31"], "r9"))
    assert post_run(client, campaign, "r9.tsv", good).status == Job.Status.DONE
    assert post_run(client, campaign, "bad.tsv", "A.1\t30\tx\t1\tbad\n").status == Job.Status.FAILED
    assert uploads() == before


def test_a_job_that_failed_keeps_its_upload_and_its_retry_loads_it(client, tmp_path, monkeypatch):
    campaign = answers_campaign(tmp_path)
    good = "".join("\t".join(line) + "\n" for line in task1_lines("A.1", ["30", "31"], "r9"))
    with monkeypatch.context() as patch:
        patch.setattr("pooling.services.run_ingest", lambda **kwargs: 1 / 0)
        job = post_run(client, campaign, "r9.tsv", good)
    assert job.status == Job.Status.FAILED and job.retryable
    assert client.post(f"/api/jobs/{job.pk}/retry/").status_code in (200, 202)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and Run.objects.filter(campaign=campaign, name="r9").exists()

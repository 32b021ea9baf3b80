"""A failed job's page offers the way on (issue 22, point 10): Upload again, and Back to campaign."""
import pytest

from jobs.models import Job
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kind, upload", [(Job.Kind.RUN_INGEST, "runs/upload/"),
                                          (Job.Kind.TOPICS_INGEST, "topics/upload/")])
def test_a_failed_upload_job_offers_upload_again_and_back_to_campaign(client, organizer, kind, upload):
    campaign = CampaignFactory()
    job = Job.objects.create(kind=kind, campaign=campaign, status=Job.Status.FAILED,
                             params={"upload": "x", "filename": "x"},
                             problems=[{"file": "x", "line": 3, "message": "wrong column count"}],
                             message="rejected: 1 problem, nothing was written")
    client.force_login(organizer)
    text = client.get(f"/jobs/{job.pk}/").content.decode()
    assert f'href="/campaigns/{campaign.pk}/{upload}">Upload again</a>' in text
    assert f'href="/campaigns/{campaign.pk}/">Back to campaign</a>' in text

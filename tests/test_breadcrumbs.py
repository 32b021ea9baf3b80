"""One breadcrumb trail on the organizer's pages (issue 13, point 13): the undo pages (settings, delete, replace)
carry the same trail as every other campaign page, and the job and people confirmation pages a trail of theirs."""
import re

import pytest

from jobs.models import Job
from tests.factories import CampaignFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db

TRAIL = re.compile(r'<nav class="crumbs" aria-label="Breadcrumbs">(.*?)</nav>', re.S)


def trail(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    found = TRAIL.findall(response.content.decode())
    assert len(found) == 1, (url, found)
    return re.sub(r"<[^>]+>", "", found[0]).strip()


def test_the_undo_pages_carry_the_campaign_trail(client, organizer):
    run = RunFactory()
    campaign = run.campaign
    client.force_login(organizer)
    for url in (f"/campaigns/{campaign.pk}/settings/", f"/campaigns/{campaign.pk}/delete/",
                f"/campaigns/{campaign.pk}/runs/{run.pk}/delete/", f"/campaigns/{campaign.pk}/runs/{run.pk}/replace/",
                f"/campaigns/{campaign.pk}/runs/upload/", f"/campaigns/{campaign.pk}/pools/"):
        assert trail(client, url) == f"Campaigns › {campaign.name} ›", url


def test_a_job_page_and_a_people_confirmation_have_their_trail(client, organizer):
    campaign = CampaignFactory()
    job = Job.objects.create(kind=Job.Kind.POOL_BUILD, campaign=campaign, created_by=organizer)
    other = UserFactory()
    client.force_login(organizer)
    assert trail(client, f"/jobs/{job.pk}/") == f"Jobs › {campaign.name} ›"
    assert trail(client, f"/people/{other.pk}/deactivate/") == "People ›"

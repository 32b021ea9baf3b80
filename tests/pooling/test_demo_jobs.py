"""After `make demo` the Jobs page lists what the demo did: it once said "No job yet". Four campaigns
build pools (Task 1, Task 2, MathOverflow, TREC RAG)."""
import pytest
from django.core.management import call_command

from jobs.models import Job
from workflow.demo import CAMPAIGNS, MATHOVERFLOW

pytestmark = pytest.mark.django_db


def test_jobs_page_lists_the_demos_jobs(client, organizer, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    call_command("load_demo", "--force", stdout=None)
    jobs = Job.objects.all()
    assert {job.status for job in jobs} == {Job.Status.DONE}
    kinds = [job.kind for job in jobs.order_by("pk")]
    assert kinds.count(Job.Kind.COLLECTION_INGEST) == 1 and kinds.count(Job.Kind.POOL_BUILD) == 4
    assert kinds.count(Job.Kind.TOPICS_INGEST) == 4 and kinds.count(Job.Kind.RUN_INGEST) >= 12
    client.force_login(organizer)
    text = client.get("/jobs/").content.decode()
    assert "No job yet" not in text
    assert "Built pools for 100 topics" in text and CAMPAIGNS["formulas"] in text and "Loaded run " in text
    # The demo's pools were built from every run: neither pools page calls them out of date.
    from pooling.models import Campaign
    for campaign in Campaign.objects.filter(name__in=[*CAMPAIGNS.values(), MATHOVERFLOW]):
        assert 'id="pools-out-of-date"' not in client.get(f"/campaigns/{campaign.pk}/pools/").content.decode()

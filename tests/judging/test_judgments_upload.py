"""Judgments imported on the web (issue 24): the campaign's Import judgments page and POST
/api/campaigns/<id>/judgments/import/ queue a job that runs import_judgments; the job page says what was imported, or
lists the file's problems with their lines and nothing is stored; assessors cannot."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from jobs.models import Job
from judging.models import Assignment, Judgment
from pooling.models import PoolItem
from tests.factories import CampaignFactory, TopicFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]

GOOD = b"assessor\ttopic\titem_id\tgrade\tcomment\nada\tA.1\t11\t3\t\nada\tA.1\t12\t0\t\n"
BAD = b"ada\tA.1\t11\t3\t\nada\tA.9\t12\t0\t\nada\tA.1\t13\t7\t\n"


@pytest.fixture
def campaign(db):
    """Campaign "web" with topic A.1 pooling posts 11, 12 and 13."""
    campaign = CampaignFactory(name="web")
    topic = TopicFactory(campaign=campaign, topic_id="A.1")
    PoolItem.objects.bulk_create(PoolItem(campaign=campaign, topic=topic, item_id=str(n), position=n)
                                 for n in (11, 12, 13))
    return campaign


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_page_imports_a_file_and_its_job_says_what_was_imported(client, organizer, campaign):
    client.force_login(organizer)
    assert "Import judgments" in client.get(f"/campaigns/{campaign.pk}/").content.decode()
    response = client.post(f"/campaigns/{campaign.pk}/judgments/import/",
                           {"file": SimpleUploadedFile("judged.tsv", GOOD)}, follow=True)
    page = response.content.decode()
    assert "Imported 2 judgments from judged.tsv: 2 new, 0 revised, 0 unchanged; 1 assignment created." in page
    assert "New accounts (no usable password yet): ada." in page
    assert sorted(Judgment.objects.values_list("assignment__assessor__username", "item_id", "grade")) == [
        ("ada", "11", "3"), ("ada", "12", "0")]


def test_a_bad_file_fails_its_job_with_the_lines_and_stores_nothing(client, organizer, campaign):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{campaign.pk}/judgments/import/",
                           {"file": SimpleUploadedFile("bad.tsv", BAD)}, follow=True)
    page = response.content.decode()
    assert "topic &#x27;A.9&#x27; is not a topic of campaign &#x27;web&#x27;" in page
    assert "&#x27;7&#x27; is not a grade: use 3, 2, 1, 0, SF or DK" in page
    assert Job.objects.get().status == Job.Status.FAILED
    assert not Judgment.objects.exists() and not Assignment.objects.exists()


def test_the_api_answers_202_with_the_job_that_imports(organizer, campaign):
    response = api(organizer).post(f"/api/campaigns/{campaign.pk}/judgments/import/",
                                   {"file": SimpleUploadedFile("judged.tsv", GOOD)})
    assert response.status_code == 202
    job = api(organizer).get(f"/api/jobs/{response.json()['id']}/").json()
    assert job["status"] == "done" and job["kind"] == "judgments_import"
    assert Judgment.objects.count() == 2


def test_the_api_lists_a_bad_files_problems_with_their_lines(organizer, campaign):
    response = api(organizer).post(f"/api/campaigns/{campaign.pk}/judgments/import/",
                                   {"file": SimpleUploadedFile("bad.tsv", BAD)})
    job = api(organizer).get(f"/api/jobs/{response.json()['id']}/").json()
    assert job["status"] == "failed"
    assert [(p["line"], p["message"]) for p in job["problems"]] == [
        (2, "topic 'A.9' is not a topic of campaign 'web'"), (3, "'7' is not a grade: use 3, 2, 1, 0, SF or DK")]
    assert not Judgment.objects.exists()


def test_assessors_can_neither_open_the_page_nor_post_to_the_api(client, assessor_user, campaign):
    client.force_login(assessor_user)
    assert client.get(f"/campaigns/{campaign.pk}/judgments/import/").status_code == 403
    assert client.post(f"/campaigns/{campaign.pk}/judgments/import/",
                       {"file": SimpleUploadedFile("judged.tsv", GOOD)}).status_code == 403
    response = api(assessor_user).post(f"/api/campaigns/{campaign.pk}/judgments/import/",
                                       {"file": SimpleUploadedFile("judged.tsv", GOOD)})
    assert response.status_code == 403
    assert not Job.objects.exists() and not Judgment.objects.exists()

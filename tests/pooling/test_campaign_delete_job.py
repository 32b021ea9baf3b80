"""Deleting a campaign off the request (issue 22, point 17): the request marks it as being deleted and answers with a
job; the job deletes its run rows a topic at a time with progress, then the rest. Nothing new starts on a campaign
being deleted, and a campaign with judgments is still refused."""
import threading

import pytest
from django.core.management import call_command
from django.db import connection

from jobs.models import Job
from jobs.runner import job_create, job_execute
from judging import services as assessor_services
from judging.models import Assignment
from judging.tasks import PoolBuildParams
from pooling import services
from pooling.models import Campaign, RunEntry
from tests.judging.fixtures import assign
from tests.pooling.run_files import answers_campaign
from tests.pooling.undo_data import judged, pooled_campaign, token_client  # noqa: F401 (judged: a fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(tmp_path):
    return pooled_campaign(tmp_path)


def test_api_delete_answers_202_with_a_job_and_the_campaign_is_gone_once_it_ran(organizer, campaign,
                                                                                 django_user_model):
    assign(campaign, django_user_model.objects.create_user("ada"), "A.1")  # assigned, nothing judged
    response = token_client(organizer).delete(f"/api/campaigns/{campaign.pk}/")
    assert response.status_code == 202
    body = response.json()
    assert body["kind"] == "campaign_delete" and body["status"] == "queued" and body["campaign"] == "answers"
    # At once: marked, its assignments gone (nobody judges in it any more), its rows still there for the job.
    campaign.refresh_from_db()
    assert campaign.deleting and not Assignment.objects.exists() and RunEntry.objects.count() == 18
    job = job_execute(job_id=body["id"])
    assert job.status == "done", job.message
    assert job.message == "Deleted campaign answers: 2 topics, 3 runs (18 rows), 9 pool items."
    assert not Campaign.objects.exists() and not RunEntry.objects.exists()
    assert job.campaign is None and job.params["name"] == "answers"  # the job stays in the jobs list
    assert token_client(organizer).get(f"/api/jobs/{job.pk}/").json()["progress"] == 1.0


def test_the_run_rows_go_a_topic_at_a_time_with_progress(campaign):
    assessor_services.campaign_delete_start(campaign=campaign)
    seen: list[float] = []
    assert services.campaign_entries_delete(campaign=campaign, progress=seen.append) == 18
    assert seen == [0.5, 0.99]  # A.1's 9 rows of the 18, then A.2's (the last step is still to come)
    assert not RunEntry.objects.exists() and Campaign.objects.filter(pk=campaign.pk).exists()


def test_a_pools_post_on_a_campaign_being_deleted_is_refused_cleanly(client, organizer, campaign):
    queued = job_create(campaign=campaign, params=PoolBuildParams())  # before the delete: refused when it runs
    response = token_client(organizer).delete(f"/api/campaigns/{campaign.pk}/")
    assert response.status_code == 202
    api = token_client(organizer)
    response = api.post(f"/api/campaigns/{campaign.pk}/pools/", {}, format="json")
    assert response.status_code == 400
    assert response.json()["problems"] == ["campaign 'answers' is being deleted: nothing new is started on it"]
    again = api.delete(f"/api/campaigns/{campaign.pk}/")  # its delete job is not running: sent again, not doubled
    assert again.status_code == 202 and again.json()["id"] == response_id(campaign)
    assert api.patch(f"/api/campaigns/{campaign.pk}/", {"name": "x"}, format="json").status_code == 400
    client.force_login(organizer)
    response = client.post(f"/campaigns/{campaign.pk}/pools/build/", follow=True)
    assert response.status_code == 200 and "is being deleted" in response.content.decode()
    assert "job #" in client.get(f"/campaigns/{campaign.pk}/delete/").content.decode()
    queued = job_execute(job_id=queued.pk)
    assert queued.status == "failed" and "is being deleted" in str(queued.problems)
    assert Job.objects.filter(kind=Job.Kind.POOL_BUILD).count() == 1


def response_id(campaign) -> int:
    return Job.objects.get(kind=Job.Kind.CAMPAIGN_DELETE, campaign=campaign).pk


def test_a_campaign_with_judgments_is_refused_and_not_marked(organizer, judged):  # noqa: F811
    response = token_client(organizer).delete(f"/api/campaigns/{judged.pk}/")
    assert response.status_code == 400 and "has judgments" in response.json()["problems"][0]
    judged.refresh_from_db()
    assert not judged.deleting and not Job.objects.filter(kind=Job.Kind.CAMPAIGN_DELETE).exists()


def test_the_delete_command_still_deletes_at_once(campaign):
    call_command("delete_campaign", "answers")
    assert not Campaign.objects.exists() and not RunEntry.objects.exists()


def test_an_assessor_cannot_delete_a_campaign(assessor_user, campaign):
    assert token_client(assessor_user).delete(f"/api/campaigns/{campaign.pk}/").status_code == 403
    assert not Campaign.objects.get(pk=campaign.pk).deleting


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_between_batches_the_delete_holds_nothing_and_a_pools_post_answers_at_once(organizer, tmp_path):
    """The issue's case: a pools POST waited 27 s for a delete's transaction. Now, paused between two batches, the
    delete has no transaction open (so no lock), and the POST is refused at once with the reason."""
    if connection.vendor != "postgresql":
        pytest.skip("SKIPPED: needs PostgreSQL's pg_stat_activity")
    campaign = answers_campaign(tmp_path)
    assessor_services.campaign_delete_start(campaign=campaign)
    paused, go, errors = threading.Event(), threading.Event(), []

    def hold(fraction: float) -> None:
        if not paused.is_set():
            paused.set()
            go.wait(30)

    def delete() -> None:
        try:
            assessor_services.campaign_delete(campaign=Campaign.objects.get(pk=campaign.pk), progress=hold)
        except Exception as exc:  # noqa: BLE001 (asserted below)
            errors.append(exc)
        finally:
            connection.close()

    worker = threading.Thread(target=delete)
    worker.start()
    try:
        assert paused.wait(30)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND state LIKE 'idle in transaction%%'")
            assert cursor.fetchone()[0] == 0
        response = token_client(organizer).post(f"/api/campaigns/{campaign.pk}/pools/", {}, format="json")
        assert response.status_code == 400 and "is being deleted" in response.json()["problems"][0]
        assert RunEntry.objects.count() == 9  # A.1's rows gone, A.2's still to go
    finally:
        go.set()
        worker.join(30)
    assert errors == [] and not Campaign.objects.exists() and not RunEntry.objects.exists()

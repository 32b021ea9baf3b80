"""Undoing a mistake on the organizer's pages and the API: confirmation pages, their POSTs, refusals, 403s."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from jobs.models import Job
from judging.models import Judgment, JudgmentRevision
from pooling import services
from pooling.models import Campaign, PoolItem, Run
from tests.factories import CampaignFactory
from tests.pooling.run_files import answers_campaign
from tests.pooling.undo_data import judged, pooled_campaign, token_client  # noqa: F401 (judged: a fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]



@pytest.fixture
def campaign(tmp_path):
    return pooled_campaign(tmp_path)


def page(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


# --- pages ---------------------------------------------------------------------------------------------------------

def test_campaign_page_links_every_undo_action(client, organizer, campaign):
    client.force_login(organizer)
    html = page(client.get(f"/campaigns/{campaign.pk}/"))
    r1 = campaign.runs.get(name="r1")
    for url in (f"/campaigns/{campaign.pk}/settings/", f"/campaigns/{campaign.pk}/delete/",
                f"/campaigns/{campaign.pk}/runs/{r1.pk}/delete/", f"/campaigns/{campaign.pk}/runs/{r1.pk}/replace/"):
        assert f'href="{url}"' in html
        page(client.get(url))


def test_deleting_a_run_asks_first_then_deletes_and_lands_on_the_campaign(client, organizer, campaign):
    client.force_login(organizer)
    r3 = campaign.runs.get(name="r3")
    html = page(client.get(f"/campaigns/{campaign.pk}/runs/{r3.pk}/delete/"))
    assert "Delete run r3?" in html and "its 4 rows for 2 topics" in html and "rebuilt at once" in html
    assert Run.objects.filter(pk=r3.pk).exists()  # the GET deleted nothing
    response = client.post(f"/campaigns/{campaign.pk}/runs/{r3.pk}/delete/", follow=True)
    html = page(response)
    assert response.redirect_chain == [(f"/campaigns/{campaign.pk}/", 302)]
    assert "Run r3 was deleted (4 rows)." in html and "The pools were rebuilt: 8 items." in html
    assert not Run.objects.filter(pk=r3.pk).exists()


def test_deleting_a_run_once_judged_needs_the_box_ticked(client, organizer, judged):  # noqa: F811
    client.force_login(organizer)
    r3 = judged.runs.get(name="r3")
    url = f"/campaigns/{judged.pk}/runs/{r3.pk}/delete/"
    html = page(client.get(url))
    assert "Judging has started" in html and 'name="force"' in html
    response = client.post(url)
    assert response.status_code == 400 and "Nothing was deleted" in response.content.decode()
    assert Run.objects.filter(pk=r3.pk).exists()
    before = (Judgment.objects.count(), JudgmentRevision.objects.count())
    html = page(client.post(url, {"force": "1"}, follow=True))
    assert "1 judged items are no longer in the pools (A.1 15); their judgments are kept." in html
    assert not Run.objects.filter(pk=r3.pk).exists() and (Judgment.objects.count(),
                                                         JudgmentRevision.objects.count()) == before


def test_replacing_a_run_from_the_page_runs_a_job_that_keeps_its_options(client, organizer, campaign):
    client.force_login(organizer)
    r2 = campaign.runs.get(name="r2")
    url = f"/campaigns/{campaign.pk}/runs/{r2.pk}/replace/"
    assert "Replace run r2" in page(client.get(url))
    upload = SimpleUploadedFile("other-name.tsv", b"A.1\t77\t1\t5.0\tnew\n")
    response = client.post(url, {"file": upload}, follow=True)
    job = Job.objects.get()
    assert response.redirect_chain == [(f"/jobs/{job.pk}/", 302)]
    assert response.status_code == 200
    job.refresh_from_db()
    assert job.status == "done", job.problems
    run = campaign.runs.get(name="r2")
    assert (run.alternate, run.row_count, run.tag) == (True, 1, "new") and "77" in set(
        PoolItem.objects.filter(campaign=campaign).values_list("item_id", flat=True))


def test_a_rejected_replacement_keeps_the_old_run(client, organizer, campaign):
    client.force_login(organizer)
    r2 = campaign.runs.get(name="r2")
    client.post(f"/campaigns/{campaign.pk}/runs/{r2.pk}/replace/",
                {"file": SimpleUploadedFile("x.tsv", b"A.9\t77\t1\t5.0\tnew\n")})
    job = Job.objects.get()
    assert job.status == "failed" and "A.9" in str(job.problems)
    assert campaign.runs.get(name="r2").row_count == 6


def test_settings_page_saves_before_pools_and_refuses_after(client, organizer, tmp_path):
    campaign = answers_campaign(tmp_path)
    client.force_login(organizer)
    url = f"/campaigns/{campaign.pk}/settings/"
    html = page(client.get(url))
    assert 'name="primary_depth"' in html and 'name="instances"' not in html  # answers: no instance setting
    form = {"name": "renamed", "primary_depth": "2", "alternate_depth": "2", "seed": "9", "max_depth": "1000",
            "collection": ""}
    response = client.post(url, form, follow=True)
    assert response.redirect_chain == [(f"/campaigns/{campaign.pk}/", 302)], response.content.decode()
    assert "The settings of renamed were saved." in page(response)
    assert Campaign.objects.filter(pk=campaign.pk, name="renamed", primary_depth=2, seed=9).exists()

    services.pool_build(campaign=campaign, judged_items={})
    html = page(client.get(url))
    assert "The pools are built" in html and 'name="force"' in html
    response = client.post(url, {**form, "primary_depth": "3"})
    assert response.status_code == 200 and "Nothing was changed" in response.content.decode()
    assert "the pools are built: primary depth would change what they hold" in response.content.decode()
    assert Campaign.objects.get(pk=campaign.pk).primary_depth == 2
    response = client.post(url, {**form, "primary_depth": "3", "force": "on"}, follow=True)
    assert "The pools were rebuilt" in page(response) and Campaign.objects.get(pk=campaign.pk).primary_depth == 3


def test_settings_page_shows_out_of_range_numbers_on_their_field(client, organizer, tmp_path):
    campaign = answers_campaign(tmp_path)
    client.force_login(organizer)
    response = client.post(f"/campaigns/{campaign.pk}/settings/", {
        "name": "answers", "primary_depth": str(2**31), "alternate_depth": "0", "seed": str(2**64),
        "max_depth": "1000"})
    html = page(response)
    assert "less than or equal to 2147483647" in html and "greater than or equal to 1" in html
    assert Campaign.objects.get(pk=campaign.pk).primary_depth == 3


def test_deleting_a_campaign_asks_first_and_lands_on_its_job(client, organizer, campaign):
    client.force_login(organizer)
    url = f"/campaigns/{campaign.pk}/delete/"
    html = page(client.get(url))
    assert "2 topics" in html and "3 runs (18 rows)" in html and "9 pool items" in html
    response = client.post(url, follow=True)
    job = Job.objects.get(kind=Job.Kind.CAMPAIGN_DELETE)
    assert response.redirect_chain == [(f"/jobs/{job.pk}/", 302)]
    html = page(response)
    assert "Deleted campaign answers: 2 topics, 3 runs (18 rows), 9 pool items." in html
    assert not Campaign.objects.exists() and job.status == "done" and job.campaign is None
    assert "campaign delete" in page(client.get("/jobs/"))


def test_a_campaign_with_judgments_offers_its_qrels_instead(client, organizer, judged):  # noqa: F811
    client.force_login(organizer)
    url = f"/campaigns/{judged.pk}/delete/"
    html = page(client.get(url))
    assert "This campaign cannot be deleted" in html and f"/campaigns/{judged.pk}/qrels.txt" in html
    assert "<button" not in html.split("cannot be deleted")[1]
    response = client.post(url)
    assert response.status_code == 400 and Campaign.objects.filter(pk=judged.pk).exists()
    assert client.get(f"/campaigns/{judged.pk}/qrels.txt").status_code == 200


@pytest.mark.parametrize("suffix", ["settings/", "delete/", "runs/{run}/delete/", "runs/{run}/replace/"])
def test_assessors_get_403_on_the_undo_pages(client, assessor_user, campaign, suffix):
    client.force_login(assessor_user)
    url = f"/campaigns/{campaign.pk}/" + suffix.format(run=campaign.runs.first().pk)
    assert client.get(url).status_code == 403 and client.post(url).status_code == 403
    assert Campaign.objects.get(pk=campaign.pk).runs.count() == 3


# --- API -----------------------------------------------------------------------------------------------------------

def test_api_deletes_a_run_and_reports_the_pools(organizer, campaign):
    r3 = campaign.runs.get(name="r3")
    response = token_client(organizer).delete(f"/api/campaigns/{campaign.pk}/runs/{r3.pk}/")
    assert response.status_code == 200
    assert response.json() == {"deleted": "r3", "pools": {"rebuilt": True, "items": 8, "unpooled": []}}


def test_api_refuses_a_run_delete_once_judged_unless_forced(organizer, judged):  # noqa: F811
    client = token_client(organizer)
    r3 = judged.runs.get(name="r3")
    response = client.delete(f"/api/campaigns/{judged.pk}/runs/{r3.pk}/")
    assert response.status_code == 400 and "run 'r3' was not deleted" in response.json()["problems"][0]
    response = client.delete(f"/api/campaigns/{judged.pk}/runs/{r3.pk}/?force=true")
    assert response.json()["pools"]["unpooled"] == [["A.1", "15"]] and Judgment.objects.count() == 2


def test_api_replaces_a_run(organizer, campaign):
    r1 = campaign.runs.get(name="r1")
    response = token_client(organizer).put(f"/api/campaigns/{campaign.pk}/runs/{r1.pk}/",
                                           {"file": SimpleUploadedFile("f.tsv", b"A.2\t88\t1\t1.0\tz\n")},
                                           format="multipart")
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == "done" and job.result["replaced"] is True
    assert campaign.runs.get(name="r1").row_count == 1


def test_api_patches_settings_with_the_models_ranges(organizer, campaign):
    client = token_client(organizer)
    url = f"/api/campaigns/{campaign.pk}/"
    response = client.patch(url, {"name": "new name"}, format="json")
    assert response.status_code == 200 and response.json()["campaign"]["name"] == "new name"
    assert response.json()["pools"] == {"rebuilt": False, "items": None, "unpooled": []}
    response = client.patch(url, {"primary_depth": 2**31}, format="json")
    assert response.status_code == 400 and "primary_depth" in response.json()
    response = client.patch(url, {"primary_depth": 1}, format="json")
    assert response.status_code == 400 and "the pools are built" in response.json()["problems"][0]
    response = client.patch(url, {"primary_depth": 1, "force": True}, format="json")
    assert response.status_code == 200 and response.json()["pools"]["rebuilt"] is True
    assert Campaign.objects.get(pk=campaign.pk).primary_depth == 1


def test_api_deletes_a_campaign_without_judgments_and_keeps_one_with(organizer, judged):  # noqa: F811
    client = token_client(organizer)
    response = client.delete(f"/api/campaigns/{judged.pk}/")
    assert response.status_code == 400 and "has judgments" in response.json()["problems"][0]
    other = CampaignFactory(name="empty")
    assert client.delete(f"/api/campaigns/{other.pk}/").status_code == 202
    assert list(Campaign.objects.values_list("name", flat=True)) == ["answers"]


def test_api_undo_is_403_for_assessors(assessor_user, campaign):
    client = token_client(assessor_user)
    run = campaign.runs.first()
    assert client.delete(f"/api/campaigns/{campaign.pk}/runs/{run.pk}/").status_code == 403
    assert client.put(f"/api/campaigns/{campaign.pk}/runs/{run.pk}/", {}, format="multipart").status_code == 403
    assert client.patch(f"/api/campaigns/{campaign.pk}/", {"name": "x"}, format="json").status_code == 403
    assert client.delete(f"/api/campaigns/{campaign.pk}/").status_code == 403
    assert Campaign.objects.get(pk=campaign.pk).name == "answers" and campaign.runs.count() == 3


def test_pools_page_counts_the_judged_items_as_a_rebuild_keeps_them(client, organizer, judged):  # noqa: F811
    from judging.selectors import judged_items_of_campaign
    from pooling.services import judged_count

    client.force_login(organizer)
    response = client.get(f"/campaigns/{judged.pk}/pools/")
    assert response.context["judged"] == judged_count(judged_items_of_campaign(judged))[0] == 2
    assert "Judging has started: 2 items judged." in " ".join(response.content.decode().split())


def test_confirmation_pages_count_the_judged_items_and_topics_as_the_services_do(client, organizer, judged,  # noqa: F811
                                                                                  django_user_model):
    """Issue 24: the delete, replace and settings pages counted every judged pair in Python; the database counts
    them now (assessor.selectors.judged_items_count, judged_topics_count). An item two assessors judged counts once,
    a topic with a judged item once."""
    from judging.selectors import judged_items_of_campaign
    from tests.judging.fixtures import assign
    from tests.pooling.undo_data import judge

    bob = django_user_model.objects.create_user("bob")
    judge(assign(judged, bob, "A.1", kind="training", round=1), "A.1", "10", "2")   # judged by ada too
    official = assign(judged, bob, "A.2")
    for item_id in ("20", "21"):
        judge(official, "A.2", item_id, "1")
    items, topics = services.judged_count(judged_items_of_campaign(judged))
    assert (items, topics) == (4, 2)
    client.force_login(organizer)
    run = judged.runs.get(name="r3")
    for path in (f"/campaigns/{judged.pk}/runs/{run.pk}/delete/", f"/campaigns/{judged.pk}/runs/{run.pk}/replace/"):
        response = client.get(path)
        assert (response.context["judged"], response.context["judged_topics"]) == (4, 2)
        assert "4 items in 2 topics are judged" in " ".join(page(response).split())
    settings = client.get(f"/campaigns/{judged.pk}/settings/")
    assert settings.context["judged"] == 4 and "(4 judged items: every judgment is kept)" in page(settings)
    deleting = client.get(f"/campaigns/{judged.pk}/delete/")
    assert deleting.context["contents"].judged_items == 4
    assert "Assessors have judged 4 items in it" in page(deleting)

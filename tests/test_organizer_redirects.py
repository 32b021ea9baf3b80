"""Every organizer action, followed through its redirects, lands on a page that renders (issue 13.1).

Each action runs twice: with its job run at once when the request commits (the demo's set-up without a broker, as on
SQLite) and with its job left queued (a real worker has not taken it yet). The test client renders every template
fully and raises what a page would answer 500 with.
"""
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from jobs.models import Job
from judging.models import Assignment
from pooling import services
from pooling.models import Campaign, Collection, PoolItem
from tests.factories import CampaignFactory, TopicFactory
from tests.pooling.run_files import ingest, task1_lines, task2_lines

pytestmark = pytest.mark.django_db

TOPICS = (b'<Topics>\n<Topic number="A.1"><Title>Integrals $\\infty$</Title><Question>q</Question></Topic>\n'
          b'<Topic number="A.2"><Title>Sums</Title><Question>q</Question></Topic>\n</Topics>\n')
RUN = b"A.1\t10\t1\t9.0\tr1\nA.1\t11\t2\t8.0\tr1\nA.2\t20\t1\t9.0\tr1\n"
POSTS = (b'<posts>\n<row Id="1" PostTypeId="1" Title="A question" Body="&lt;p&gt;q&lt;/p&gt;" />\n'
         b'<row Id="10" PostTypeId="2" ParentId="1" Body="&lt;p&gt;an answer&lt;/p&gt;" />\n</posts>\n')


@pytest.fixture(params=["eager", "queued"])
def jobs_mode(request, monkeypatch):
    """eager: the job runs when the request's transaction commits, before the redirect is followed (no broker, as in
    the demo); queued: it waits for a worker that has not come yet. Tests never commit, so the commit is played."""
    if request.param == "eager":
        monkeypatch.setattr("jobs.runner.transaction.on_commit", lambda callback, *args, **kwargs: callback())
    else:
        monkeypatch.setattr("jobs.runner.transaction.on_commit", lambda callback, *args, **kwargs: None)
    return request.param


def act(client, jobs_mode, method, url, data=None):
    """The action's response, every redirect followed."""
    return getattr(client, method)(url, data or {}, follow=True)


def assert_renders(response, landing: str | None = None):
    assert response.status_code == 200, response.content[:500]
    for url, status in response.redirect_chain:
        assert status in (301, 302, 303), (url, status)
    if landing is not None:
        assert response.request["PATH_INFO"] == landing
    assert b"Traceback" not in response.content and b"{{" not in response.content


def status_line(response) -> str:
    """The job page's status line as a reader sees it: tags dropped, spaces collapsed."""
    html = response.content.decode().split('class="status-line">', 1)[1].split("</p>", 1)[0]
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


def last_job() -> Job:
    return Job.objects.order_by("-pk").first()


@pytest.fixture
def campaign(db):
    return CampaignFactory(name="day-one", task=Campaign.Task.ANSWERS, primary_depth=3, alternate_depth=3)


@pytest.fixture
def pooled(campaign, tmp_path):
    TopicFactory(campaign=campaign, topic_id="A.1", position=0, title="Integrals")
    TopicFactory(campaign=campaign, topic_id="A.2", position=1, title="Sums")
    ingest(campaign, tmp_path, "r1", task1_lines("A.1", ["10", "11"], "r1") + task1_lines("A.2", ["20"], "r1"))
    services.pool_build(campaign=campaign, judged_items={})
    return campaign


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user("ada", password="assessor-pass-1")


def test_upload_topics_lands_on_its_job_page(client, organizer, campaign, jobs_mode):
    client.force_login(organizer)
    response = act(client, jobs_mode, "post", f"/campaigns/{campaign.pk}/topics/upload/",
                   {"file": SimpleUploadedFile("topics-2026.xml", TOPICS)})
    job = last_job()
    assert_renders(response, f"/jobs/{job.pk}/")
    page = response.content.decode()
    assert "topics-2026.xml" in page
    if jobs_mode == "eager":
        assert status_line(response) == "Status: done — Loaded 2 topics from topics-2026.xml: 2 new, 0 updated."
    else:
        assert status_line(response) == "Status: queued"


def test_upload_run_lands_on_its_job_page(client, organizer, campaign, jobs_mode):
    TopicFactory(campaign=campaign, topic_id="A.1", position=0)
    TopicFactory(campaign=campaign, topic_id="A.2", position=1)
    client.force_login(organizer)
    response = act(client, jobs_mode, "post", f"/campaigns/{campaign.pk}/runs/upload/",
                   {"file": SimpleUploadedFile("team-run1.tsv", RUN), "name": ""})
    assert_renders(response, f"/jobs/{last_job().pk}/")
    page = response.content.decode()
    assert "team-run1.tsv" in page
    if jobs_mode == "eager":
        assert "Loaded run team-run1 from team-run1.tsv: 3 rows for 2 topics." in page


def test_a_rejected_run_upload_lands_on_a_job_page_that_says_why(client, organizer, campaign, jobs_mode):
    TopicFactory(campaign=campaign, topic_id="A.1", position=0)
    client.force_login(organizer)
    response = act(client, jobs_mode, "post", f"/campaigns/{campaign.pk}/runs/upload/",
                   {"file": SimpleUploadedFile("bad.tsv", b"A.1\t10\tx\t9.0\tr1\n")})
    assert_renders(response, f"/jobs/{last_job().pk}/")
    if jobs_mode == "eager":
        page = response.content.decode()
        assert status_line(response) == "Status: failed: rejected: 1 problem, nothing was written"
        assert "line 1" in page and "Retry" not in page  # the same file would be rejected again


def test_upload_collection_files_lands_on_its_job_page(client, organizer, jobs_mode):
    client.force_login(organizer)
    response = act(client, jobs_mode, "post", "/collections/",
                   {"collection": "mse", "files": [SimpleUploadedFile("Posts.xml", POSTS)]})
    assert_renders(response, f"/jobs/{last_job().pk}/")
    if jobs_mode == "eager":
        assert "Loaded 2 posts into collection mse from Posts.xml." in response.content.decode()
        assert Collection.objects.get(name="mse").post_count == 2


@pytest.mark.parametrize("force", [False, True], ids=["build", "rebuild"])
def test_build_and_rebuild_pools_land_on_the_job_page(client, organizer, pooled, jobs_mode, force):
    client.force_login(organizer)
    response = act(client, jobs_mode, "post", f"/campaigns/{pooled.pk}/pools/build/", {"force": "1"} if force else {})
    job = last_job()
    assert job.kind == Job.Kind.POOL_BUILD
    assert_renders(response, f"/jobs/{job.pk}/")
    page = response.content.decode()
    if jobs_mode == "eager":
        assert status_line(response) == "Status: done — Built pools for 2 topics: 3 items."
        assert "{&#x27;" not in page and "{'" not in page  # no Python dict on the page
        assert PoolItem.objects.filter(campaign=pooled).count() == 3
    else:
        assert "queued" in page


def test_build_pools_of_formulas_says_visual_ids_and_instances(client, organizer, tmp_path, jobs_mode):
    from pooling.models import Formula

    collection = Collection.objects.create(name="formula-index")
    for formula_id, visual_id in [("1", "100"), ("2", "100"), ("3", "200")]:
        Formula.objects.create(collection=collection, formula_id=formula_id, post_id=str(int(formula_id) * 10),
                               thread_id="1", type="answer", visual_id=visual_id)
    campaign = CampaignFactory(name="f", task=Campaign.Task.FORMULAS, collection=collection, primary_depth=3,
                               alternate_depth=3, instances=1)
    TopicFactory(campaign=campaign, topic_id="B.1", position=0)
    ingest(campaign, tmp_path, "fa", task2_lines("B.1", ["1", "2", "3"], "fa"))
    client.force_login(organizer)
    response = act(client, jobs_mode, "post", f"/campaigns/{campaign.pk}/pools/build/")
    assert_renders(response, f"/jobs/{last_job().pk}/")
    if jobs_mode == "eager":
        assert ("Built pools for 1 topic: 2 visual ids, 2 formula instances to judge; 1 visual id had more "
                "candidate instances than are judged.") in response.content.decode()


def test_assign_topics_withdraw_and_close_land_on_the_assignments_page(client, organizer, pooled, ada, jobs_mode):
    client.force_login(organizer)
    landing = f"/campaigns/{pooled.pk}/assignments/"
    response = act(client, jobs_mode, "post", landing, {"action": "assign", "assessors": [ada.pk],
                                                        "topics": ["A.1", "A.2"], "kind": "official"})
    assert_renders(response, landing)
    assert Assignment.objects.filter(campaign=pooled).count() == 2
    topic = pooled.topics.get(topic_id="A.1")
    assert_renders(act(client, jobs_mode, "post", f"/campaigns/{pooled.pk}/topics/{topic.pk}/close/"), landing)
    assert_renders(act(client, jobs_mode, "post", f"/campaigns/{pooled.pk}/topics/{topic.pk}/close/",
                       {"closed": "0"}), landing)
    assignment = Assignment.objects.filter(campaign=pooled).first()
    assert_renders(act(client, jobs_mode, "post",
                       f"/campaigns/{pooled.pk}/assignments/{assignment.pk}/withdraw/"), landing)


def test_round_set_up_lands_on_the_training_page(client, organizer, pooled, ada, jobs_mode):
    client.force_login(organizer)
    landing = f"/campaigns/{pooled.pk}/training/"
    response = act(client, jobs_mode, "post", landing, {"topics": ["A.1"], "assessors": [ada.pk]})
    assert_renders(response, landing)
    assert Assignment.objects.filter(campaign=pooled, kind="training").count() == 1


def test_qrels_download_is_a_file(client, organizer, pooled, jobs_mode):
    client.force_login(organizer)
    response = act(client, jobs_mode, "get", f"/campaigns/{pooled.pk}/qrels.txt")
    assert response.status_code == 200 and response.redirect_chain == []
    assert "attachment" in response["Content-Disposition"]
    b"".join(response.streaming_content)


def test_pages_an_organizer_reaches_from_a_campaign_render(client, organizer, pooled, jobs_mode):
    client.force_login(organizer)
    act(client, jobs_mode, "post", f"/campaigns/{pooled.pk}/pools/build/", {"force": "1"})
    for url in ["/campaigns/", f"/campaigns/{pooled.pk}/", f"/campaigns/{pooled.pk}/pools/", "/jobs/",
                f"/jobs/{last_job().pk}/", "/collections/", f"/campaigns/{pooled.pk}/assignments/",
                f"/campaigns/{pooled.pk}/training/", f"/campaigns/{pooled.pk}/leaderboard/"]:
        assert_renders(client.get(url, follow=True), url)

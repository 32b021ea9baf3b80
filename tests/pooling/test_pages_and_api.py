"""Organizer pages and API: who may see what, uploads answer with a job, problems shown with lines."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from jobs.models import Job
from pooling import services
from pooling.models import Collection, Run

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]

TOPICS = b'<Topics>\n<Topic number="A.1"><Title>t</Title><Question>q</Question><Tags>a,b</Tags></Topic>\n</Topics>\n'



@pytest.fixture
def campaign(tmp_path):
    campaign = services.campaign_create(name="demo", task="answers")
    path = tmp_path / "topics.xml"
    path.write_bytes(TOPICS)
    services.topics_ingest(campaign=campaign, path=path)
    return campaign


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


# --- who may see what --------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["/", "/campaigns/", "/collections/", "/jobs/", "/assess/"])
def test_anonymous_visitors_see_only_the_login_page(client, url):
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].startswith("/login/")


@pytest.mark.parametrize("url", ["/campaigns/", "/collections/", "/jobs/", "/campaigns/{pk}/",
                                 "/campaigns/{pk}/runs/upload/"])
def test_assessors_get_403_on_organizer_pages(client, assessor_user, campaign, url):
    client.force_login(assessor_user)
    assert client.get(url.format(pk=campaign.pk)).status_code == 403


@pytest.mark.parametrize("url", ["/api/campaigns/", "/api/jobs/", "/api/collections/", "/api/campaigns/{pk}/runs/"])
def test_api_refuses_assessors_and_anonymous(assessor_user, campaign, url):
    url = url.format(pk=campaign.pk)
    assert api().get(url).status_code in (401, 403)
    assert api(assessor_user).get(url).status_code == 403


def test_home_sends_each_role_to_its_page(client, organizer, assessor_user):
    client.force_login(organizer)
    assert client.get("/")["Location"] == "/campaigns/"
    client.force_login(assessor_user)
    assert client.get("/")["Location"] == "/assess/"


def test_token_auth_works_for_organizers(organizer, campaign):
    token = Token.objects.create(user=organizer)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.get("/api/campaigns/")
    assert response.status_code == 200
    assert response.json()["results"][0]["name"] == "demo"


# --- API ---------------------------------------------------------------------------------------

def test_api_creates_a_campaign_with_defaults(organizer):
    response = api(organizer).post("/api/campaigns/", {"name": "x", "task": "formulas", "collection": "mse"},
                                   format="json")
    assert response.status_code == 201
    body = response.json()
    assert (body["primary_depth"], body["alternate_depth"], body["instances"], body["collection"]) == (25, 15, 5, "mse")


def test_api_duplicate_campaign_is_a_400_with_the_reason(organizer, campaign):
    response = api(organizer).post("/api/campaigns/", {"name": "demo", "task": "answers"}, format="json")
    assert response.status_code == 400
    assert response.json()["problems"] == ["a campaign named 'demo' already exists"]


def test_api_run_upload_answers_202_with_a_job(organizer, campaign):
    upload = SimpleUploadedFile("sys1.tsv", b"A.1\t5\t1\t2.0\tsys1\nA.1\t6\t2\t1.0\tsys1\n")
    response = api(organizer).post(f"/api/campaigns/{campaign.pk}/runs/", {"file": upload, "manual": "true"})
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    # No REDIS_URL in tests: the job ran in-process when the request's transaction committed.
    assert job.status == "done" and job.result["rows"] == 2
    runs = api(organizer).get(f"/api/campaigns/{campaign.pk}/runs/").json()["results"]
    assert [(r["name"], r["kind"], r["manual"], r["row_count"]) for r in runs] == [("sys1", "primary", True, 2)]
    detail = api(organizer).get(f"/api/jobs/{job.pk}/").json()
    assert detail["status"] == "done" and detail["progress"] == 1.0


def test_api_run_upload_takes_a_pool_depth(organizer, campaign):
    upload = SimpleUploadedFile("deep.tsv", b"A.1\t5\t1\t2.0\tdeep\n")
    api(organizer).post(f"/api/campaigns/{campaign.pk}/runs/", {"file": upload, "depth": "80"})
    assert api(organizer).get(f"/api/campaigns/{campaign.pk}/runs/").json()["results"][0]["depth"] == 80


def test_api_rejected_run_job_lists_its_problems(organizer, campaign):
    upload = SimpleUploadedFile("bad.tsv", b"A.1\t5\t1\t2.0\tsys1\nA.7\t6\t2\t1.0\tsys1\n")
    response = api(organizer).post(f"/api/campaigns/{campaign.pk}/runs/", {"file": upload})
    job = api(organizer).get(f"/api/jobs/{response.json()['id']}/").json()
    assert job["status"] == "failed"
    # The fields of before, and the grouping's (docs/formats.md, "Problems").
    assert job["problems"] == [{"line": 2, "message": "topic 'A.7' is not a topic of this campaign", "file": "bad.tsv",
                                "kind": "topic … is not a topic of this campaign", "count": 1, "lines": [2],
                                "last_line": 2}]
    assert not Run.objects.exists()


def test_api_topics_upload_and_list(organizer):
    campaign = services.campaign_create(name="t", task="answers")
    response = api(organizer).post(f"/api/campaigns/{campaign.pk}/topics/",
                                   {"file": SimpleUploadedFile("t.xml", TOPICS)})
    assert response.status_code == 202
    topics = api(organizer).get(f"/api/campaigns/{campaign.pk}/topics/").json()["results"]
    assert [(t["topic_id"], t["tags"]) for t in topics] == [("A.1", "a b")]


def test_a_rejected_collection_upload_leaves_no_collection(client, organizer, tmp_path):
    client.force_login(organizer)
    bad = SimpleUploadedFile("Posts.xml", b'<posts>\n<row PostTypeId="1"/>\n</posts>\n')
    response = client.post("/collections/", {"collection": "new", "files": [bad]}, follow=True)
    assert "Posts.xml: line 2: missing attribute Id" in response.content.decode()
    assert not Collection.objects.exists()


def test_api_collection_upload(organizer, arqmath_data):
    collection = api(organizer).post("/api/collections/", {"name": "mse"}, format="json").json()
    with open(arqmath_data / "posts" / "posts_sample.xml", "rb") as f:
        response = api(organizer).post(f"/api/collections/{collection['id']}/files/", {"files": [f]})
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == "done" and job.result["counts"] == {"posts": 7}


@override_settings(UPLOAD_MAX_BYTES=10)
def test_upload_over_the_size_limit_is_refused(organizer, campaign):
    upload = SimpleUploadedFile("big.tsv", b"A.1\t5\t1\t2.0\tsys1\n")
    response = api(organizer).post(f"/api/campaigns/{campaign.pk}/runs/", {"file": upload})
    assert response.status_code == 400
    assert "more than the upload limit of 10 bytes" in response.json()["problems"][0]
    assert not Job.objects.exists()


def test_openapi_schema_is_for_organizers_only(client, assessor_user):
    assert client.get("/api/schema/").status_code in (401, 403)
    client.force_login(assessor_user)
    assert client.get("/api/schema/").status_code == 403


def test_upload_body_over_the_limit_is_refused_before_it_is_read(client, organizer, settings):
    settings.UPLOAD_MAX_BYTES = 10
    client.force_login(organizer)
    response = client.post("/api/collections/", data=b"x" * (2 << 20), content_type="application/octet-stream")
    assert response.status_code == 413


def test_openapi_schema_is_served(client, organizer):
    client.force_login(organizer)
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/campaigns/{id}/runs/" in response.content


# --- pages -------------------------------------------------------------------------------------

def test_run_upload_page_shows_the_validation_report(client, organizer, campaign):
    client.force_login(organizer)
    upload = SimpleUploadedFile("bad.tsv", b"A.1\t5\t1\t2.0\tr\nA.1\t5\t2\t1.0\tr\nA.1\t6\tthree\t1\tr\n")
    response = client.post(f"/campaigns/{campaign.pk}/runs/upload/", {"file": upload}, follow=True)
    page = response.content.decode()
    assert "nothing was written" in page
    assert "bad.tsv: line 2: &#x27;5&#x27; appears twice for topic A.1 (first on line 1)" in page
    assert "bad.tsv: line 3: rank &#x27;three&#x27; is not a whole number &gt;= 1" in page


def test_campaign_page_lists_runs_with_kind_and_warnings(client, organizer, campaign):
    client.force_login(organizer)
    upload = SimpleUploadedFile("alt.tsv", b"A.1\t5\t1\t1.0\tr\nA.1\t6\t2\t2.0\tr\n")
    client.post(f"/campaigns/{campaign.pk}/runs/upload/", {"file": upload, "kind": "alternate"})
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    runs = page[page.index('id="runs"'):page.index("</table>", page.index('id="runs"'))]
    assert '<td>alt</td>' in runs and '<span class="badge alternate">alternate</span>' in runs
    assert "ranks disagree with score order" in runs


def test_campaign_is_created_from_the_list_page(client, organizer):
    client.force_login(organizer)
    response = client.post("/campaigns/", {"name": "new", "task": "formulas", "collection": "+new",
                                         "new_collection": "mse"})
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "25 primary / 15 alternate" in page


def test_job_list_shows_progress_bars(client, organizer, campaign):
    client.force_login(organizer)
    client.post(f"/campaigns/{campaign.pk}/runs/upload/",
                {"file": SimpleUploadedFile("r.tsv", b"A.1\t5\t1\t1.0\tr\n")})
    page = client.get("/jobs/").content.decode()
    assert "<progress" in page and "run ingest" in page and "done" in page

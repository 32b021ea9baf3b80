"""Pool building as a job and the pools API (SPEC 4, 9): build (202 + job), sizes, the TSV download."""
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from ir.formats.pools import write_pool_tsv
from jobs.models import Job
from jobs.runner import job_create, job_execute
from judging.tasks import PoolBuildParams
from pooling import services
from pooling.models import Campaign, Collection, Formula, PoolItem
from tests.factories import CampaignFactory, TopicFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]



def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def ingest(campaign, tmp_path, name, lines, *, alternate=False):
    path = tmp_path / f"{campaign.name}-{name}.tsv"
    path.write_text("".join("\t".join(line) + "\n" for line in lines))
    return services.run_ingest(campaign=campaign, path=path, alternate=alternate)


def task1_lines(topic, posts, tag):
    return [(topic, post, str(rank), str(10.0 - rank), tag) for rank, post in enumerate(posts, start=1)]


def task2_lines(topic, formulas, tag):
    return [(topic, f, str(int(f) * 10), str(rank), str(10.0 - rank), tag) for rank, f in enumerate(formulas, 1)]


@pytest.fixture
def answers(tmp_path):
    """Primary depth 3, alternate depth 2; A.3 has no run entries, so an empty pool."""
    campaign = CampaignFactory(name="answers", task=Campaign.Task.ANSWERS, primary_depth=3, alternate_depth=2)
    for position, topic_id in enumerate(["A.1", "A.2", "A.3"]):
        TopicFactory(campaign=campaign, topic_id=topic_id, position=position)
    ingest(campaign, tmp_path, "r1", task1_lines("A.1", ["10", "11", "12", "13"], "r1")
           + task1_lines("A.2", ["20", "21", "22", "23"], "r1"))
    ingest(campaign, tmp_path, "r2", task1_lines("A.1", ["12", "14", "10"], "r2")
           + task1_lines("A.2", ["24", "20", "25"], "r2"), alternate=True)
    return campaign


@pytest.fixture
def formulas(tmp_path):
    """k = 2 distinct visual ids for primary runs, 1 for alternate ones, 2 instances per visual id, rr-vote.
    Formulas 1-3 are visual id 100, 4 is 200, 5 is 300; 8 is not in the index and stands for itself."""
    collection = Collection.objects.create(name="hand-made")
    for formula_id, visual_id in [("1", "100"), ("2", "100"), ("3", "100"), ("4", "200"), ("5", "300")]:
        Formula.objects.create(collection=collection, formula_id=formula_id, post_id=str(int(formula_id) * 10),
                               thread_id="1", type="answer", visual_id=visual_id)
    campaign = CampaignFactory(name="formulas", task=Campaign.Task.FORMULAS, collection=collection,
                               primary_depth=2, alternate_depth=1, instances=2, selection="rr-vote")
    TopicFactory(campaign=campaign, topic_id="B.1", position=0)
    TopicFactory(campaign=campaign, topic_id="B.2", position=1)
    ingest(campaign, tmp_path, "ra", task2_lines("B.1", ["1", "2", "4", "5"], "ra")
           + task2_lines("B.2", ["1", "8", "4"], "ra"))
    ingest(campaign, tmp_path, "rb", task2_lines("B.1", ["2", "3", "4"], "rb"))
    return campaign


def command_output(campaign) -> str:
    out = StringIO()
    call_command("export_pools", "--campaign", campaign.name, stdout=out, stderr=StringIO())
    return out.getvalue()


# --- the job -----------------------------------------------------------------------------------

def test_pool_build_job_returns_the_services_result(answers):
    job = job_create(campaign=answers, params=PoolBuildParams())
    job = Job.objects.get(pk=job.pk)
    assert job.status == Job.Status.DONE and job.progress == 1.0 and job.warnings == []
    assert job.result == {"sizes": {"A.1": 4, "A.2": 4, "A.3": 0}, "items": 8}
    assert PoolItem.objects.filter(campaign=answers).count() == 8
    assert job_execute(job_id=job.pk).result == job.result  # a second delivery does nothing


def test_pool_build_job_of_a_campaign_without_runs_fails_with_the_reason(organizer):
    campaign = CampaignFactory(name="empty")
    response = api(organizer).post(f"/api/campaigns/{campaign.pk}/pools/")
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == Job.Status.FAILED
    assert [p["message"] for p in job.problems] == [
        "campaign 'empty' has no runs: ingest its runs before building pools"]


# --- the API -----------------------------------------------------------------------------------

def test_api_pool_build_answers_202_with_a_job_that_ran(organizer, answers):
    response = api(organizer).post(f"/api/campaigns/{answers.pk}/pools/")
    assert response.status_code == 202
    body = response.json()
    assert body["kind"] == "pool_build" and body["campaign"] == "answers" and body["created_by"] == "olga"
    job = Job.objects.get(pk=body["id"])
    # No REDIS_URL in tests: the job ran in-process when the request's transaction committed.
    assert job.status == "done" and job.result == {"sizes": {"A.1": 4, "A.2": 4, "A.3": 0}, "items": 8}
    detail = api(organizer).get(f"/api/jobs/{job.pk}/").json()
    assert detail["status"] == "done" and detail["result"]["items"] == 8


def test_api_pool_build_of_formulas_reports_overflow_and_selected_instances(organizer, formulas):
    response = api(organizer).post(f"/api/campaigns/{formulas.pk}/pools/")
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == "done"
    assert job.result == {"sizes": {"B.1": 2, "B.2": 2}, "items": 4, "overflow": {"B.1": 1, "B.2": 0},
                          "selected": 5}


def test_api_pools_get_gives_sizes_per_topic_before_and_after_the_build(organizer, answers):
    url = f"/api/campaigns/{answers.pk}/pools/"
    before = api(organizer).get(url)
    assert before.status_code == 200
    assert before.json() == {"campaign": "answers", "task": "answers", "built": False, "items": 0, "selected": None,
                             "topics": [{"topic": t, "items": 0, "selected": None} for t in ("A.1", "A.2", "A.3")]}
    api(organizer).post(url)
    assert api(organizer).get(url).json() == {
        "campaign": "answers", "task": "answers", "built": True, "items": 8, "selected": None,
        "topics": [{"topic": "A.1", "items": 4, "selected": None}, {"topic": "A.2", "items": 4, "selected": None},
                   {"topic": "A.3", "items": 0, "selected": None}]}


def test_api_pools_get_counts_selected_formula_instances_per_topic(organizer, formulas):
    services.pool_build(campaign=formulas, judged_items={})
    assert api(organizer).get(f"/api/campaigns/{formulas.pk}/pools/").json() == {
        "campaign": "formulas", "task": "formulas", "built": True, "items": 4, "selected": 5,
        # B.1: 100 (instances 1, 2, 3: the best two judged) and 200; B.2: 100 and 8
        "topics": [{"topic": "B.1", "items": 2, "selected": 3}, {"topic": "B.2", "items": 2, "selected": 2}]}


@pytest.mark.parametrize("task", ["answers", "formulas"])
def test_api_export_download_is_the_export_pools_file(organizer, task, request):
    campaign = request.getfixturevalue(task)
    services.pool_build(campaign=campaign, judged_items={})
    response = api(organizer).get(f"/api/campaigns/{campaign.pk}/pools/export/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/tab-separated-values")
    assert response["Content-Disposition"] == f'attachment; filename="{task}-pools.tsv"'
    assert response.streaming  # sent as it is read (docs/benchmarks.md)
    text = b"".join(response.streaming_content).decode()
    assert text == command_output(campaign)
    lines = text.splitlines()
    assert lines[0] == ("topic\tpost_id" if task == "answers" else "topic\tvisual_id\tformula_id\tpost_id")
    assert len(lines) == 1 + (8 if task == "answers" else 5)


def test_api_export_honours_an_accept_header_for_tsv(organizer, answers):
    services.pool_build(campaign=answers, judged_items={})
    response = api(organizer).get(f"/api/campaigns/{answers.pk}/pools/export/",
                                  HTTP_ACCEPT="text/tab-separated-values")
    assert response.status_code == 200
    assert b"".join(response.streaming_content).decode() == command_output(answers)


def test_api_export_before_the_build_is_a_400_with_the_reason(organizer, answers):
    response = api(organizer).get(f"/api/campaigns/{answers.pk}/pools/export/")
    assert response.status_code == 400
    assert response.json()["problems"] == ["campaign 'answers' has no pools yet: build them first (build_pools)"]


@pytest.mark.parametrize("method,url", [("post", "/api/campaigns/{pk}/pools/"), ("get", "/api/campaigns/{pk}/pools/"),
                                        ("get", "/api/campaigns/{pk}/pools/export/")])
def test_pools_api_refuses_assessors_and_anonymous(assessor_user, answers, method, url):
    services.pool_build(campaign=answers, judged_items={})
    url = url.format(pk=answers.pk)
    assert getattr(api(), method)(url).status_code in (401, 403)
    assert getattr(api(assessor_user), method)(url).status_code == 403
    assert not Job.objects.exists()


def test_pools_endpoints_are_in_the_openapi_schema(client, organizer):
    client.force_login(organizer)
    schema = client.get("/api/schema/").content
    assert b"/api/campaigns/{id}/pools/" in schema and b"/api/campaigns/{id}/pools/export/" in schema
    assert b"PoolSizes" in schema and b"text/tab-separated-values" in schema


# --- the shared writer -------------------------------------------------------------------------

def test_write_pool_tsv_writes_the_tasks_header_then_the_rows():
    out = StringIO()
    assert write_pool_tsv(iter([("A.1", "5"), ("A.2", "7")]), "answers", out) == 2
    assert out.getvalue() == "topic\tpost_id\nA.1\t5\nA.2\t7\n"
    with pytest.raises(ValueError):
        write_pool_tsv([("B.1", "100", "1")], "formulas", StringIO())

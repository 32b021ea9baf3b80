"""What a user or an attacker can send is answered with a 4xx (or a form error), never a 500: integers past their
column, huge `?limit=`, a non-numeric id, a format suffix, a NUL in a URL or a comment."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from jobs.models import Job
from judging.models import Assignment, Judgment
from pooling.models import Campaign, PoolItem
from tests.judging.fixtures import assign

BIG = 2**40  # past PostgreSQL's integer (2^31 - 1)
HUGE = 2**70  # past every integer column


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.parametrize("field, value", [("primary_depth", BIG), ("alternate_depth", BIG), ("instances", BIG),
                                          ("max_depth", BIG), ("seed", HUGE), ("seed", -HUGE)])
def test_api_campaign_with_an_integer_past_its_column_is_400(organizer, field, value):
    response = api(organizer).post("/api/campaigns/", {"name": "c", "task": "answers", field: value}, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not Campaign.objects.exists()


@pytest.mark.parametrize("field, value", [("primary_depth", BIG), ("instances", BIG), ("seed", HUGE)])
def test_campaign_form_with_an_integer_past_its_column_is_a_form_error(client, organizer, field, value):
    client.force_login(organizer)
    response = client.post("/campaigns/", {"name": "c", "task": "answers", field: str(value)})
    assert response.status_code == 200
    assert "less than or equal to" in response.context["form"].errors[field][0]
    assert not Campaign.objects.exists()


def test_run_depth_past_its_column_is_refused_by_form_and_api(client, organizer, answers):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{answers.pk}/runs/upload/",
                           {"file": _file(), "depth": str(BIG)})
    assert response.status_code == 200
    assert "depth" in response.context["form"].errors
    response = api(organizer).post(f"/api/campaigns/{answers.pk}/runs/", {"file": _file(), "depth": BIG},
                                   format="multipart")
    assert response.status_code == 400
    assert "depth" in response.json()
    assert not Job.objects.filter(kind=Job.Kind.RUN_INGEST).exists()


def test_training_round_past_its_column_is_a_form_error(client, organizer, answers, ada):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{answers.pk}/assignments/",
                           {"action": "assign", "assessors": [ada.pk], "topics": ["A.1"], "kind": "training",
                            "round": str(BIG)})
    assert response.status_code == 200
    assert "round" in response.context["form"].errors
    assert not Assignment.objects.exists()


def _file():
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("r.tsv", b"A.1\t10\t1\t2.0\tr\n")


def test_limit_past_2_to_the_64_is_capped(organizer, answers):
    response = api(organizer).get(f"/api/campaigns/?limit={2**64}")
    assert response.status_code == 200
    assert response.json()["count"] == 1
    response = api(organizer).get(f"/api/campaigns/?limit={2**64}&offset={2**64}")
    assert response.status_code == 200
    assert response.json()["results"] == []


def test_limit_is_at_most_1000(organizer):
    from pooling.models import Collection

    Collection.objects.bulk_create(Collection(name=f"c{n}") for n in range(1005))
    response = api(organizer).get("/api/collections/?limit=5000")
    assert len(response.json()["results"]) == 1000


@pytest.mark.parametrize("url", ["/api/jobs/abc/", "/api/campaigns/abc/", "/api/collections/abc/",
                                 "/api/jobs/1.5/", f"/api/jobs/{HUGE}/"])
def test_a_non_numeric_or_huge_id_is_404(organizer, url):
    assert api(organizer).get(url).status_code == 404


@pytest.mark.parametrize("url", ["/api/assignments/abc/", "/api/judgments/abc/", f"/api/assignments/{HUGE}/"])
def test_a_non_numeric_id_of_an_assessor_api_is_404(ada, url):
    assert api(ada).get(url).status_code == 404


@pytest.mark.parametrize("suffix", ["runs.json", "topics.json", "pools.json", "pools/export.tsv"])
def test_format_suffix_on_a_custom_action_is_404(organizer, answers, suffix):
    # No route takes it; APPEND_SLASH sends the client to the same address with a slash, which is a JSON 404.
    response = api(organizer).get(f"/api/campaigns/{answers.pk}/{suffix}", follow=True)
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def test_format_is_still_chosen_by_query(organizer, answers):
    response = api(organizer).get(f"/api/campaigns/{answers.pk}/runs/?format=json")
    assert response.status_code == 200
    assert response.json()["count"] == 1


def test_nul_in_a_thread_url_is_404(client, answers, ada):
    assign(answers, ada, "A.1")
    client.force_login(ada)
    assert client.get(f"/assess/collections/{answers.collection_id}/posts/1/").status_code == 200
    assert client.get(f"/assess/collections/{answers.collection_id}/posts/1%00x/").status_code == 404


def test_nul_in_a_judging_comment_is_a_form_error(client, answers, ada):
    a = assign(answers, ada, "A.1")
    item = PoolItem.objects.filter(topic=a.topic).order_by("position").first()
    client.force_login(ada)
    response = client.post(f"/assess/assignments/{a.pk}/items/{item.position}/",
                           {"item_id": item.item_id, "grade": "2", "comment": "a\x00b"})
    assert response.status_code == 400
    assert "NUL character" in response.content.decode()
    assert not Judgment.objects.exists()
    response = client.post(f"/assess/assignments/{a.pk}/items/{item.position}/",
                           {"item_id": item.item_id, "grade": "2", "comment": "ab"})
    assert response.status_code == 302
    assert Judgment.objects.get().comment == "ab"


def test_nul_in_an_api_comment_is_400(answers, ada):
    a = assign(answers, ada, "A.1")
    item = PoolItem.objects.filter(topic=a.topic).order_by("position").first()
    response = api(ada).post("/api/judgments/", {"assignment": a.pk, "item_id": item.item_id,
                                                 "grades": [{"grade": "2", "comment": "a\x00b"}]}, format="json")
    assert response.status_code == 400
    assert not Judgment.objects.exists()

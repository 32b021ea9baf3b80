"""The API says what it does (issue 22, point 18): requests on real objects, built by schemathesis from the OpenAPI
schema (drf-spectacular's) and sent in-process to the WSGI application with an organizer's token, each answer held
to the schema by schemathesis's conformance checks: no 5xx, a documented status code, content type and body.

The fuzzing over every operation (random ids, valid and invalid data) is tests/security/test_schemathesis.py; random
ids mostly meet 404s, so the answers of real runs, jobs and campaigns are checked here, case by case."""
from __future__ import annotations

import json

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from jobs.models import Job
from pooling import services
from pooling.models import Campaign, Collection
from tests.pooling.run_files import answers_campaign

pytestmark = pytest.mark.django_db
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def schema():
    document = SchemaGenerator().get_schema(request=None, public=True)
    loaded = schemathesis.openapi.from_dict(json.loads(OpenApiJsonRenderer().render(document)))
    loaded.app = WSGIHandler()
    return loaded


@pytest.fixture
def call(schema, organizer):
    """Sends one request the schema describes, as an organizer, through the WSGI application in the test's own
    transaction (its connection kept across requests, as Django's test client does); returns the response after
    schemathesis's checks."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    token = Token.objects.create(user=organizer).key

    def send(method: str, path: str, **parts):
        case = schema[path][method].Case(**parts)
        return case.call_and_validate(headers={"Authorization": f"Token {token}"}, checks=CHECKS)

    yield send
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def campaign(tmp_path):
    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    return campaign


def test_deleting_a_run_answers_200_with_what_it_did_as_documented(call, campaign):
    run = campaign.runs.get(name="r3")
    response = call("DELETE", "/api/campaigns/{id}/runs/{run_pk}/",
                    path_parameters={"id": campaign.pk, "run_pk": run.pk})
    assert response.status_code == 200
    assert response.json() == {"deleted": "r3", "pools": {"rebuilt": True, "items": 8, "unpooled": []}}


def test_retrying_a_job_that_is_done_answers_a_documented_400(call, campaign):
    job = Job.objects.create(kind=Job.Kind.POOL_BUILD, campaign=campaign, status=Job.Status.DONE)
    response = call("POST", "/api/jobs/{id}/retry/", path_parameters={"id": job.pk})
    assert response.status_code == 400 and "only a failed job" in response.json()["problems"][0]


@pytest.mark.parametrize("query", [{"offset": "abc"}, {"limit": "abc"}, {"offset": "-1"}, {"limit": "0"},
                                   {"limit": "1.5"}])
def test_a_page_past_whole_numbers_is_a_400(call, campaign, query):
    response = call("GET", "/api/campaigns/", query=query)
    assert response.status_code == 400 and list(response.json()) == list(query)


def test_pages_still_take_whole_numbers_and_a_large_limit(call, campaign):
    assert call("GET", "/api/campaigns/{id}/runs/", path_parameters={"id": campaign.pk},
                query={"offset": 1, "limit": 1}).json()["results"][0]["name"] == "r2"
    assert len(call("GET", "/api/jobs/", query={"limit": 10**30}).json()["results"]) == 0


def test_creating_a_collection_keeps_its_description(call):
    response = call("POST", "/api/collections/", body={"name": "MSE", "description": "Math StackExchange 2010-18"},
                    media_type="application/json")
    assert response.status_code == 201 and response.json()["description"] == "Math StackExchange 2010-18"
    assert Collection.objects.get(name="MSE").description == "Math StackExchange 2010-18"


def test_deleting_a_campaign_answers_202_with_its_job_and_then_400s_as_documented(call, campaign):
    response = call("DELETE", "/api/campaigns/{id}/", path_parameters={"id": campaign.pk})
    assert response.status_code == 202 and response.json()["kind"] == "campaign_delete"
    assert Campaign.objects.get(pk=campaign.pk).deleting
    assert call("POST", "/api/campaigns/{id}/pools/", path_parameters={"id": campaign.pk}).status_code == 400
    again = call("DELETE", "/api/campaigns/{id}/", path_parameters={"id": campaign.pk})  # its job is not running:
    assert again.status_code == 202 and again.json()["id"] == response.json()["id"]  # sent again, not doubled


def test_reads_of_real_objects_match_the_schema(call, campaign):
    run = campaign.runs.first()
    job = Job.objects.create(kind=Job.Kind.POOL_BUILD, campaign=campaign, status=Job.Status.FAILED, message="x")
    for path, ids in [("/api/campaigns/", {}), ("/api/campaigns/{id}/", {"id": campaign.pk}),
                      ("/api/campaigns/{id}/runs/", {"id": campaign.pk}),
                      ("/api/campaigns/{id}/runs/{run_pk}/", {"id": campaign.pk, "run_pk": run.pk}),
                      ("/api/campaigns/{id}/topics/", {"id": campaign.pk}),
                      ("/api/campaigns/{id}/pools/", {"id": campaign.pk}), ("/api/jobs/", {}),
                      ("/api/jobs/{id}/", {"id": job.pk})]:
        assert call("GET", path, path_parameters=ids).status_code == 200, path
    assert call("POST", "/api/jobs/{id}/retry/", path_parameters={"id": job.pk}).status_code == 202


def test_the_llm_endpoint_and_its_judging_job_answer_as_documented(call, campaign):
    """Issue 26: the campaign's LLM endpoint (set, changed, read; a key's value refused) and a judging job started
    and cancelled."""
    path = "/api/campaigns/{id}/llm/"
    assert call("GET", path, path_parameters={"id": campaign.pk}).status_code == 404
    put = call("PUT", path, path_parameters={"id": campaign.pk}, media_type="application/json",
               body={"base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": "ASSESS_LLM_KEY_TEST"})
    assert put.status_code == 200 and put.json()["prompt_name"] == "umbrela-bing v1"
    patched = call("PATCH", path, path_parameters={"id": campaign.pk}, media_type="application/json",
                   body={"samples": 3})
    assert patched.status_code == 200 and patched.json()["samples"] == 3
    refused = call("PATCH", path, path_parameters={"id": campaign.pk}, media_type="application/json",
                   body={"api_key_env": "sk-not-a-name"})
    assert refused.status_code == 400
    assert call("GET", path, path_parameters={"id": campaign.pk}).json()["api_key_env"] == "ASSESS_LLM_KEY_TEST"
    started = call("POST", "/api/campaigns/{id}/llm/judge/", path_parameters={"id": campaign.pk},
                   media_type="application/json", body={"limit_per_topic": 1})
    assert started.status_code == 202 and started.json()["kind"] == "llm_judge"
    cancelled = call("POST", "/api/jobs/{id}/cancel/", path_parameters={"id": started.json()["id"]})
    assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"
    assert call("POST", "/api/jobs/{id}/cancel/", path_parameters={"id": started.json()["id"]}).status_code == 400


@pytest.mark.parametrize(("method", "path"), [("POST", "/api/characterisations/"), ("POST", "/api/collections/"),
                                               ("PATCH", "/api/campaigns/{id}/")])
def test_a_body_in_a_content_type_no_parser_reads_is_a_documented_415(call, campaign, method, path):
    response = call(method, path, path_parameters={"id": campaign.pk} if "{id}" in path else {},
                    body="name=x", media_type="text/plain")
    assert response.status_code == 415

"""The LLM judge's surfaces: the command, the job with its Cancel button, the campaign's LLM page and its API."""
from __future__ import annotations

import pytest
from django.db import connection

from jobs.models import Job
from jobs.runner import job_cancel, job_create, job_execute
from llm.models import Endpoint, LlmGrade, Prompt
from llm.tasks import LlmJudgeParams
from tests.commands import command_output, rejected
from tests.llm.server import Answer, ChatServer

pytestmark = pytest.mark.django_db


def test_command_judges_and_sums_up(answers):
    with ChatServer() as server:
        out, _ = command_output("llm_judge", "--campaign", "answers", "--base-url", server.url, "--model", "m1",
                                "--topics", "A.1", "--limit-per-topic", "2", "--samples", "2", "--concurrency", "1")
    assert server.requests == 4
    assert "campaign 'answers', model m1, prompts umbrela-bing v1, arqmath-task3 v1: judged 2, failed 0" in out
    assert "tokens in" in out and LlmGrade.objects.filter(model="m1").count() == 2


def test_command_uses_the_campaigns_endpoint_and_refuses_without_one(answers):
    assert rejected("llm_judge", "--campaign", "answers") == [
        "campaign 'answers' has no LLM endpoint: set one on its LLM page, or give a base URL and a model"]
    with ChatServer() as server:
        Endpoint.objects.create(campaign=answers, base_url=server.url, model="saved-model", retries=0)
        command_output("llm_judge", "--campaign", "answers", "--topics", "A.2")
    assert set(LlmGrade.objects.values_list("model", flat=True)) == {"saved-model"}
    assert rejected("llm_judge", "--campaign", "answers", "--prompt", "nope@x")[0].startswith("'nope@x': a prompt is")


def test_command_refuses_a_key_variable_that_is_not_set(answers, monkeypatch):
    monkeypatch.delenv("ASSESS_LLM_KEY_NOT_SET", raising=False)
    with ChatServer() as server:
        lines = rejected("llm_judge", "--campaign", "answers", "--base-url", server.url, "--model", "m",
                         "--api-key-env", "ASSESS_LLM_KEY_NOT_SET")
    assert server.requests == 0
    assert ("the environment variable ASSESS_LLM_KEY_NOT_SET, which should hold the endpoint's key, is not "
            "set") in lines[0]


def test_the_job_judges_and_says_what_it_did(answers, django_capture_on_commit_callbacks):
    with ChatServer(lambda prompt, n: Answer("##final score: 0")) as server:
        Endpoint.objects.create(campaign=answers, base_url=server.url, model="m", retries=0)
        with django_capture_on_commit_callbacks(execute=True):
            job = job_create(params=LlmJudgeParams(canaries=1), campaign=answers)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.message
    # 4 items and 4 canaries (two sources, each stuffed and planted), from what the model graded 0.
    # The item the collection lacks is no failure to try again: it is missing, and said so.
    assert job.result["judged"] == 8 and job.result["failed"] == 0 and job.result["missing"] == 1
    assert job.result["canaries_created"] == 4
    assert job.message.startswith("Judged 8 items with m, 0 failures (tried again by the next run), 1 item whose text "
                                  "the collection lacks")


def test_a_queued_job_is_cancelled_at_once_and_a_finished_one_is_not(answers, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        job = job_create(params=LlmJudgeParams(), campaign=answers)
    assert job_cancel(job=job).status == Job.Status.CANCELLED
    assert job_execute(job_id=job.pk).status == Job.Status.CANCELLED  # its message, when it comes, does nothing
    with pytest.raises(Exception, match="only a queued or running job is cancelled"):
        job_cancel(job=job)
    other = Job.objects.create(kind=Job.Kind.POOL_BUILD, campaign=answers, status=Job.Status.RUNNING)
    with pytest.raises(Exception, match="cannot be cancelled"):  # running, all or nothing (queued, it would be)
        job_cancel(job=other)


@pytest.mark.django_db(transaction=True)
def test_cancel_stops_a_running_job_between_batches(answers, monkeypatch):
    from llm import services
    monkeypatch.setattr(services, "BATCH_SECONDS", 0.05)
    job = Job.objects.create(kind=Job.Kind.LLM_JUDGE, campaign=answers, params=LlmJudgeParams().to_json())

    def answer(prompt, n):
        if n == 1:  # the organizer presses Cancel while the second item is being judged
            Job.objects.filter(pk=job.pk).update(cancel_requested=True)
            connection.close()
        return Answer(delay=0.1)

    with ChatServer(answer) as server:
        Endpoint.objects.create(campaign=answers, base_url=server.url, model="m", retries=0, concurrency=1)
        job = job_execute(job_id=job.pk)
    assert job.status == Job.Status.CANCELLED
    stored = LlmGrade.objects.count()
    assert 1 <= stored < 5 and server.requests < 4
    assert job.result["judged"] + job.result["failed"] + job.result["missing"] == stored
    assert job.result["cancelled"] and job.message.startswith(
        f"Cancelled: stopped after judging {job.result['judged']} item")


def test_the_llm_page_saves_the_endpoint_and_edits_a_prompt(answers, organizer_client):
    page = organizer_client.get(f"/campaigns/{answers.pk}/llm/")
    assert page.status_code == 200 and b"umbrela-bing" in page.content and b"Save an endpoint first" in page.content
    saved = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {
        "action": "endpoint", "base_url": "http://127.0.0.1:11434/v1", "model": "llama3.1:8b", "api_key_env": "",
        "temperature": "0", "concurrency": "4", "timeout": "60", "retries": "3", "samples": "3", "mode": "blind"})
    assert saved.status_code == 302
    endpoint = Endpoint.objects.get(campaign=answers)
    assert (endpoint.model, endpoint.samples, endpoint.concurrency) == ("llama3.1:8b", 3, 4)
    prompt = Prompt.objects.get(name="umbrela-bing")
    edited = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {
        "action": "prompt", "prompt": prompt.pk, "text": "Query: {query}\nPassage: {passage}\n##final score: N"})
    assert edited.status_code == 302
    assert Prompt.objects.filter(name="umbrela-bing").count() == 2
    refused = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {
        "action": "prompt", "prompt": prompt.pk, "text": "no fields here"})
    assert refused.status_code == 200 and b"the prompt must name {query}, {passage}" in refused.content
    page = organizer_client.get(f"/campaigns/{answers.pk}/llm/")
    assert b"umbrela-bing</strong> v2" in page.content and b"Start judging" in page.content


def test_the_page_never_takes_a_key(answers, organizer_client):
    page = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {
        "action": "endpoint", "base_url": "http://127.0.0.1:11434/v1", "model": "m", "api_key_env": "sk-abc123secret",
        "temperature": "0", "concurrency": "4", "timeout": "60", "retries": "3", "samples": "1", "mode": "blind"})
    assert page.status_code == 200 and b"not the name of an environment variable" in page.content
    assert b"sk-abc123secret" not in page.content and not Endpoint.objects.exists()
    page = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {
        "action": "endpoint", "base_url": "http://127.0.0.1:11434/v1", "model": "m", "api_key": "sk-abc123secret",
        "temperature": "0", "concurrency": "4", "timeout": "60", "retries": "3", "samples": "1", "mode": "blind"})
    assert b"the key itself is never accepted" in page.content and not Endpoint.objects.exists()


def test_the_page_is_for_organizers_only(answers, ada_client):
    assert ada_client.get(f"/campaigns/{answers.pk}/llm/").status_code == 403


def test_the_page_starts_a_job_and_the_job_page_can_cancel_it(answers, organizer_client,
                                                              django_capture_on_commit_callbacks):
    Endpoint.objects.create(campaign=answers, base_url="http://127.0.0.1:9/v1", model="m")
    with django_capture_on_commit_callbacks(execute=False):
        started = organizer_client.post(f"/campaigns/{answers.pk}/llm/judge/", {"topics": "A.1", "canaries": "1"})
    job = Job.objects.get(kind=Job.Kind.LLM_JUDGE)
    assert started.url == f"/jobs/{job.pk}/" and job.params["topics"] == ["A.1"] and job.params["canaries"] == 1
    page = organizer_client.get(started.url)
    assert b'id="job-cancel"' in page.content
    organizer_client.post(f"/jobs/{job.pk}/cancel/")
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED
    assert b'id="job-cancel"' not in organizer_client.get(started.url).content


def test_api_sets_reads_and_refuses_a_key(answers, api):
    url = f"/api/campaigns/{answers.pk}/llm/"
    assert api.get(url).status_code == 404
    put = api.put(url, {"base_url": "http://127.0.0.1:8000/v1", "model": "qwen", "api_key_env": "ASSESS_LLM_KEY_VLLM"},
                  format="json")
    assert put.status_code == 200, put.json()
    assert put.json()["prompt_name"] == "umbrela-bing v1" and put.json()["samples"] == 1
    patched = api.patch(url, {"samples": 5, "mode": "suggest"}, format="json")
    assert patched.json()["samples"] == 5 and patched.json()["model"] == "qwen"
    refused = api.patch(url, {"api_key": "sk-secret-value"}, format="json")
    assert refused.status_code == 400 and "the key itself is never accepted" in refused.json()["problems"][0]
    refused = api.patch(url, {"api_key_env": "sk-secret-value"}, format="json")
    assert refused.status_code == 400 and "sk-secret-value" not in refused.content.decode()
    assert api.get(url).json()["api_key_env"] == "ASSESS_LLM_KEY_VLLM"


def test_api_starts_and_cancels_a_judging_job(answers, api, django_capture_on_commit_callbacks):
    assert api.post(f"/api/campaigns/{answers.pk}/llm/judge/", {}, format="json").status_code == 400
    Endpoint.objects.create(campaign=answers, base_url="http://127.0.0.1:9/v1", model="m")
    with django_capture_on_commit_callbacks(execute=False):
        started = api.post(f"/api/campaigns/{answers.pk}/llm/judge/", {"limit_per_topic": 2, "samples": 3},
                           format="json")
    assert started.status_code == 202 and started.json()["kind"] == "llm_judge"
    job = Job.objects.get(pk=started.json()["id"])
    assert job.params["samples"] == 3 and job.params["limit_per_topic"] == 2
    cancelled = api.post(f"/api/jobs/{job.pk}/cancel/")
    assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"
    assert api.post(f"/api/jobs/{job.pk}/cancel/").status_code == 400

"""Defects a new user met on the LLM co-assessor's pages (docs/llm.md): each test failed before its fix."""
from __future__ import annotations

import re

import pytest

from ir.problems import InputError
from jobs.models import Job
from jobs.runner import job_create
from llm import services
from llm.client import base_url_normalised
from llm.models import Endpoint, LlmGrade, Prompt
from llm.tasks import LlmJudgeParams
from pooling.models import Campaign
from tests.commands import command_output, rejected
from tests.llm.server import Answer, ChatServer

pytestmark = pytest.mark.django_db

ENDPOINT = {"action": "endpoint", "model": "m", "api_key_env": "", "temperature": "0", "concurrency": "4",
            "timeout": "60", "retries": "3", "samples": "1", "mode": "blind"}
# Nothing listens on port 9 (discard) of this host: a connection is refused at once.
CLOSED = "http://127.0.0.1:9/v1"


def test_the_llm_page_lists_its_judging_jobs(answers, organizer_client):
    job = Job.objects.create(kind=Job.Kind.LLM_JUDGE, campaign=answers, params=LlmJudgeParams().to_json())
    page = organizer_client.get(f"/campaigns/{answers.pk}/llm/")
    assert page.status_code == 200
    assert f'href="/jobs/{job.pk}/"'.encode() in page.content and b'data-status="queued"' in page.content


def test_a_job_whose_every_request_failed_is_failed_and_says_why(answers, organizer_client,
                                                                  django_capture_on_commit_callbacks):
    Endpoint.objects.create(campaign=answers, base_url=CLOSED, model="m", retries=0, timeout=5)
    with django_capture_on_commit_callbacks(execute=True):
        job = job_create(params=LlmJudgeParams(topics=["A.1"]), campaign=answers)
    job.refresh_from_db()
    failures = LlmGrade.objects.filter(grade__isnull=True).count()
    assert job.status == Job.Status.FAILED and failures > 0 and job.retryable
    assert job.result["all_failed"] and job.result["failure_reasons"][0][0] == failures
    assert job.message.startswith(f"every one of the {failures} items sent to m failed")
    assert f"Commonest failures: {failures} × APIConnectionError, 1 try: Connection error. Check" in job.message
    page = organizer_client.get(f"/campaigns/{answers.pk}/llm/").content.decode()
    assert 'id="llm-failures"' in page and "APIConnectionError, 1 try: Connection error." in page
    assert 'class="job-failed"' in page


def test_a_job_stops_once_its_first_requests_all_failed(answers, monkeypatch, django_capture_on_commit_callbacks,
                                                        organizer_client):
    # An endpoint that does not answer is said in seconds, not after every item of the campaign was tried.
    monkeypatch.setattr(services, "GIVE_UP", 2)
    Endpoint.objects.create(campaign=answers, base_url=CLOSED, model="m", retries=0, timeout=5, concurrency=1)
    with django_capture_on_commit_callbacks(execute=True):
        job = job_create(params=LlmJudgeParams(canaries=1), campaign=answers)
    job.refresh_from_db()
    failed = job.result["failed"]
    # Stopped with the failures that came back by then: at least 2, and never the campaign's 5 items and canaries.
    assert job.status == Job.Status.FAILED and job.result["gave_up"] and 2 <= failed <= 4
    assert LlmGrade.objects.count() == failed + job.result["missing"] and not job.result["canaries_created"]
    # The status says "failed" (no "failed: failed:"); the first GIVE_UP requests are named as the docs name them.
    more = f" ({failed - 2} more in flight failed with them)" if failed > 2 else ""
    assert job.message.startswith(f"the first 2 requests to m all failed{more}, so the run stopped there")
    page = organizer_client.get(f"/jobs/{job.pk}/").content.decode()
    assert "failed: failed" not in page and "failed</strong><span class=\"message\">: the first 2 requests" in page


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)  # the progress is written on a connection of its own: it must see the job
def test_a_running_job_says_how_many_items_came_back(answers):
    # The job page shows the bar and, beside it, the count of the items answered so far; other jobs' lines are kept.
    from jobs.runner import _progress

    said = []
    with ChatServer(lambda prompt, n: Answer("##final score: 2" if n else "no grade")) as server:
        settings = services.EndpointSettings(base_url=server.url, model="m", retries=0, concurrency=1)
        services.llm_judge(campaign=answers, settings=settings, topics=["A.1"],
                           progress=lambda fraction, text="": said.append((fraction, text)))
    assert said[-1] == (1.0, "3 of 3 items answered (2 graded, 1 failed)")
    job = Job.objects.create(kind=Job.Kind.LLM_JUDGE, campaign=answers, status=Job.Status.RUNNING, attempts=1,
                             message="attempt 1")
    with _progress(job) as report:
        report(0.25)
        job.refresh_from_db()
        assert (job.progress, job.message) == (0.25, "attempt 1")
        report(0.5, "1 of 2 items answered (1 graded, 0 failed)")
    job.refresh_from_db()
    assert (job.progress, job.message) == (0.5, "1 of 2 items answered (1 graded, 0 failed)")


def test_a_job_with_some_failures_is_done_and_names_them(answers, django_capture_on_commit_callbacks):
    with ChatServer(lambda prompt, n: Answer("no grade" if n == 0 else "##final score: 1")) as server:
        Endpoint.objects.create(campaign=answers, base_url=server.url, model="m", retries=0, concurrency=1)
        with django_capture_on_commit_callbacks(execute=True):
            job = job_create(params=LlmJudgeParams(topics=["A.1"]), campaign=answers)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and not job.result["all_failed"]
    assert "Commonest failures: 1 × no grade in the reply" in job.message


@pytest.mark.parametrize("typed, stored", [
    ("localhost:11434/v1", "http://localhost:11434/v1"), ("my-gpu-box:8000/v1", "http://my-gpu-box:8000/v1"),
    ("http://10.1.2.3:8000/v1", "http://10.1.2.3:8000/v1"), ("https://api.openai.com/v1", "https://api.openai.com/v1"),
    ("http://[::1]:8000/v1", "http://[::1]:8000/v1")])
def test_a_base_url_without_a_scheme_is_taken_as_http(answers, organizer_client, api, typed, stored):
    saved = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {**ENDPOINT, "base_url": typed})
    assert saved.status_code == 302, saved.content.decode()
    assert Endpoint.objects.get(campaign=answers).base_url == stored
    Endpoint.objects.all().delete()
    put = api.put(f"/api/campaigns/{answers.pk}/llm/", {"base_url": typed, "model": "m"}, format="json")
    assert put.status_code == 200 and put.json()["base_url"] == stored


def test_the_command_takes_a_base_url_without_a_scheme(answers):
    with ChatServer() as server:
        command_output("llm_judge", "--campaign", "answers", "--base-url", server.url.removeprefix("http://"),
                       "--model", "m1", "--topics", "A.1", "--limit-per-topic", "1")
    assert server.requests == 1


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest/meta-data/", "169.254.169.254", "http://[fe80::1]/v1",
                                 "http://metadata.google.internal/computeMetadata/v1/", "http://2852039166/",
                                 "http://[::ffff:169.254.169.254]/"])
def test_a_link_local_or_metadata_address_is_refused_everywhere(answers, organizer_client, api, url):
    page = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {**ENDPOINT, "base_url": url})
    assert page.status_code == 200 and b"a link-local address or a cloud metadata service is never" in page.content
    put = api.put(f"/api/campaigns/{answers.pk}/llm/", {"base_url": url, "model": "m"}, format="json")
    assert put.status_code == 400 and "link-local" in put.content.decode()
    assert "link-local" in rejected("llm_judge", "--campaign", "answers", "--base-url", url, "--model", "m")[0]
    assert not Endpoint.objects.exists()
    started = api.post(f"/api/campaigns/{answers.pk}/llm/judge/", {"base_url": url, "model": "m"}, format="json")
    assert started.status_code == 400 and not Job.objects.exists()


def test_an_endpoint_saved_before_the_check_is_refused_when_judging(answers):
    Endpoint.objects.create(campaign=answers, base_url="http://169.254.169.254/v1", model="m")
    with pytest.raises(InputError, match="link-local"):
        services.endpoint_settings(campaign=answers)


def test_loopback_and_private_addresses_stay_allowed():
    for url in ("http://127.0.0.1:11434/v1", "http://192.168.1.20:8000/v1", "http://172.16.0.2/v1", "ollama:11434"):
        assert base_url_normalised(url).startswith("http://")


def test_an_edit_from_one_campaign_leaves_anothers_prompt_alone(answers, organizer_client):
    other = Campaign.objects.get(pk=answers.pk)
    other.pk, other.name = None, "other"
    other.save()
    for campaign in (answers, other):
        organizer_client.post(f"/campaigns/{campaign.pk}/llm/", {**ENDPOINT, "base_url": "localhost:11434/v1"})
    first = Prompt.objects.get(name="umbrela-bing")
    assert set(Endpoint.objects.values_list("prompt", flat=True)) == {first.pk}  # pinned when saved
    page = organizer_client.get(f"/campaigns/{other.pk}/llm/").content.decode()
    assert "Prompts are shared by every campaign of their task" in page
    assert "Used by answers (v1), other (v1)." in page
    organizer_client.post(f"/campaigns/{answers.pk}/llm/", {"action": "prompt", "prompt": first.pk,
                                                            "text": "{query} {passage} ##final score: N"})
    assert Endpoint.objects.get(campaign=answers).prompt.version == 2
    assert Endpoint.objects.get(campaign=other).prompt == first
    assert services.endpoint_settings(campaign=other) and services._prompts(other, None)["answers"] == first


def test_a_prompt_longer_than_the_limit_is_refused_and_its_field_is_kept(answers, organizer_client):
    prompt = services.prompt_default(task="answers")
    text = "{query} {passage} " + "x" * services.PROMPT_MAX_CHARS
    page = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {"action": "prompt", "prompt": prompt.pk,
                                                                   "text": text})
    assert page.status_code == 200 and b"at most 20000 characters" in page.content
    assert Prompt.objects.filter(name=prompt.name).count() == 1
    with pytest.raises(InputError, match="more than 20,000"):
        services.prompt_edit(prompt=prompt, text=text)


def test_a_task_1_prompts_error_lists_only_its_fields(answers, organizer_client):
    prompt = services.prompt_default(task="answers")
    page = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {"action": "prompt", "prompt": prompt.pk,
                                                                   "text": "only {query}"}).content.decode()
    assert "the prompt must name {passage}, filled in with the topic and the item (fields: {query}, {passage})" in page
    assert "{formula}" not in page.split('id="llm-prompts"')[1].split("</p>")[0]


def test_the_judge_form_refuses_by_field_and_keeps_what_was_typed(answers, organizer_client):
    Endpoint.objects.create(campaign=answers, base_url=CLOSED, model="m")
    page = organizer_client.post(f"/campaigns/{answers.pk}/llm/judge/", {
        "topics": "A.1 NOPE.9", "limit_per_topic": "99999999999999999999999", "canaries": "1"})
    html = page.content.decode()
    assert page.status_code == 200 and not Job.objects.exists()
    assert "topic &#x27;NOPE.9&#x27; is not a topic of campaign &#x27;answers&#x27;" in html
    assert "Ensure this value is less than or equal to" in html
    assert 'value="A.1 NOPE.9"' in html and 'value="99999999999999999999999"' in html
    for name in ("topics", "limit_per_topic"):  # each error on its own field
        assert re.search(rf'class="field has-error">\s*<label for="id_{name}"', html), name


@pytest.mark.django_db(transaction=True)
def test_the_api_refuses_an_unknown_topic_and_says_the_jobs_real_status(answers, api):
    Endpoint.objects.create(campaign=answers, base_url=CLOSED, model="m", retries=0, timeout=5)
    refused = api.post(f"/api/campaigns/{answers.pk}/llm/judge/", {"topics": ["NOPE.9"]}, format="json")
    assert refused.status_code == 400 and "NOPE.9" in refused.content.decode() and not Job.objects.exists()
    # The tests run jobs in-process, as a host without a broker does: the job ran when its transaction committed.
    started = api.post(f"/api/campaigns/{answers.pk}/llm/judge/", {"topics": ["A.1"]}, format="json")
    assert started.status_code == 202
    assert started.json()["status"] == Job.objects.get().status == "failed"


def test_no_form_labels_a_hidden_field_and_the_campaign_page_leads_to_the_llm_page(answers, organizer_client):
    page = organizer_client.get(f"/campaigns/{answers.pk}/llm/").content.decode()
    assert 'type="hidden" name="prompt"' in page and ">Prompt</label>" not in page.split('id="llm-prompts"')[1]
    overview = organizer_client.get(f"/campaigns/{answers.pk}/").content.decode()
    assert f'href="/campaigns/{answers.pk}/llm/" id="llm-link"' in overview

"""Nuggets drafted by the LLM co-assessor with nuggetizer's creator and scorer prompts (docs/nuggets.md, "Drafting
with the LLM"), against the tests' own chat-completions server."""
import pytest
from django.core.management import call_command

from jobs.models import Job
from llm.models import Endpoint
from nuggets.drafting import creator_prompt, reply_list
from nuggets.models import Nugget, NuggetChange
from nuggets.services import bank as services
from tests.llm.server import Answer, ChatServer
from tests.nuggets.bank_world import answers_of

pytestmark = pytest.mark.django_db


def model_answer(prompt: str, n: int) -> Answer:
    if "Updated Nugget List:" in prompt:  # the creator: the list so far and two more
        return Answer('```python\n["The integral is one third", "The power rule applies", "Riemann sums agree"]\n```')
    if "label each of the 2 nuggets" in prompt:  # the scorer, of the two new ones
        return Answer('["vital", "Okay"]')
    return Answer("no idea")


def test_the_creator_prompt_is_nuggetizers_with_the_answers_numbered():
    prompt = creator_prompt(query="What is one third?", answers=["first", "second"], nuggets=["a"])
    assert prompt.startswith("You are NuggetizeLLM")
    assert "Context:\n[1] first\n[2] second\nSearch Query: What is one third?" in prompt
    assert "Initial Nugget List: ['a']\nInitial Nugget List Length: 1" in prompt
    assert "at most 30 nuggets" in prompt and prompt.endswith("Updated Nugget List:")


def test_a_reply_is_read_as_nuggetizer_reads_it():
    assert reply_list('```python\n["a", "b"]\n```') == ["a", "b"]
    assert reply_list("['a', 2]") is None and reply_list("a, b") is None


def test_draft_nuggets_makes_drafts_from_the_pooled_answers(answers, capsys):
    topic, _ = answers_of(answers)
    services.nugget_add(topic=topic, text="The integral is one third", importance="vital")
    with ChatServer(model_answer, logprobs="ignore") as server:
        Endpoint.objects.create(campaign=answers, base_url=server.url, model="drafter-1")
        call_command("draft_nuggets", "--campaign", "answers")
    out = capsys.readouterr().out
    assert "topic A.2: no pooled answer" in out and "Drafted 2 nuggets for 1 topics with drafter-1" in out
    creator = server.prompts[0]
    assert "[1] The integral of x squared" in creator and "[2] Riemann sums" in creator
    assert "Initial Nugget List: ['The integral is one third']" in creator
    drafts = list(Nugget.objects.filter(status=Nugget.Status.DRAFT).order_by("position"))
    assert [(d.text, d.importance, d.source, d.model) for d in drafts] == [
        ("The power rule applies", "vital", "drafted", "drafter-1"), ("Riemann sums agree", "okay", "drafted",
                                                                      "drafter-1")]
    assert NuggetChange.objects.filter(action="draft").count() == 2


def test_drafting_is_a_job_started_from_the_page(answers, organizer, client, jobs_run_on_commit):
    topic, _ = answers_of(answers)
    client.force_login(organizer)
    with ChatServer(model_answer, logprobs="ignore") as server:
        Endpoint.objects.create(campaign=answers, base_url=server.url, model="drafter-1")
        response = client.post(f"/campaigns/{answers.pk}/nuggets/", {"action": "draft", "topics": "A.1"})
    job = Job.objects.get(kind="nugget_draft")
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.pk}/"
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.problems
    assert job.result["drafted"] == 3  # the bank was empty: every nugget of the list is new
    assert Nugget.objects.filter(topic=topic, status="draft").count() == 3


def test_drafting_without_an_endpoint_or_with_an_unknown_topic_is_refused(answers, organizer, client):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{answers.pk}/nuggets/", {"action": "draft"})
    assert response.status_code == 400 and "has no LLM endpoint" in response.content.decode()
    Endpoint.objects.create(campaign=answers, base_url="http://127.0.0.1:9/v1", model="m")
    response = client.post(f"/campaigns/{answers.pk}/nuggets/", {"action": "draft", "topics": "Z.9"})
    assert response.status_code == 400 and "Z.9" in response.content.decode()
    assert not Job.objects.exists()

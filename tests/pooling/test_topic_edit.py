"""Editing a topic's text (issue 25): the page linked from the campaign page and PATCH of the API."""
import pytest
from rest_framework.test import APIClient

from pooling.models import Topic
from tests.pooling.undo_data import token_client

pytestmark = pytest.mark.django_db


def _url(campaign, topic_id: str) -> str:
    return f"/campaigns/{campaign.pk}/topics/{campaign.topics.get(topic_id=topic_id).pk}/edit/"


def test_the_campaign_page_links_each_topics_edit(client, organizer, answers):
    client.force_login(organizer)
    html = client.get(f"/campaigns/{answers.pk}/").content.decode()
    assert f'href="{_url(answers, "A.2")}" aria-label="Edit topic A.2"' in html


def test_the_page_shows_the_topic_and_saves_its_text(client, organizer, answers):
    client.force_login(organizer)
    url = _url(answers, "A.2")
    assert "Edit topic A.2" in client.get(url).content.decode()
    response = client.post(url, {"title": "Sums of $x^2$", "question": "Why?", "description": "d", "narrative": "n",
                                 "prelude": ""}, follow=True)
    assert response.redirect_chain == [(f"/campaigns/{answers.pk}/", 302)]
    assert "Topic A.2 was saved." in response.content.decode()
    topic = answers.topics.get(topic_id="A.2")
    assert (topic.title, topic.question, topic.description, topic.narrative) == ("Sums of $x^2$", "Why?", "d", "n")


def test_the_page_answers_400_on_bad_input_and_changes_nothing(client, organizer, answers):
    client.force_login(organizer)
    before = answers.topics.get(topic_id="A.2").title
    response = client.post(_url(answers, "A.2"), {"title": "a\x00b"})
    assert response.status_code == 400 and answers.topics.get(topic_id="A.2").title == before


def test_assessors_may_not_edit_topics_and_another_campaigns_topic_is_not_found(client, ada, organizer, answers,
                                                                                  formulas):
    client.force_login(ada)
    assert client.get(_url(answers, "A.2")).status_code == 403
    assert client.post(_url(answers, "A.2"), {"title": "x"}).status_code == 403
    client.force_login(organizer)
    other = formulas.topics.get().pk
    assert client.post(f"/campaigns/{answers.pk}/topics/{other}/edit/", {"title": "x"}).status_code == 404
    assert answers.topics.get(topic_id="A.2").title != "x"


def test_the_api_patches_a_topics_text(organizer, answers):
    response = token_client(organizer).patch(f"/api/campaigns/{answers.pk}/topics/A.2/",
                                             {"narrative": "relevant: a proof"}, format="json")
    assert response.status_code == 200 and response.json()["narrative"] == "relevant: a proof"
    topic = answers.topics.get(topic_id="A.2")
    assert topic.narrative == "relevant: a proof" and topic.topic_id == "A.2"


def test_the_api_answers_400_on_bad_input(organizer, answers):
    response = token_client(organizer).patch(f"/api/campaigns/{answers.pk}/topics/A.2/", {"title": None},
                                             format="json")
    assert response.status_code == 400
    assert Topic.objects.get(campaign=answers, topic_id="A.2").title is not None


def test_the_api_refuses_assessors_and_answers_404_for_an_unknown_topic(ada, organizer, answers, formulas):
    assert token_client(ada).patch(f"/api/campaigns/{answers.pk}/topics/A.2/", {"title": "x"},
                                   format="json").status_code == 403
    assert APIClient().patch(f"/api/campaigns/{answers.pk}/topics/A.2/", {"title": "x"},
                             format="json").status_code == 401
    client = token_client(organizer)
    assert client.patch(f"/api/campaigns/{answers.pk}/topics/A.9/", {"title": "x"}, format="json").status_code == 404
    assert client.patch(f"/api/campaigns/{answers.pk}/topics/B.1/", {"title": "x"}, format="json").status_code == 404
    assert not Topic.objects.filter(title="x").exists()


def test_a_topic_keeps_some_text_to_judge_against(client, organizer, answers):
    # Emptied of its title, question and description, a topic would leave its assessors nothing to judge against.
    client.force_login(organizer)
    empty = {"title": "", "question": "", "description": "", "narrative": "", "prelude": ""}
    response = client.post(_url(answers, "A.2"), empty)
    assert response.status_code == 400 and "would have no text left" in response.content.decode()
    assert answers.topics.get(topic_id="A.2").title == "Euler"
    assert client.post(_url(answers, "A.2"), {**empty, "description": "Euler's identity"}).status_code == 302
    refused = token_client(organizer).patch(f"/api/campaigns/{answers.pk}/topics/A.2/",
                                            {"description": " "}, format="json")
    assert refused.status_code == 400 and "would have no text left" in str(refused.json())

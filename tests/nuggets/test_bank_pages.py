"""The nugget bank pages through the test client (docs/nuggets.md, "Nugget banks"): organizers only, every change a
form, bad input a 400 with the reason, an id not of the topic a 404, never a 500."""
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from nuggets.models import Nugget, NuggetChange
from nuggets.selectors import bank_nuggets
from nuggets.services import bank as services
from tests.nuggets.bank_world import answers_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(answers, organizer, client):
    topic, runs = answers_of(answers)
    client.force_login(organizer)
    return {"campaign": answers, "topic": topic, "answers": runs, "client": client,
            "url": f"/campaigns/{answers.pk}/nuggets/topics/{topic.pk}/"}


def texts(topic):
    return [n.text for n in bank_nuggets(topic=topic)]


def test_the_bank_page_shows_the_topic_its_answers_and_sentences(world):
    response = world["client"].get(world["url"])
    body = response.content.decode()
    assert response.status_code == 200
    assert "How do I integrate $x^2$?" in body and "The power rule gives it at once." in body
    assert "Run alpha" in body and "Not frozen yet" in body


def test_an_assessor_is_forbidden_and_anonymous_sent_to_log_in(world, assessor_user):
    from django.test import Client

    anonymous = Client()
    assert anonymous.get(world["url"]).status_code == 302
    assessor = Client()
    assessor.force_login(assessor_user)
    assert assessor.get(world["url"]).status_code == 403
    assert assessor.post(world["url"], {"action": "add", "text": "x", "importance": "okay"}).status_code == 403
    assert assessor.get(f"/campaigns/{world['campaign'].pk}/nuggets/").status_code == 403
    assert not Nugget.objects.exists()


def test_add_edit_move_importance_merge_delete_through_the_page(world, organizer):
    client, url, topic = world["client"], world["url"], world["topic"]
    for text in ("one third", "power rule", "riemann"):
        assert client.post(url, {"action": "add", "text": text, "importance": "okay"}).status_code == 302
    a, b, c = bank_nuggets(topic=topic)
    assert client.post(url, {"action": "edit", "nugget": a.pk, "text": "It is one third"}).status_code == 302
    assert client.post(url, {"action": "importance", "nugget": a.pk, "importance": "vital"}).status_code == 302
    assert client.post(url, {"action": "move", "nugget": c.pk, "position": 0}).status_code == 302
    assert texts(topic) == ["riemann", "It is one third", "power rule"]
    assert client.post(url, {"action": "merge", "keep": a.pk, "merge": [b.pk], "text": ""}).status_code == 302
    assert client.post(url, {"action": "delete", "nugget": c.pk}).status_code == 302
    assert texts(topic) == ["It is one third"]
    assert set(NuggetChange.objects.values_list("user", flat=True)) == {organizer.pk}
    body = client.get(url).content.decode()
    assert "olga" in body and "merge" in body and "Mark okay" in body


def test_selecting_from_an_answer_makes_a_selected_nugget(world):
    alpha = world["answers"][0]
    response = world["client"].post(world["url"], {"action": "select", "answer": alpha.pk,
                                                   "text": "The power rule gives it", "importance": "vital"})
    assert response.status_code == 302
    [nugget] = bank_nuggets(topic=world["topic"])
    assert (nugget.source, nugget.answer_id, nugget.importance) == ("selected", alpha.pk, "vital")


def test_freezing_says_so_and_a_later_change_says_changed_since(world):
    client, url = world["client"], world["url"]
    client.post(url, {"action": "add", "text": "one third", "importance": "vital"})
    client.post(url, {"action": "freeze"})
    assert "Frozen as v1" in client.get(url).content.decode()
    client.post(url, {"action": "add", "text": "power rule", "importance": "okay"})
    body = client.get(url).content.decode()
    assert "Frozen as v1" in body and "changed since" in body


def test_drafts_are_accepted_or_rejected_on_the_page(world):
    keep, drop = services.drafts_add(topic=world["topic"], nuggets=[("draft one", "vital"), ("draft two", "okay")],
                                     model="m")
    client, url = world["client"], world["url"]
    assert "draft one" in client.get(url).content.decode()
    assert client.post(url, {"action": "accept", "nugget": keep.pk}).status_code == 302
    assert client.post(url, {"action": "reject", "nugget": drop.pk}).status_code == 302
    assert texts(world["topic"]) == ["draft one"]
    assert client.post(url, {"action": "accept", "nugget": drop.pk}).status_code == 400


@pytest.mark.parametrize("data", [
    {"action": "add", "text": "", "importance": "okay"},
    {"action": "add", "text": "x", "importance": "failed"},
    {"action": "add", "text": "x" * 3000, "importance": "okay"},
    {"action": "edit", "nugget": "abc", "text": "x"},
    {"action": "move", "nugget": "1", "position": "-1"},
    {"action": "merge", "keep": "1", "merge": ["999999"]},
    {"action": "select", "answer": "x", "text": "y", "importance": "okay"},
    {"action": "nothing"},
    {},
    {"action": "add", "text": "nul \x00 here", "importance": "okay"},
])
def test_bad_forms_are_a_400_with_the_reason(world, data):
    response = world["client"].post(world["url"], data)
    assert response.status_code == 400
    assert "Nothing was changed" in response.content.decode()
    assert not Nugget.objects.exists()


def test_ids_not_of_the_topic_are_a_404(world):
    client, url, campaign = world["client"], world["url"], world["campaign"]
    other = campaign.topics.get(topic_id="A.2")
    elsewhere = services.nugget_add(topic=other, text="of A.2")
    assert client.post(url, {"action": "delete", "nugget": elsewhere.pk}).status_code == 404
    assert client.post(url, {"action": "edit", "nugget": 987654, "text": "x"}).status_code == 404
    assert client.post(url, {"action": "select", "answer": 987654, "text": "x",
                             "importance": "okay"}).status_code == 404
    assert client.get(f"/campaigns/{campaign.pk}/nuggets/topics/987654/").status_code == 404
    assert client.get("/campaigns/987654/nuggets/").status_code == 404


def test_the_campaign_page_lists_banks_imports_and_exports(world):
    client, campaign = world["client"], world["campaign"]
    services.nugget_add(topic=world["topic"], text="one third", importance="vital")
    services.drafts_add(topic=world["topic"], nuggets=[("a draft", "okay")], model="m")
    page = f"/campaigns/{campaign.pk}/nuggets/"
    body = client.get(page).content.decode()
    assert 'data-topic="A.1"' in body and "not frozen" in body
    upload = SimpleUploadedFile("banks.jsonl", json.dumps(
        {"query": "Euler", "qid": "A.2", "nuggets": [{"text": "e", "importance": "vital"}]}).encode() + b"\n")
    assert client.post(page, {"action": "import", "file": upload}).status_code == 302
    bad = SimpleUploadedFile("bad.jsonl", b'{"query": "?", "qid": "Z.9", "nuggets": []}\n')
    response = client.post(page, {"action": "import", "file": bad})
    assert response.status_code == 400 and "Z.9" in response.content.decode()
    assert client.post(page, {"action": "import"}).status_code == 400
    download = client.get(f"/campaigns/{campaign.pk}/nuggets/export/")
    assert download.status_code == 200 and "attachment" in download["Content-Disposition"]
    exported = [json.loads(line) for line in download.content.decode().splitlines()]
    assert [line["qid"] for line in exported] == ["A.1", "A.2"]


def test_the_api_exports_and_imports(world, organizer, assessor_user):
    campaign = world["campaign"]
    api = APIClient()
    api.force_authenticate(organizer)
    path = f"/api/campaigns/{campaign.pk}/nuggets/"
    upload = SimpleUploadedFile("banks.jsonl", json.dumps(
        {"query": "Euler", "qid": "A.2", "nuggets": [{"text": "e", "importance": "vital"}]}).encode() + b"\n")
    created = api.post(path, {"file": upload}, format="multipart")
    assert created.status_code == 201 and created.json() == {"topics": 1, "nuggets": 1}
    bad = SimpleUploadedFile("bad.jsonl", b"{oops\n")
    refused = api.post(path, {"file": bad}, format="multipart")
    assert refused.status_code == 400 and "line 1" in refused.json()["problems"][0]
    got = api.get(path)
    assert got.status_code == 200 and json.loads(got.content)["qid"] == "A.2"
    assert api.get(path, {"assignments": "true"}).content == b""
    other = APIClient()
    other.force_authenticate(assessor_user)
    assert other.get(path).status_code == 403

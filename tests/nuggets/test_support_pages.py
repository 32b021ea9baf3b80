"""Support judging's pages and API through the test client: the assessor's list and judging page (nuggets and
citations), the JSON answers the judging outbox expects, 404 and 400 rather than 500, the organizer's page and the
API (docs/nuggets.md, "Support judging")."""
import pytest
from django.urls import reverse

from nuggets.models import CitationJudgment, SupportAssignment, SupportJudgment
from nuggets.services.support import support_assign, support_submit
from tests.nuggets.support_world import make_world

pytestmark = pytest.mark.django_db
KEY = "abcdef0123456789"


@pytest.fixture
def world(answers):
    return make_world(answers)


@pytest.fixture
def official(world, ada):
    return support_assign(campaign=world.campaign, topic=world.topic, assessor=ada)[0]


def judge_url(assignment, number=0):
    return reverse("support:judge", args=[assignment.pk, number])


def form(world, answer, *given, **extra):
    data = {"answer": str(answer.pk)}
    for nugget, label in zip(world.nuggets, given, strict=False):
        data[f"label-{nugget.pk}"] = label
    data.update(extra)
    return data


def test_my_support_assignments_lists_them_with_a_way_on(ada_client, official):
    page = ada_client.get(reverse("support:mine"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "A.1" in text and "0 of 2 answers" in text and reverse("support:continue", args=[official.pk]) in text
    assert ada_client.get(reverse("support:continue", args=[official.pk]))["Location"] == judge_url(official)


def test_the_page_shows_the_answer_the_nuggets_and_the_keys(ada_client, world, official):
    text = ada_client.get(judge_url(official)).content.decode()
    assert "The power rule gives it at once." in text
    for nugget in world.nuggets:
        assert nugget.text in text
    assert 'data-key="1"' in text and "<kbd>s</kbd>" in text and 'class="judge-bar support-bar" data-user=' in text
    assert "judging/js/judge-outbox.js" in text and 'id="sync-conflicts"' in text


def test_the_outbox_gets_json_and_a_resent_key_is_answered_once(ada_client, world, official):
    answer = world.answers[0]
    data = form(world, answer, "support", "partial_support", "not_support", submit_key=KEY)
    first = ada_client.post(judge_url(official), data, HTTP_ACCEPT="application/json")
    assert first.status_code == 200
    assert first.json() == {"saved": True, "answer": answer.pk, "created": 3, "revised": 0, "unchanged": 0,
                                 "complete": True, "revision": 3, "repeated": False}
    again = ada_client.post(judge_url(official), data, HTTP_ACCEPT="application/json")
    assert again.json()["repeated"] is True and again.json()["revision"] == 3
    assert SupportJudgment.objects.count() == 3
    page = ada_client.get(judge_url(official)).content.decode()
    assert 'value="partial_support" data-key="2" data-alt="p" checked' in page


def test_a_plain_form_goes_to_the_next_answer_and_back_shows_the_labels(ada_client, world, official):
    answer = world.answers[0]
    response = ada_client.post(judge_url(official), form(world, answer, "support", "support", "support"))
    assert response.status_code == 302 and response["Location"] == judge_url(official, 1)
    last = ada_client.post(judge_url(official, 1), form(world, world.answers[1], "support", "support", "support"))
    assert last["Location"] == reverse("support:mine")


@pytest.mark.parametrize("data, message", [
    ({"label-NUGGET": "maybe"}, "label &#x27;maybe&#x27; is not one of"),
    ({"label-NUGGET": "support", "span-NUGGET": "not in the answer"}, "the span is not a part"),
    ({"submit_key": "no"}, "the submit key is not valid"),
])
def test_bad_labels_are_a_400_page_saying_why(ada_client, world, official, data, message):
    nugget = world.nuggets[0].pk
    posted = {"answer": str(world.answers[0].pk)} | {k.replace("NUGGET", str(nugget)): v for k, v in data.items()}
    response = ada_client.post(judge_url(official), posted)
    assert response.status_code == 400 and message in response.content.decode()
    json = ada_client.post(judge_url(official), posted, HTTP_ACCEPT="application/json")
    assert json.status_code == 400 and json.json()["saved"] is False
    assert not SupportJudgment.objects.exists()


def test_a_submit_is_of_the_answer_it_names_wherever_that_answer_now_stands(ada_client, world, official, answers):
    """A page shown before the answers were numbered anew (a run ingested meanwhile) sends the answer it showed:
    its labels are that answer's; an answer of another topic is refused."""
    response = ada_client.post(judge_url(official), form(world, world.answers[1], "support"),
                               HTTP_ACCEPT="application/json")
    assert response.status_code == 200 and response.json()["saved"] is True
    assert set(SupportJudgment.objects.values_list("answer_id", flat=True)) == {world.answers[1].pk}
    other = make_world(answers, "A.2")
    refused = ada_client.post(judge_url(official), form(world, other.answers[0], "support"))
    assert refused.status_code == 400 and "is not one of this topic" in refused.content.decode()


def test_unknown_or_anothers_assignment_and_answer_are_404(client, ada_client, world, official, bob):
    assert ada_client.get(judge_url(official, 2)).status_code == 404
    assert ada_client.get(reverse("support:judge", args=[987654, 0])).status_code == 404
    assert ada_client.post(reverse("support:continue", args=[official.pk])).status_code == 405
    client.force_login(bob)
    assert client.get(judge_url(official)).status_code == 404
    assert client.post(judge_url(official), form(world, world.answers[0], "support")).status_code == 404


def test_a_withdrawn_assignment_is_read_only(ada_client, world, official):
    support_submit(assignment=official, answer=world.answers[0], labels={world.nuggets[0].pk: ("support", "")})
    official.withdrawn_at = official.created_at
    official.save()
    text = ada_client.get(judge_url(official)).content.decode()
    assert 'id="read-only"' in text and "judge-outbox.js" not in text and 'id="submit"' not in text
    response = ada_client.post(judge_url(official), form(world, world.answers[0], "not_support"))
    assert response.status_code == 400
    assert SupportJudgment.objects.get().label == "support"


def test_the_citation_page_shows_the_cited_posts_sanitized(ada_client, world, ada):
    assignment = support_assign(campaign=world.campaign, topic=world.topic, assessor=ada, task="citations")[0]
    text = ada_client.get(judge_url(assignment)).content.decode()
    assert "by the power rule" in text  # post 10's body
    assert "window.__pwned = 2" not in text and "onerror" not in text  # post 11's planted HTML is gone
    data = {"answer": str(world.answers[0].pk), "cite-0-0": "full", "cite-1-0": "partial", "cite-1-1": "none"}
    response = ada_client.post(judge_url(assignment), data, HTTP_ACCEPT="application/json")
    assert response.json()["complete"] is True
    assert {(j.sentence.position, j.citation, j.label) for j in CitationJudgment.objects.all()} == {
        (0, "10", "full"), (1, "10", "partial"), (1, "11", "none")}


def test_the_organizer_assigns_withdraws_and_sees_kappa(client, organizer, world, official, ada, bob):
    client.force_login(organizer)
    url = reverse("support:assignments", args=[world.campaign.pk])
    response = client.post(url, {"action": "assign", "topic": "A.1", "assessor": "bob", "task": "nuggets",
                                 "kind": "dual"})
    assert response.status_code == 302
    dual = SupportAssignment.objects.get(assessor=bob)
    for assignment, user in ((official, ada), (dual, bob)):
        for answer in world.answers:
            support_submit(assignment=assignment, answer=answer, user=user,
                           labels={n.pk: ("support" if i else "not_support", "") for i, n in
                                   enumerate(world.nuggets)})
    page = client.get(url).content.decode()
    assert 'id="support-agreement"' in page and "1.0000 over 6" in page  # the same labels
    refused = client.post(url, {"action": "assign", "topic": "A.1", "assessor": "bob", "task": "nuggets",
                                "kind": "official"})
    assert refused.status_code == 400 and "ada holds its official" in refused.content.decode()
    assert client.post(url, {"action": "withdraw", "assignment": "x"}).status_code == 404
    assert client.post(url, {"action": "withdraw", "assignment": str(dual.pk)}).status_code == 302
    dual.refresh_from_db()
    assert dual.withdrawn_at is not None


def test_the_api_submits_labels_and_lists_assignments(ada_api, world, official, organizer, client):
    body = {"assignment": official.pk, "answer": world.answers[0].pk, "key": KEY,
            "labels": [{"nugget": world.nuggets[0].pk, "label": "support", "span": "one third"}]}
    url = reverse("api-support-judgments")
    first = ada_api.post(url, body, content_type="application/json")
    assert first.status_code == 201 and first.json()["created"] == 1
    assert ada_api.post(url, body, content_type="application/json").json()["repeated"] is True
    bad = ada_api.post(url, body | {"key": "", "labels": [{"nugget": 1, "label": "support"}]},
                       content_type="application/json")
    assert bad.status_code == 400 and "is not in version 1" in bad.json()["problems"][0]
    assert ada_api.post(url, body | {"answer": 987654}, content_type="application/json").status_code == 404
    assert ada_api.get(reverse("api-support-assignments", args=[world.campaign.pk])).status_code == 403
    client.defaults.pop("HTTP_AUTHORIZATION")
    client.force_login(organizer)
    rows = client.get(reverse("api-support-assignments", args=[world.campaign.pk])).json()
    assert (rows[0]["assessor"], rows[0]["done"], rows[0]["bank_version"]) == ("ada", 0, 1)


def test_the_organizer_page_counts_every_assignments_progress_in_the_same_queries(
        client, organizer, world, official, ada, bob):
    """One assignment or four (both topics, both tasks, a dual): the page's queries do not grow with them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(organizer)
    url = reverse("support:assignments", args=[world.campaign.pk])
    with CaptureQueriesContext(connection) as one:
        assert client.get(url).status_code == 200
    other = make_world(world.campaign, "A.2")
    support_assign(campaign=world.campaign, topic=other.topic, assessor=ada)
    support_assign(campaign=world.campaign, topic=world.topic, assessor=ada, task="citations")
    support_assign(campaign=world.campaign, topic=world.topic, assessor=bob, kind="dual")
    with CaptureQueriesContext(connection) as four:
        page = client.get(url)
    assert page.status_code == 200 and page.content.decode().count("A.2") >= 1
    assert len(four.captured_queries) <= len(one.captured_queries) + 2  # the dual's agreement reads its labels

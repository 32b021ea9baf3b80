"""Assigning work at scale (issue 22.8): balanced assignment (N assessors per topic, round-robin, least-loaded
first, holdings counted) on the Assignments page and in the API, the topic grid's search, and training rounds
through the API."""
import pytest
from rest_framework.authtoken.models import Token

from agreement.models import GoldJudgment, TrainingRound
from ir.problems import InputError
from judging import services
from judging.models import Assignment
from tests.factories import CampaignFactory, TopicFactory, UserFactory

TOPICS = ["A.1", "A.2", "A.3", "A.4", "A.5"]


@pytest.fixture
def campaign(db):
    campaign = CampaignFactory(name="scale")
    for n, topic_id in enumerate(TOPICS):
        TopicFactory(campaign=campaign, topic_id=topic_id, position=n,
                     title="Euler's identity" if topic_id == "A.4" else f"Integral number {n}")
    return campaign


@pytest.fixture
def people(db):
    return [UserFactory(username=name) for name in ("ada", "bob", "cleo")]


def _rows(campaign, kind="official"):
    return sorted(Assignment.objects.filter(campaign=campaign, kind=kind, withdrawn_at__isnull=True)
                  .values_list("topic__topic_id", "assessor__username"))


# --- the service


def test_balanced_official_assignment_goes_round_robin_from_the_least_loaded(campaign, people):
    ada, bob, cleo = people
    services.assignments_create(campaign=campaign, assessors=[ada], topic_ids=["A.1"])
    result = services.assignments_balance(campaign=campaign, assessors=people, topic_ids=TOPICS, per_topic=1)
    # By hand: ada holds A.1 (load 1); A.2 bob, A.3 cleo (load 0 first), A.4 ada (all at 1, ada's turn), A.5 bob.
    assert _rows(campaign) == [("A.1", "ada"), ("A.2", "bob"), ("A.3", "cleo"), ("A.4", "ada"), ("A.5", "bob")]
    assert len(result.created) == 4
    assert [(a.topic.topic_id, a.assessor.username) for a in result.existing] == [("A.1", "ada")]


def test_topics_are_balanced_in_the_order_given(campaign, people):
    services.assignments_balance(campaign=campaign, assessors=people[:2], topic_ids=["A.3", "A.1", "A.2"],
                                 per_topic=1)
    assert _rows(campaign) == [("A.1", "bob"), ("A.2", "ada"), ("A.3", "ada")]


def test_balancing_twice_duplicates_nothing_and_counts_what_is_held(campaign, people):
    ada, bob, cleo = people
    services.assignments_create(campaign=campaign, assessors=[ada, bob], topic_ids=["A.1"], kind="training")
    services.assignments_balance(campaign=campaign, assessors=people, topic_ids=TOPICS, per_topic=2,
                                 kind="training")
    rows = _rows(campaign, "training")
    assert len(rows) == len(set(rows)) == 10
    assert {t: sum(1 for r in rows if r[0] == t) for t in TOPICS} == dict.fromkeys(TOPICS, 2)
    assert sorted(sum(1 for r in rows if r[1] == u.username) for u in people) == [3, 3, 4]
    again = services.assignments_balance(campaign=campaign, assessors=people, topic_ids=TOPICS, per_topic=2,
                                         kind="training")
    assert again.created == [] and len(again.existing) == 10
    assert _rows(campaign, "training") == rows


def test_balanced_dual_assignment_skips_each_topics_official_assessor(campaign, people):
    ada, bob, cleo = people
    services.assignments_create(campaign=campaign, assessors=[ada], topic_ids=["A.1", "A.2"])
    services.assignments_create(campaign=campaign, assessors=[bob], topic_ids=["A.3"])
    services.assignments_balance(campaign=campaign, assessors=[ada, bob], topic_ids=["A.1", "A.2", "A.3"],
                                 per_topic=1, kind="dual")
    assert _rows(campaign, "dual") == [("A.1", "bob"), ("A.2", "bob"), ("A.3", "ada")]


@pytest.mark.parametrize(("per_topic", "kind", "topics", "message"), [
    (2, "official", TOPICS, "a topic has one official assessor"),
    (4, "training", TOPICS, "4 assessors per topic, but 3 chosen"),
    (0, "training", TOPICS, "assessors per topic is a number from 1"),
    (1, "official", ["A.1", "Z.9"], "topic 'Z.9' is not a topic of campaign 'scale'"),
    (1, "dual", ["A.1"], "topic A.1 has no official assessor yet"),
])
def test_a_refused_balance_says_why_and_assigns_nothing(campaign, people, per_topic, kind, topics, message):
    with pytest.raises(InputError) as refused:
        services.assignments_balance(campaign=campaign, assessors=people, topic_ids=topics, per_topic=per_topic,
                                     kind=kind)
    assert message in " ".join(refused.value.messages())
    assert not Assignment.objects.exists()


def test_a_topic_that_cannot_reach_n_from_the_chosen_assessors_is_refused_whole(campaign, people):
    ada, bob, cleo = people
    services.assignments_create(campaign=campaign, assessors=[ada], topic_ids=["A.1"])
    services.assignments_create(campaign=campaign, assessors=[bob], topic_ids=["A.2"])
    # ada judges A.1 officially: of ada and bob only bob can be its dual assessor, and only ada A.2's.
    with pytest.raises(InputError) as refused:
        services.assignments_balance(campaign=campaign, assessors=[ada, bob], topic_ids=["A.1", "A.2"],
                                     per_topic=2, kind="dual")
    assert "topic A.1 would have 1 dual assessor(s) of 2" in " ".join(refused.value.messages())
    assert _rows(campaign, "dual") == []


# --- the page


def test_the_assignments_page_balances_the_ticked_topics_over_the_ticked_assessors(client, organizer, campaign,
                                                                                    people):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{campaign.pk}/assignments/", {
        "action": "assign", "assessors": [u.pk for u in people], "topics": TOPICS, "kind": "official",
        "per_topic": "1"}, follow=True)
    assert "5 assignments created." in response.content.decode()
    assert _rows(campaign) == [("A.1", "ada"), ("A.2", "bob"), ("A.3", "cleo"), ("A.4", "ada"), ("A.5", "bob")]


def test_a_refused_balance_on_the_page_shows_why_and_assigns_nothing(client, organizer, campaign, people):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{campaign.pk}/assignments/", {
        "action": "assign", "assessors": [u.pk for u in people], "topics": TOPICS, "kind": "official",
        "per_topic": "2"})
    assert response.status_code == 200
    assert "a topic has one official assessor" in response.content.decode()
    assert not Assignment.objects.exists()


def test_the_search_box_filters_the_topic_grid_without_javascript(client, organizer, campaign, people):
    services.assignments_create(campaign=campaign, assessors=[people[2]], topic_ids=["A.2"])
    client.force_login(organizer)
    url = f"/campaigns/{campaign.pk}/assignments/"
    page = client.get(url, {"q": "EULER"}).content.decode()
    assert 'value="A.4"' in page and 'value="A.1"' not in page and "1 of 5 topics" in page
    # Every word must match, in the id, the title or the holders' names.
    page = client.get(url, {"q": "integral cleo"}).content.decode()
    assert 'value="A.2"' in page and 'value="A.3"' not in page
    page = client.get(url, {"q": "nothing like it"}).content.decode()
    assert "No topic matches the search." in page
    assert all(f'value="{t}"' in client.get(url).content.decode() for t in TOPICS)


def test_assigning_from_a_searched_grid_keeps_the_search(client, organizer, campaign, people):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{campaign.pk}/assignments/?q=euler", {
        "action": "assign", "assessors": [people[0].pk], "topics": ["A.4"], "kind": "official"})
    assert response.status_code == 302 and response.url.endswith("?q=euler")
    assert _rows(campaign) == [("A.4", "ada")]


# --- the API


@pytest.fixture
def organizer_api(client, organizer):
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {Token.objects.create(user=organizer).key}"
    return client


def test_api_assigns_a_topic_then_balances_the_rest(organizer_api, campaign, people):
    url = f"/api/campaigns/{campaign.pk}/assignments/"
    one = organizer_api.post(url, {"assessors": ["ada"], "topics": ["A.1"]}, content_type="application/json")
    assert one.status_code == 201
    assert [(r["topic"], r["assessor"], r["kind"]) for r in one.json()["created"]] == [("A.1", "ada", "official")]
    many = organizer_api.post(url, {"assessors": ["ada", "bob", "cleo"], "topics": TOPICS, "per_topic": 1},
                              content_type="application/json")
    assert many.status_code == 201
    assert [(r["topic"], r["assessor"]) for r in many.json()["created"]] == [
        ("A.2", "bob"), ("A.3", "cleo"), ("A.4", "ada"), ("A.5", "bob")]
    assert [r["topic"] for r in many.json()["existing"]] == ["A.1"]
    again = organizer_api.post(url, {"assessors": ["ada", "bob", "cleo"], "topics": TOPICS, "per_topic": 1},
                               content_type="application/json")
    assert again.status_code == 200 and again.json()["created"] == []


@pytest.mark.parametrize(("body", "problem"), [
    ({"assessors": ["ada"], "topics": ["Z.9"]}, "topic 'Z.9' is not a topic of campaign 'scale'"),
    ({"assessors": ["nobody"], "topics": ["A.1"]}, "no account named 'nobody'"),
    ({"assessors": ["ada", "bob"], "topics": TOPICS, "per_topic": 2}, "a topic has one official assessor"),
    ({"assessors": ["ada"], "topics": ["A.1"], "kind": "dual"}, "has no official assessor yet"),
    ({"assessors": ["ada"], "topics": ["A.1"], "kind": "official", "round": 2}, "a round is given for training"),
    ({"assessors": ["ada"], "topics": ["A.1"], "kind": "characterisation"}, "is made with a sample size"),
    ({"assessors": ["ada"], "topics": ["A.1"], "kind": "characterisation", "per_topic": 1}, "not balanced"),
])
def test_api_refuses_bad_assignments_with_400_and_assigns_nothing(organizer_api, campaign, people, body, problem):
    answer = organizer_api.post(f"/api/campaigns/{campaign.pk}/assignments/", body, content_type="application/json")
    assert answer.status_code == 400
    assert problem in " ".join(answer.json()["problems"])
    assert not Assignment.objects.exists()


def test_api_refuses_a_field_out_of_bounds_with_400(organizer_api, campaign, people):
    answer = organizer_api.post(f"/api/campaigns/{campaign.pk}/assignments/",
                                {"assessors": ["ada"], "topics": ["A.1"], "per_topic": 0},
                                content_type="application/json")
    assert answer.status_code == 400 and "per_topic" in answer.json()
    assert not Assignment.objects.exists()


def test_api_assigning_and_training_rounds_are_for_organizers_only(client, campaign, people):
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {Token.objects.create(user=people[0]).key}"
    body = {"assessors": ["ada"], "topics": ["A.1"]}
    for url in (f"/api/campaigns/{campaign.pk}/assignments/", f"/api/campaigns/{campaign.pk}/training-rounds/"):
        assert client.post(url, body, content_type="application/json").status_code == 403, url
    assert client.get(f"/api/campaigns/{campaign.pk}/training-rounds/").status_code == 403
    assert not Assignment.objects.exists() and not TrainingRound.objects.exists()


def test_api_creates_a_training_round_with_gold_qrels_and_lists_it(organizer_api, campaign, people, tmp_path):
    gold = tmp_path / "gold.qrels"
    gold.write_text("A.1\t0\t10\t3\nA.1\t0\t11\t0\nA.5\t0\t12\t2\n")
    url = f"/api/campaigns/{campaign.pk}/training-rounds/"
    with gold.open("rb") as file:
        answer = organizer_api.post(url, {"topics": ["A.1", "A.2"], "assessors": ["ada", "bob"], "gold": file})
    assert answer.status_code == 201
    body = answer.json()
    assert (body["number"], body["gold"], body["gold_other_topics"]) == (1, 2, 1)
    assert sorted((r["topic"], r["assessor"], r["round"]) for r in body["created"]) == [
        ("A.1", "ada", 1), ("A.1", "bob", 1), ("A.2", "ada", 1), ("A.2", "bob", 1)]
    assert GoldJudgment.objects.count() == 2
    second = organizer_api.post(url, {"topics": ["A.3"], "assessors": ["cleo"]}, content_type="application/json")
    assert second.status_code == 201 and second.json()["number"] == 2
    listing = organizer_api.get(url).json()
    assert [(r["number"], r["topics"], r["assessors"], r["gold"]) for r in listing] == [
        (1, ["A.1", "A.2"], ["ada", "bob"], 2), (2, ["A.3"], ["cleo"], 0)]


def test_api_refuses_a_training_round_that_exists_with_400(organizer_api, campaign, people):
    url = f"/api/campaigns/{campaign.pk}/training-rounds/"
    body = {"topics": ["A.1"], "assessors": ["ada"], "number": 1}
    assert organizer_api.post(url, body, content_type="application/json").status_code == 201
    again = organizer_api.post(url, {**body, "assessors": ["bob"]}, content_type="application/json")
    assert again.status_code == 400 and "round 1 of campaign 'scale' exists already" in again.json()["problems"][0]
    assert _rows(TrainingRound.objects.get().campaign, "training") == [("A.1", "ada")]



def test_the_topic_grid_names_each_holder_once_with_the_kinds_held():
    # ada holds topic 1 officially and for characterisation: one name with both kinds, not "ada, bob, ada"; a
    # withdrawn assignment holds nothing.
    from django.utils import timezone

    from judging.views import topic_holders
    ada, bob, cleo = (UserFactory.build(username=name) for name in ("ada", "bob", "cleo"))
    held = [Assignment(topic_id=1, assessor=ada), Assignment(topic_id=1, assessor=bob, kind="dual"),
            Assignment(topic_id=1, assessor=ada, kind="characterisation"),
            Assignment(topic_id=1, assessor=cleo, kind="dual", withdrawn_at=timezone.now()),
            Assignment(topic_id=2, assessor=cleo)]
    assert topic_holders(held) == {1: ["ada (official, characterisation)", "bob (dual)"], 2: ["cleo"]}

"""The live judging order and budgets (issue 27) and the LLM's filter mode (issue 26): the next item of the page, of
Continue, of the API and of the fetch-ahead is the campaign policy's choice given that assignment's judgments."""
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from ir.pools.adaptive import next_items
from ir.pools.order import display_order
from judging import selectors
from judging.models import Assignment
from llm.models import Mode
from pooling.models import Campaign, PoolItem
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    LlmEndpointFactory,
    LlmGradeFactory,
    LlmPromptFactory,
    PoolItemFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

# Two runs with nothing in common: a1..a4 and b1..b4 at ranks 1..4. After a relevant judgment of a run's item, both
# move-to-front and the bandit take that run's next item; after a not relevant one, the other run's top item.
RUNS = {"a": ["a1", "a2", "a3", "a4"], "b": ["b1", "b2", "b3", "b4"]}


def hand_made(order="move-to-front", *, warm_up=0, min_depth=0, runs=None, **settings):
    """A campaign without a collection (every grade allowed) whose topic's pool is `runs`' items, at the positions
    of the random display order."""
    runs = runs or RUNS
    campaign = CampaignFactory(collection=None, judging_order=order, warm_up=warm_up, min_depth=min_depth, seed=7,
                               **settings)
    topic = TopicFactory(campaign=campaign, topic_id="A.1")
    provenance: dict[str, list] = {}
    for run, items in runs.items():
        for rank, item in enumerate(items, start=1):
            provenance.setdefault(item, []).append([run, rank])
    for position, item in enumerate(display_order(provenance, seed=campaign.seed, topic_id="A.1")):
        PoolItemFactory(topic=topic, item_id=item, position=position, provenance=provenance[item])
    return campaign, topic, provenance


def run_of(item_id):
    return item_id[0]


def judge(client, assignment, item_id, grade):
    """Submits a grade through the judging page; the page it redirects to (the next item's), or None."""
    position = PoolItem.objects.get(topic=assignment.topic, item_id=item_id).position
    response = client.post(f"/assess/assignments/{assignment.pk}/items/{position}/",
                           {"item_id": item_id, "grade": grade, "comment": "unsure" if grade in ("SF", "DK") else ""})
    assert response.status_code == 302, response.content[:500]
    return item_at(assignment, response.url)


def item_at(assignment, url):
    prefix = f"/assess/assignments/{assignment.pk}/items/"
    if not url.startswith(prefix):
        return None
    return PoolItem.objects.get(topic=assignment.topic, position=int(url[len(prefix):].strip("/"))).item_id


def first(client, assignment):
    response = client.get(f"/assess/assignments/{assignment.pk}/")
    return item_at(assignment, response.url)


# Worked by hand: x is the run the seeded order puts first, y the other. Move-to-front stays on a run while it finds
# relevant items and sends it to the back on a not relevant one. The bandit takes the run of highest posterior mean
# (1 + relevant) / (2 + judged), ties to the seeded first: x 2/3 after x1 relevant, 2/4 = y's 1/2 after x2 not
# relevant (a tie: x), 2/5 after x3 not relevant (y).
@pytest.mark.parametrize(("order", "expected"), [
    ("move-to-front", ["x1", "x2", "y1", "x3"]),
    ("bandit", ["x1", "x2", "x3", "y1"]),
])
def test_after_a_relevant_judgment_the_page_goes_on_down_the_same_run_and_after_a_not_relevant_one_it_leaves(
        client, order, expected):
    campaign, topic, _ = hand_made(order)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    seen = [first(client, a)]
    assert seen[0] in ("a1", "b1")
    for grade in ("3", "0", "0"):
        seen.append(judge(client, a, seen[-1], grade))
    x, y = run_of(seen[0]), "b" if run_of(seen[0]) == "a" else "a"
    assert seen == [item.replace("x", x).replace("y", y) for item in expected]


def test_each_assessor_of_a_topic_gets_the_order_of_their_own_judgments(client):
    campaign, topic, _ = hand_made("bandit")
    ada = AssignmentFactory(topic=topic)
    bob = AssignmentFactory(topic=topic, kind=Assignment.Kind.DUAL)
    client.force_login(ada.assessor)
    top = first(client, ada)
    ada_next = judge(client, ada, top, "3")
    client.force_login(bob.assessor)
    assert first(client, bob) == top                 # the same start (nothing judged yet)...
    bob_next = judge(client, bob, top, "0")
    assert {ada_next, bob_next} == {f"{run_of(top)}2", "b1" if run_of(top) == "a" else "a1"}  # ...their own ways


def test_a_revision_changes_the_next_choice(client):
    campaign, topic, _ = hand_made("move-to-front")
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = first(client, a)
    judge(client, a, top, "0")
    other = "b1" if run_of(top) == "a" else "a1"
    assert selectors.next_item(assignment=a).item_id == other
    judge(client, a, top, "2")                       # revised: relevant at the campaign's level (2)
    assert selectors.next_item(assignment=a).item_id == f"{run_of(top)}2"


def test_system_failure_and_do_not_know_count_as_not_relevant(client):
    campaign, topic, _ = hand_made("move-to-front")
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = first(client, a)
    assert judge(client, a, top, "SF") == ("b1" if run_of(top) == "a" else "a1")


def test_a_grade_below_the_relevance_level_is_not_relevant(client):
    campaign, topic, _ = hand_made("move-to-front", relevance_level=3)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = first(client, a)
    assert judge(client, a, top, "2") == ("b1" if run_of(top) == "a" else "a1")


def test_the_warm_up_items_come_in_the_random_order_whatever_their_grades(client):
    campaign, topic, provenance = hand_made("move-to-front", warm_up=3)
    shown = list(PoolItem.objects.filter(topic=topic).order_by("position").values_list("item_id", flat=True))
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    seen = [first(client, a)]
    for grade in ("3", "0", "3"):
        seen.append(judge(client, a, seen[-1], grade))
    assert seen[:3] == shown[:3]                    # the display order, as the random order shows it
    judged = {item: grade == "3" for item, grade in zip(seen[:3], ("3", "0", "3"), strict=True)}
    expected = next_items("move-to-front", {k: [tuple(p) for p in v] for k, v in provenance.items()}, judged,
                          seed=campaign.seed, warm_up=3, topic_id="A.1")
    assert seen[3] == expected[0]


def test_the_minimum_depth_takes_every_runs_top_items_first(client):
    runs = {"a": ["a1", "a2", "a3"], "b": ["b1", "b2", "b3"], "c": ["c1", "c2", "c3"]}
    campaign, topic, _ = hand_made("move-to-front", min_depth=1, runs=runs)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    seen = [first(client, a)]
    for _ in range(2):
        seen.append(judge(client, a, seen[-1], "3"))  # relevant, yet every run's top item comes first
    assert sorted(seen) == ["a1", "b1", "c1"]
    assert judge(client, a, seen[-1], "3") == f"{run_of(seen[0])}2"  # then down the first run, relevant so far


def test_skipped_items_come_last_in_an_adaptive_order(client):
    campaign, topic, _ = hand_made("move-to-front", runs={"a": ["a1", "a2"], "b": ["b1"]})
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = first(client, a)
    position = PoolItem.objects.get(topic=topic, item_id=top).position
    after_skip = item_at(a, client.post(f"/assess/assignments/{a.pk}/items/{position}/skip/").url)
    assert after_skip != top
    rest = [after_skip]
    while (item := judge(client, a, rest[-1], "0")) is not None and item not in rest:
        rest.append(item)
        if item == top:
            break
    assert rest[-1] == top and len(rest) == 3        # the skipped one after every other


def test_next_unjudged_moves_on_from_the_item_shown_and_comes_back_to_it_last(client):
    campaign, topic, _ = hand_made("move-to-front", runs={"a": ["a1"], "b": ["b1"]})
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = first(client, a)
    position = PoolItem.objects.get(topic=topic, item_id=top).position
    other = item_at(a, client.get(f"/assess/assignments/{a.pk}/?after={position}").url)
    assert other != top
    judge(client, a, other, "0")
    assert item_at(a, client.get(f"/assess/assignments/{a.pk}/?after={position}").url) == top


def test_an_item_no_run_retrieved_is_still_judged_before_the_topic_is_done(client):
    campaign, topic, _ = hand_made("bandit", runs={"a": ["a1"]})
    PoolItemFactory(topic=topic, item_id="z", position=5, provenance=[])
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    assert first(client, a) == "a1"
    assert judge(client, a, "a1", "0") == "z"


def test_the_api_next_is_the_policys_choice(client):
    campaign, topic, _ = hand_made("bandit")
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = client.get(f"/api/assignments/{a.pk}/next/").json()["item_id"]
    response = client.post("/api/judgments/", {"assignment": a.pk, "item_id": top, "grades": [{"grade": "3"}]},
                           content_type="application/json")
    assert response.status_code == 201, response.content
    assert client.get(f"/api/assignments/{a.pk}/next/").json()["item_id"] == f"{run_of(top)}2"


def test_the_fetch_ahead_holds_the_next_choices_and_the_one_for_a_relevant_judgment(client):
    campaign, topic, _ = hand_made("move-to-front")
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = first(client, a)
    position = PoolItem.objects.get(topic=topic, item_id=top).position
    body = client.get(f"/assess/assignments/{a.pk}/items/{position}/ahead/").json()
    ahead = [PoolItem.objects.get(topic=topic, position=e["position"]).item_id for e in body["items"]]
    other = "b" if run_of(top) == "a" else "a"
    assert ahead == [f"{other}1", f"{other}2", f"{other}3"]   # the item shown not relevant: the other run
    relevant = PoolItem.objects.get(topic=topic, position=body["if_relevant"]["position"]).item_id
    assert relevant == f"{run_of(top)}2" and "html" in body["if_relevant"]
    assert sorted(body["relevant_grades"]) == ["2", "3"]
    for entry in [*body["items"], body["if_relevant"]]:     # never why, nor a run or a rank
        assert "run" not in json.dumps({k: v for k, v in entry.items() if k != "html"})
    judge(client, a, top, "3")                                 # judged: the list is the policy's anew
    body = client.get(f"/assess/assignments/{a.pk}/items/{position}/ahead/").json()
    assert [PoolItem.objects.get(topic=topic, position=e["position"]).item_id for e in body["items"]][0] == \
        f"{run_of(top)}2"


def test_the_random_order_fetches_no_alternative(client, answers, ada):
    from tests.judging.fixtures import assign
    a = assign(answers, ada, "A.1")
    client.force_login(ada)
    item = PoolItem.objects.filter(topic=a.topic).order_by("position").first()
    body = client.get(f"/assess/assignments/{a.pk}/items/{item.position}/ahead/").json()
    assert len(body["items"]) == 2 and "if_relevant" not in body


# -- the LLM's filter mode


def _filtered(campaign, topic, zero, model="local-model"):
    prompt = LlmPromptFactory()
    LlmEndpointFactory(campaign=campaign, mode=Mode.FILTER, model=model)
    for item_id in zero:
        LlmGradeFactory(topic=topic, item_id=item_id, grade=0, prompt=prompt, model=model)


def test_filter_mode_sends_the_items_the_llm_graded_0_to_the_end_of_the_random_order(client):
    campaign, topic, _ = hand_made("random")
    shown = list(PoolItem.objects.filter(topic=topic).order_by("position").values_list("item_id", flat=True))
    zero = {shown[0], shown[3]}
    _filtered(campaign, topic, zero)
    LlmGradeFactory(topic=topic, item_id=shown[1], grade=2, model="local-model")  # graded relevant: stays
    LlmGradeFactory(topic=topic, item_id=shown[2], grade=0, model="another-model")  # another model's: no matter
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    seen = [first(client, a)]
    while (item := judge(client, a, seen[-1], "0")) is not None:
        seen.append(item)
    assert seen == [i for i in shown if i not in zero] + [i for i in shown if i in zero]


def test_filter_mode_puts_the_llms_0_last_in_an_adaptive_order_too_and_blind_mode_does_not(client):
    campaign, topic, _ = hand_made("move-to-front")
    _filtered(campaign, topic, {"a1", "b1"})
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    seen = [first(client, a)]
    while (item := judge(client, a, seen[-1], "0")) is not None:
        seen.append(item)
    assert set(seen[-2:]) == {"a1", "b1"} and len(seen) == 8
    campaign.llm_endpoint.mode = Mode.BLIND
    campaign.llm_endpoint.save()
    fresh = AssignmentFactory(topic=topic, kind=Assignment.Kind.DUAL)
    assert selectors.next_item(assignment=fresh).item_id in ("a1", "b1")


def test_when_the_llm_graded_every_item_0_the_policy_still_moves_on(client):
    campaign, topic, _ = hand_made("move-to-front")
    _filtered(campaign, topic, [item for items in RUNS.values() for item in items])
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = first(client, a)
    assert judge(client, a, top, "0") == ("b1" if run_of(top) == "a" else "a1")


# -- budgets


def test_a_spent_topic_budget_says_so_and_closes_the_assignment(client):
    campaign, topic, _ = hand_made("bandit", topic_budget=2)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    second = judge(client, a, first(client, a), "3")
    response = client.post(f"/assess/assignments/{a.pk}/items/"
                           f"{PoolItem.objects.get(topic=topic, item_id=second).position}/",
                           {"item_id": second, "grade": "0"}, follow=True)
    assert "judging budget (2 items) is spent" in response.content.decode()
    a.refresh_from_db()
    assert a.closed_at is not None and a.read_only
    assert client.get(f"/api/assignments/{a.pk}/next/").status_code == 204


def test_the_fetch_ahead_stops_at_the_budget(client):
    campaign, topic, _ = hand_made("random", topic_budget=2)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = first(client, a)
    position = PoolItem.objects.get(topic=topic, item_id=top).position
    assert len(client.get(f"/assess/assignments/{a.pk}/items/{position}/ahead/").json()["items"]) == 1
    nxt = judge(client, a, top, "0")
    position = PoolItem.objects.get(topic=topic, item_id=nxt).position
    assert client.get(f"/assess/assignments/{a.pk}/items/{position}/ahead/").json()["items"] == []


def test_the_api_closes_an_assignment_whose_budget_is_spent(client):
    campaign, topic, _ = hand_made("random", topic_budget=1)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    item = client.get(f"/api/assignments/{a.pk}/next/").json()["item_id"]
    client.post("/api/judgments/", {"assignment": a.pk, "item_id": item, "grades": [{"grade": "1"}]},
                content_type="application/json")
    assert client.get(f"/api/assignments/{a.pk}/next/").status_code == 204
    assert client.get(f"/api/assignments/{a.pk}/").json()["closed"] is True


@override_settings(POOL_PLAN_SECONDS_PER_JUDGMENT=60.0)
def test_an_hours_budget_is_spread_over_the_topics_evenly_or_by_the_relevant_found():
    from judging import budgets
    campaign = CampaignFactory(collection=None, hours_budget=0.1, budget_spread="even")   # 6 minutes: 6 items
    topics = [TopicFactory(campaign=campaign, topic_id=f"A.{n}") for n in (1, 2, 3)]
    for topic, size in zip(topics, (10, 10, 1), strict=True):
        for n in range(size):
            PoolItemFactory(topic=topic, item_id=f"{topic.topic_id}-{n}", position=n)
    assert {t.topic_id: budgets.topic_budgets(campaign)[t.pk] for t in topics} == {"A.1": 3, "A.2": 2, "A.3": 1}
    ada = AssignmentFactory(topic=topics[1])
    from tests.factories import ItemVisitFactory, JudgmentFactory
    for n in range(4):
        JudgmentFactory(assignment=ada, item_id=f"A.2-{n}", grade="3")
        ItemVisitFactory(assignment=ada, item_id=f"A.2-{n}", completed_at=ada.created_at)
    campaign.budget_spread = "found"
    campaign.save()
    spread = budgets.topic_budgets(campaign)
    assert {t.topic_id: spread[t.pk] for t in topics} == {"A.1": 1, "A.2": 4, "A.3": 1}  # 5 found of 6 parts
    assert budgets.assignment_budget(assignment=ada).spent


def test_items_a_budget_leaves_unjudged_stay_out_of_the_qrels(client, tmp_path):
    campaign, topic, _ = hand_made("bandit", topic_budget=2)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    top = first(client, a)
    second = judge(client, a, top, "3")
    assert judge(client, a, second, "0") is None
    out = tmp_path / "qrels"
    call_command("export_qrels", "--campaign", campaign.name, "--min-relevant", "0", "-o", str(out))
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert sorted((r[2], r[3]) for r in rows) == sorted([(top, "3"), (second, "0")])


# -- settings


def test_create_and_edit_campaign_set_the_order_its_guards_and_the_budgets(capsys):
    call_command("create_campaign", "live", "--task", "answers", "--order", "bandit", "--warm-up", "3",
                 "--min-depth", "2", "--topic-budget", "100")
    campaign = Campaign.objects.get(name="live")
    assert (campaign.judging_order, campaign.warm_up, campaign.min_depth, campaign.topic_budget) == (
        "bandit", 3, 2, 100)
    assert "judging order bandit (warm-up 3, minimum depth 2), budget 100 items per topic" in capsys.readouterr().out
    call_command("edit_campaign", "live", "--order", "move-to-front", "--topic-budget", "0", "--hours-budget", "40",
                 "--budget-spread", "found")
    campaign.refresh_from_db()
    assert (campaign.judging_order, campaign.topic_budget, campaign.hours_budget, campaign.budget_spread) == (
        "move-to-front", None, 40.0, "found")


def test_the_order_may_change_while_judging_and_a_bad_value_changes_nothing(client):
    campaign, topic, _ = hand_made("random")
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    judge(client, a, first(client, a), "3")
    call_command("edit_campaign", campaign.name, "--order", "bandit")
    campaign.refresh_from_db()
    assert campaign.judging_order == "bandit"
    with pytest.raises(CommandError) as exit_:
        call_command("edit_campaign", campaign.name, "--warm-up", "-1", "--order", "random")
    assert exit_.value.returncode == 2
    campaign.refresh_from_db()
    assert campaign.judging_order == "bandit" and campaign.warm_up == 0


def test_the_settings_page_and_the_api_change_the_order_and_the_budgets(client):
    organizer = UserFactory(organizer=True)
    campaign, topic, _ = hand_made("random", topic_budget=5)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{campaign.pk}/settings/").content.decode()
    assert 'name="judging_order"' in page and 'name="topic_budget"' in page
    data = {"name": campaign.name, "primary_depth": 45, "alternate_depth": 20, "seed": 7, "max_depth": 1000,
            "relevance_level": 2, "judging_order": "bandit", "warm_up": 2, "min_depth": 1, "topic_budget": "",
            "hours_budget": "", "budget_spread": "even", "collection": ""}
    response = client.post(f"/campaigns/{campaign.pk}/settings/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign.refresh_from_db()
    assert (campaign.judging_order, campaign.warm_up, campaign.topic_budget) == ("bandit", 2, None)
    patched = client.patch(f"/api/campaigns/{campaign.pk}/", {"judging_order": "move-to-front", "topic_budget": 30},
                           content_type="application/json")
    assert patched.status_code == 200 and patched.json()["campaign"]["topic_budget"] == 30
    assert client.patch(f"/api/campaigns/{campaign.pk}/", {"topic_budget": None},
                        content_type="application/json").json()["campaign"]["topic_budget"] is None
    refused = client.patch(f"/api/campaigns/{campaign.pk}/", {"judging_order": "greedy"},
                           content_type="application/json")
    assert refused.status_code == 400
    refused = client.patch(f"/api/campaigns/{campaign.pk}/", {"hours_budget": 0.001},
                           content_type="application/json")
    assert refused.status_code == 400 and "0.01" in refused.content.decode()
    campaign.refresh_from_db()
    assert campaign.judging_order == "move-to-front" and campaign.hours_budget is None
    with override_settings(POOL_PLAN_SECONDS_PER_JUDGMENT=60.0):
        client.patch(f"/api/campaigns/{campaign.pk}/", {"hours_budget": 0.05}, content_type="application/json")
        page = client.get(f"/campaigns/{campaign.pk}/settings/").content.decode()
    assert "buy 3 items at 60.0 s per judgment (assumed" in page and "A.1: 3" in page

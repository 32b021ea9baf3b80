"""The `uncertain` judging order (docs/pooling.md, "Judging order"): the next item is the one whose stored calibrated
LLM grade has the smallest margin between its two most probable grades (ir/uncertain.py), after the warm-up and
within every run's minimum depth first; without a calibration it is the random order."""
import pytest

from ir.pools.order import display_order
from ir.uncertain import margin, uncertain_items
from judging import selectors
from llm import services as llm_services
from pooling.models import PoolItem
from tests.factories import AssignmentFactory
from tests.judging.test_live_order import first, hand_made, judge

pytestmark = pytest.mark.django_db

# Margins: b3 0.0 (the smallest), a4 0.05, a2 0.1; a1 and b1 (the rank-1 items) 0.6 and 0.3.
CALIBRATED = {"a1": [0.1, 0.1, 0.1, 0.7], "a2": [0.4, 0.5, 0.05, 0.05], "a3": [0.9, 0.05, 0.05, 0.0],
              "a4": [0.3, 0.35, 0.2, 0.15], "b1": [0.5, 0.2, 0.1, 0.2], "b2": [0.8, 0.1, 0.05, 0.05],
              "b3": [0.45, 0.45, 0.05, 0.05], "b4": [0.7, 0.1, 0.1, 0.1]}


def calibrated(campaign, probabilities=CALIBRATED):
    llm_services.calibration_store(campaign=campaign, model="judge-7b", stamp="", rule="bias-aware", humans=0,
                                   ece_before=None, ece_after=None, bins={}, probabilities={"A.1": probabilities})


def test_the_next_item_has_the_smallest_margin_and_then_the_next_smallest(client):
    campaign, topic, pool = hand_made("uncertain")
    calibrated(campaign)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    assert first(client, a) == "b3" == uncertain_items(pool, {}, CALIBRATED, seed=campaign.seed, warm_up=0,
                                                      topic_id="A.1")[0]
    assert judge(client, a, "b3", "0") == "a4"
    assert judge(client, a, "a4", "3") == "a2"
    shown = PoolItem.objects.get(topic=topic, item_id="a2").position  # the fetch-ahead: a2 shown, then these
    assert [item.item_id for item in selectors.items_ahead(assignment=a, position=shown, count=2)] == ["b1", "a1"]


def test_equal_margins_go_by_the_random_display_order(client):
    campaign, topic, pool = hand_made("uncertain")
    calibrated(campaign, dict.fromkeys(CALIBRATED, [0.25, 0.25, 0.25, 0.25]))
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    assert first(client, a) == display_order(pool, seed=campaign.seed, topic_id="A.1")[0]


def test_the_warm_up_comes_in_random_order_and_then_the_smallest_margin(client):
    campaign, topic, pool = hand_made("uncertain", warm_up=2)
    calibrated(campaign)
    random = display_order(pool, seed=campaign.seed, topic_id="A.1")
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    seen = [first(client, a)]
    seen.append(judge(client, a, seen[-1], "0"))
    seen.append(judge(client, a, seen[-1], "0"))
    assert seen[:2] == random[:2]
    left = {item: p for item, p in CALIBRATED.items() if item not in seen[:2]}
    assert margin(left[seen[2]]) == min(margin(p) for p in left.values())


def test_every_runs_minimum_depth_comes_first_in_order_of_margin(client):
    campaign, topic, _ = hand_made("uncertain", min_depth=1)
    calibrated(campaign)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    assert first(client, a) == "b1"              # of the rank-1 items, the smaller margin, before b3's 0.0
    assert judge(client, a, "b1", "0") == "a1"
    assert judge(client, a, "a1", "0") == "b3"


def test_without_a_calibration_the_order_is_random(client):
    campaign, topic, pool = hand_made("uncertain")
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    random = display_order(pool, seed=campaign.seed, topic_id="A.1")
    assert first(client, a) == random[0]
    assert judge(client, a, random[0], "3") == random[1]

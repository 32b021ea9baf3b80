"""The live judging order in headless Chromium (issue 27): the item swapped in on Enter is move-to-front's choice
given the grade just given, at once (the fetch-ahead holds the choice for a relevant grade beside the others), and
the list is replaced after each judgment."""
import re

import pytest
from playwright.sync_api import expect

from ir.pools.order import display_order
from judging.models import Judgment
from pooling.models import Campaign
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, PoolItemFactory, TopicFactory
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Two runs over the hand-made collection's answers (tests/judging/fixtures.py), nothing in common.
RUNS = {"a": ["10", "11", "12"], "b": ["20", "30", "40"]}


@pytest.fixture
def hand_made(collection):
    campaign = CampaignFactory(name="live", task=Campaign.Task.ANSWERS, collection=collection, seed=3,
                               judging_order="move-to-front", warm_up=0)
    topic = TopicFactory(campaign=campaign, topic_id="A.9", position=0, title="Integrals $\\int x$",
                         question="<p>Which of these help with $\\int_0^1 x^2$?</p>")
    provenance = {item: [[run, rank]] for run, items in RUNS.items() for rank, item in enumerate(items, start=1)}
    for position, item in enumerate(display_order(provenance, seed=campaign.seed, topic_id="A.9")):
        PoolItemFactory(topic=topic, item_id=item, position=position, provenance=provenance[item])
    return campaign


def shown(page):
    return page.locator("#item-pane .item-view:not(.parked)")


def judge(page, key: str, then: str) -> None:
    """Grades the item shown with `key` once judge.js has bound its keys, presses Enter, and waits for `then`."""
    expect(page.locator("#item-pane .item-view:not(.parked)[data-bound='1']")).to_have_count(1, timeout=20000)
    page.keyboard.press(key)
    page.keyboard.press("Enter")
    expect(shown(page)).to_have_attribute("data-item-id", then, timeout=20000)


def waiting(page, item_id: str) -> None:
    """`item_id` is fetched ahead, unseen: the list for the item shown has come."""
    expect(page.locator(f"#item-pane .item-view.parked[data-item-id='{item_id}']")).to_have_count(1, timeout=20000)


def test_the_item_after_enter_is_move_to_fronts_choice_for_the_grade_given(page, live_server, hand_made, ada):
    a = assign(hand_made, ada, "A.9")
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/")
    first = shown(page).get_attribute("data-item-id")
    x = "a" if first in RUNS["a"] else "b"
    y = "b" if x == "a" else "a"
    assert first == RUNS[x][0]                               # the top of the run the seeded queue puts first
    waiting(page, RUNS[x][1])                                # what comes after a relevant grade...
    waiting(page, RUNS[y][0])                                # ...and after a not relevant one
    judge(page, "3", then=RUNS[x][1])                        # High: the same run goes on
    waiting(page, RUNS[x][2])                                # the list asked again once the judgment was stored
    judge(page, "2", then=RUNS[x][2])                        # Medium is relevant at level 2: on again
    waiting(page, RUNS[y][0])
    judge(page, "0", then=RUNS[y][0])                        # not relevant: the other run
    expect(page).to_have_url(re.compile(rf"/assess/assignments/{a.pk}/items/\d+/$"))
    html = page.content()
    assert "move-to-front" not in html and "provenance" not in html   # the page never says why
    for _ in range(200):
        if Judgment.objects.filter(assignment=a).count() == 3:
            break
        page.wait_for_timeout(50)
    assert dict(Judgment.objects.filter(assignment=a).values_list("item_id", "grade")) == {
        RUNS[x][0]: "3", RUNS[x][1]: "2", RUNS[x][2]: "0"}


def test_the_settings_page_sets_the_order_and_shows_the_hours_budget_spread(page, live_server, hand_made, organizer,
                                                                             screenshot, settings):
    settings.POOL_PLAN_SECONDS_PER_JUDGMENT = 60.0
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{hand_made.pk}/settings/")
    page.select_option("#id_judging_order", "bandit")
    page.fill("#id_warm_up", "2")
    page.fill("#id_hours_budget", "0.05")
    page.select_option("#id_budget_spread", "found")
    with page.expect_navigation():
        page.click("button:has-text('Save settings')")
    hand_made.refresh_from_db()
    assert (hand_made.judging_order, hand_made.warm_up, hand_made.hours_budget, hand_made.budget_spread) == (
        "bandit", 2, 0.05, "found")
    page.goto(f"{live_server.url}/campaigns/{hand_made.pk}/settings/")
    expect(page.locator("#hours-spread")).to_contain_text("buy 3 items at 60.0 s per judgment")
    expect(page.locator("#hours-spread .topic-budgets")).to_have_text("A.9: 3")
    page.set_viewport_size({"width": 1280, "height": 1060})  # the order's fields and the hours' spread below them
    page.evaluate("document.getElementById('id_judging_order').closest('.field').scrollIntoView({block: 'start'})")
    screenshot(page, "campaign-settings-order.png")

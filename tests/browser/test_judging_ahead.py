"""Judging as the assessor feels it (issue 16), in headless Chromium: the next items are fetched ahead and swapped in
on Enter; judgments made with the network down are kept in the browser and stored once each when it is back, also
across a reload; Back, the browser's back button and reload show the right item; an item's first-shown time is when
it was shown; a stale item is replaced; and without JavaScript the plain form still works."""
import re
import time
from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect

from judging import services as assessor_services
from judging.models import ItemVisit, Judgment, JudgmentRevision, SubmitReceipt
from pooling import services as pooling_services
from pooling.models import Campaign, PoolItem
from tests.browser.test_judging import sent
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, TopicFactory
from tests.judging.fixtures import assign
from tests.pooling.run_files import ingest, task1_lines

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SUBMIT = re.compile(r".*/items/\d+/$")   # the judging page's own URL: its submits go there


@pytest.fixture
def six(collection, tmp_path):
    """Topic A.9 pools six answers of the hand-made collection (tests/judging/fixtures.py)."""
    campaign = CampaignFactory(name="six", task=Campaign.Task.ANSWERS, collection=collection, primary_depth=6,
                               alternate_depth=6)
    TopicFactory(campaign=campaign, topic_id="A.9", position=0, title="Integrals $\\int x$",
                 question="<p>Which of these help with $\\int_0^1 x^2$?</p>")
    ingest(campaign, tmp_path, "r1", task1_lines("A.9", ["10", "11", "12", "20", "30", "40"], "r1"))
    pooling_services.pool_build(campaign=campaign, judged_items={})
    return campaign


def pool(a) -> list[str]:
    return list(PoolItem.objects.filter(topic=a.topic).order_by("position").values_list("item_id", flat=True))


def open_first(page, live_server, a, fetched=3):
    """The assignment's first item, once the items after it (three, or `fetched`) wait in the page, unseen."""
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/")
    page.wait_for_selector(".topic-pane mjx-container", timeout=20000)
    expect(page.locator("#item-pane .item-view.parked")).to_have_count(fetched, timeout=20000)


def on_item(page, live_server, a, position, item_id) -> None:
    """The item at `position` is the one on screen, in the address bar and the title."""
    expect(page).to_have_url(f"{live_server.url}/assess/assignments/{a.pk}/items/{position}/")
    expect(page.locator("#item-pane .item-view:not(.parked)")).to_have_attribute("data-item-id", item_id)
    expect(page.locator("#item-label")).to_have_text(re.compile(rf"^item {position + 1} of "))
    assert page.title().startswith(f"A.9: item {position + 1} ")


def judge(page, key: str) -> tuple[float, float]:
    """Grades the item shown with `key`, presses Enter, waits for another item; the times before and after."""
    before = time.time()
    url = page.url
    page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda now: now != url)
    return before, time.time()


def first_shown(a, item_id) -> float:
    return ItemVisit.objects.get(assignment=a, item_id=item_id).first_shown_at.timestamp()


def test_items_judged_with_the_network_down_are_stored_once_each_when_it_is_back(page, live_server, six, ada):
    a = assign(six, ada, "A.9")
    order = pool(a)
    open_first(page, live_server, a)
    page.context.set_offline(True)
    times = [judge(page, key) for key in "310"]
    on_item(page, live_server, a, 3, order[3])                       # three judged offline, the fourth shown
    expect(page.locator("#sync-status")).to_have_text(
        "Saved in this browser (3), offline: sent when the network is back")
    assert not Judgment.objects.exists()
    page.wait_for_timeout(1000)                                      # the network stays down a moment
    back_online = time.time()
    page.context.set_offline(False)
    sent(page)
    expect(page.locator("#sync-status")).to_have_text("Saved")
    assert dict(Judgment.objects.filter(assignment=a).values_list("item_id", "grade")) == {
        order[0]: "3", order[1]: "1", order[2]: "0"}
    assert JudgmentRevision.objects.count() == 3 and SubmitReceipt.objects.count() == 3
    assert "3 of 6 judged" in page.inner_text("#progress")
    # Items shown offline are recorded as shown when they were, not when the network came back.
    for item_id, (before, after) in zip(order[1:4], times, strict=True):
        assert before <= first_shown(a, item_id) <= after + 0.5 < back_online, item_id


def test_past_the_items_fetched_offline_the_page_goes_on_by_itself_when_the_network_is_back(page, live_server,
                                                                                            answers, ada):
    a = assign(answers, ada, "A.1")                                  # three items: two fetched after the first
    open_first(page, live_server, a, fetched=2)
    page.context.set_offline(True)
    judge(page, "3")
    judge(page, "2")
    page.keyboard.press("1")
    page.keyboard.press("Enter")                                      # nothing fetched after the third
    expect(page.locator("#judge-form .item-sync")).to_contain_text("the next one opens when the network is back")
    assert not Judgment.objects.exists()
    with page.expect_navigation(url=f"{live_server.url}/assess/"):
        page.context.set_offline(False)
    assert "every item is judged" in page.inner_text("main")
    assert sorted(Judgment.objects.filter(assignment=a).values_list("grade", flat=True)) == ["1", "2", "3"]


def test_a_reload_while_a_submit_waits_sends_it_and_it_is_stored_once(page, live_server, six, ada):
    a = assign(six, ada, "A.9")
    order = pool(a)
    open_first(page, live_server, a)
    attempts = []

    def lose_answers(route):
        """The server takes the first submit but its answer never reaches the page; then it cannot be reached."""
        if route.request.method != "POST":
            route.continue_()
            return
        attempts.append(route.request.url)
        if len(attempts) == 1:
            route.fetch()
        route.abort()

    page.route(SUBMIT, lose_answers)
    judge(page, "2")
    expect(page.locator("#sync-status")).to_contain_text("Saved in this browser (1), not sent yet")
    assert Judgment.objects.filter(assignment=a).count() == 1       # the server has it; the page does not know
    page.unroute(SUBMIT)
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and SUBMIT.match(r.url) else None)
    page.reload()
    on_item(page, live_server, a, 1, order[1])
    sent(page)
    assert len(posts) == 1                                            # sent once by the reopened page
    assert list(Judgment.objects.filter(assignment=a).values_list("item_id", "grade", "revision")) == [
        (order[0], "2", 1)]
    assert JudgmentRevision.objects.count() == 1 and SubmitReceipt.objects.count() == 1


def test_back_the_back_button_and_reload_show_the_right_item_after_swaps(page, live_server, six, ada):
    a = assign(six, ada, "A.9")
    order = pool(a)
    open_first(page, live_server, a)
    judge(page, "3")
    judge(page, "2")
    on_item(page, live_server, a, 2, order[2])
    page.keyboard.press("b")                                          # Back: the item judged just before
    on_item(page, live_server, a, 1, order[1])
    expect(page.locator("#judge-form .saved")).to_have_text("Saved: Medium.")
    assert page.locator("#judge-form input[value='2']").is_checked()
    page.go_back()                                                    # the browser's back button
    on_item(page, live_server, a, 2, order[2])
    page.go_back()
    page.go_back()
    on_item(page, live_server, a, 0, order[0])
    expect(page.locator("#judge-form .saved")).to_have_text("Saved: High.")
    page.go_forward()
    on_item(page, live_server, a, 1, order[1])
    sent(page)
    page.reload()
    on_item(page, live_server, a, 1, order[1])
    assert page.locator("#judge-form input[value='2']").is_checked()
    assert "Saved: Medium" in page.inner_text("#judge-form .saved")
    # Revised after Back: one more revision, and on to the item not judged yet.
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    on_item(page, live_server, a, 2, order[2])
    sent(page)
    assert Judgment.objects.get(assignment=a, item_id=order[1]).grade == "1"
    assert JudgmentRevision.objects.filter(judgment__item_id=order[1]).count() == 2


def test_an_items_first_shown_time_is_when_it_was_shown_not_when_it_was_fetched(page, live_server, six, ada):
    a = assign(six, ada, "A.9")
    order = pool(a)
    open_first(page, live_server, a)
    fetched = time.time()
    assert list(ItemVisit.objects.filter(assignment=a).values_list("item_id", flat=True)) == [order[0]]
    before, after = judge(page, "3")
    sent(page)
    assert fetched < before <= first_shown(a, order[1]) <= after + 0.5
    assert not ItemVisit.objects.filter(assignment=a, item_id=order[2]).exists()   # fetched, never shown
    before, after = judge(page, "2")
    sent(page)
    assert before <= first_shown(a, order[2]) <= after + 0.5
    judgment = Judgment.objects.get(assignment=a, item_id=order[1])            # the judgment keeps that time
    assert judgment.first_shown_at == datetime.fromtimestamp(first_shown(a, order[1]), tz=UTC)


def test_an_item_fetched_before_the_pools_were_rebuilt_is_loaded_anew(page, live_server, six, ada):
    a = assign(six, ada, "A.9")
    order = pool(a)
    open_first(page, live_server, a)
    stale = page.get_attribute("#item-pane .item-view.parked[data-position='1']", "data-pool-item")
    assessor_services.pools_rebuild(campaign=six, force=True)       # new pool rows while the page is open
    fresh = str(PoolItem.objects.get(topic=a.topic, position=1).pk)
    assert fresh != stale
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    shown = page.locator("#item-pane .item-view:not(.parked)")
    expect(shown).to_have_attribute("data-pool-item", fresh, timeout=20000)
    on_item(page, live_server, a, 1, order[1])
    sent(page)
    assert Judgment.objects.get(assignment=a, item_id=order[0]).grade == "3"


def test_without_javascript_the_plain_form_judges_and_moves_on(browser, live_server, six, ada):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        a = assign(six, ada, "A.9")
        order = pool(a)
        log_in(page, live_server, "ada", "assessor-pass-1")
        page.goto(f"{live_server.url}/assess/assignments/{a.pk}/")
        assert page.locator("#item-pane .item-view.parked").count() == 0
        page.click("#judge-form .grade-2")
        with page.expect_navigation():
            page.click("#submit")
        assert page.url.endswith(f"/assess/assignments/{a.pk}/items/1/")
        assert "1 of 6 judged" in page.inner_text("#progress")
        assert list(Judgment.objects.filter(assignment=a).values_list("item_id", "grade")) == [(order[0], "2")]
    finally:
        context.close()

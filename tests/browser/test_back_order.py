"""Back in an adaptive judging order, in headless Chromium (docs/judging.md: `b` goes back to the previous item, its
saved grade shown): after three items judged in move-to-front's order, `b` opens the third, then the second, each with
the grade given; Enter from there goes forward the way it came (the third, then the fourth), never to an item the
assessor was not shown."""
import pytest
from playwright.sync_api import expect

from tests.browser.test_live_order import RUNS, hand_made, judge, shown, waiting  # noqa: F401  (hand_made: a fixture)
from tests.browser.test_organizer_pages import log_in
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def bound(page):
    expect(page.locator("#item-pane .item-view:not(.parked)[data-bound='1']")).to_have_count(1, timeout=20000)


def back_to(page, item_id: str, grade: str) -> None:
    """Presses b and waits for `item_id`, shown with its saved `grade` checked."""
    bound(page)
    page.keyboard.press("b")
    expect(shown(page)).to_have_attribute("data-item-id", item_id, timeout=20000)
    expect(shown(page).locator("input[name=grade]:checked")).to_have_value(grade)


def test_back_follows_the_items_shown_in_move_to_front(page, live_server, hand_made, ada):  # noqa: F811
    a = assign(hand_made, ada, "A.9")
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/")
    first = shown(page).get_attribute("data-item-id")
    x = "a" if first in RUNS["a"] else "b"
    y = "b" if x == "a" else "a"
    # As test_live_order does: each grade given once the list for the item shown has come.
    waiting(page, RUNS[x][1])
    waiting(page, RUNS[y][0])
    judge(page, "3", then=RUNS[x][1])                        # the first: High, the same run goes on
    waiting(page, RUNS[x][2])
    judge(page, "2", then=RUNS[x][2])                        # the second: Medium
    waiting(page, RUNS[y][0])
    judge(page, "0", then=RUNS[y][0])                        # the third: not relevant, the other run's top next
    back_to(page, RUNS[x][2], "0")                           # the third item judged, its grade shown
    back_to(page, RUNS[x][1], "2")                           # then the second
    judge(page, "2", then=RUNS[x][2])                        # forward again: the way Back came
    judge(page, "0", then=RUNS[y][0])
    # A page opened afresh (no item held in the browser) goes back by what the server recorded as shown.
    page.reload()
    back_to(page, RUNS[x][2], "0")

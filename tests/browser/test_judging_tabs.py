"""The judging page under real use, in headless Chromium (docs/judging.md, "The next item at once, and nothing lost"
and "Two tabs"): judgments left in a closed tab still reach the server, two tabs never overwrite each other unseen,
and no shortcut fires while the assessor types."""
import re
import time

import pytest
from django.db import transaction
from playwright.sync_api import expect

from judging import services
from judging.models import Assignment, Judgment, JudgmentRevision, SubmitReceipt
from tests.browser.test_judging import sent, typeset
from tests.browser.test_judging_ahead import judge, on_item, open_first, pool, six  # noqa: F401 (the fixture `six`)
from tests.browser.test_organizer_pages import log_in
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOWN = "#item-pane .item-view:not(.parked)"


@pytest.fixture
def a9(request, ada):
    """ada's assignment of A.9, six answers to judge (test_judging_ahead's campaign `six`)."""
    return assign(request.getfixturevalue("six"), ada, "A.9")


def item_page(live_server, a, position: int) -> str:
    return f"{live_server.url}/assess/assignments/{a.pk}/items/{position}/"


# -- shortcuts while typing


def test_d_after_back_focuses_the_filled_comment_and_typing_there_skips_nothing(page, live_server, a9, ada):
    a = a9
    order = pool(a)
    open_first(page, live_server, a)
    page.keyboard.press("d")
    page.keyboard.type("unsure")
    page.keyboard.press("Control+Enter")
    on_item(page, live_server, a, 1, order[1])
    page.keyboard.press("b")                                   # back to the Do-not-know item, its comment filled
    on_item(page, live_server, a, 0, order[0])
    page.keyboard.press("d")
    box = page.locator(f"{SHOWN} textarea")
    expect(box).to_be_focused()
    page.keyboard.press("End")
    page.keyboard.type(" revised, see bnjk?310fd")            # every shortcut key, typed into the comment
    on_item(page, live_server, a, 0, order[0])
    expect(box).to_have_value("unsure revised, see bnjk?310fd")
    expect(page.locator(f"{SHOWN} input[value=DK]")).to_be_checked()
    page.keyboard.press("Control+Enter")
    on_item(page, live_server, a, 1, order[1])
    sent(page)
    judgment = Judgment.objects.get(assignment=a, item_id=order[0])
    assert (judgment.grade, judgment.comment, judgment.revision) == ("DK", "unsure revised, see bnjk?310fd", 2)


@pytest.mark.parametrize("field", ['<div contenteditable="true" id="typed"></div>',
                                   '<select id="typed"><option>s</option><option>b</option></select>',
                                   '<input type="number" id="typed">'])
def test_no_shortcut_acts_while_the_focus_is_in_a_text_field(page, live_server, a9, ada, field):
    a = a9
    order = pool(a)
    open_first(page, live_server, a)
    page.evaluate("html => document.querySelector('.judge-bar').insertAdjacentHTML('beforeend', html)", field)
    page.focus("#typed")
    for key in "3sbn?":
        page.keyboard.press(key)
    on_item(page, live_server, a, 0, order[0])
    expect(page.locator(f"{SHOWN} input[type=radio]:checked")).to_have_count(0)
    expect(page.locator("#definitions")).not_to_have_attribute("open", "")


def test_enter_after_a_revision_in_a_finished_topic_returns_to_where_the_assessor_was(page, live_server, a9, ada):
    a = a9
    order = pool(a)
    for item_id in order:                                      # every item judged, shown in pool order
        services.judgment_submit(assignment_pk=a.pk, item_id=item_id, grades=[services.GradeInput(grade="2")],
                                 user=ada)
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(item_page(live_server, a, 5))
    typeset(page)
    page.keyboard.press("b")                                   # nothing held ahead in a finished topic: a page load
    on_item(page, live_server, a, 4, order[4])
    typeset(page)
    page.keyboard.press("b")
    on_item(page, live_server, a, 3, order[3])
    typeset(page)
    page.keyboard.press("1")
    page.keyboard.press("Enter")                               # forward the way Back came, not My assignments
    on_item(page, live_server, a, 4, order[4])
    typeset(page)
    page.keyboard.press("Enter")                               # the same grade again: on to where the assessor was
    on_item(page, live_server, a, 5, order[5])
    sent(page)
    assert Judgment.objects.get(assignment=a, item_id=order[3]).grade == "1"
    assert Judgment.objects.get(assignment=a, item_id=order[4]).revision == 1


# -- two tabs


def test_a_grade_changed_in_another_tab_is_shown_and_the_assessor_chooses(page, live_server, a9, ada):
    a = a9
    order = pool(a)
    open_first(page, live_server, a)                           # tab A
    other = page.context.new_page()                            # tab B, the same item
    other.goto(item_page(live_server, a, 0))
    typeset(other)
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    sent(page)
    other.keyboard.press("0")
    other.keyboard.press("Enter")
    on_item(other, live_server, a, 1, order[1])
    conflicts = other.locator("#sync-conflicts")
    expect(conflicts).to_contain_text("changed in another tab: Medium (2) → Not relevant (0)", timeout=20000)
    sent(other)
    judgment = Judgment.objects.get(assignment=a, item_id=order[0])
    assert (judgment.grade, judgment.revision) == ("2", 1)     # not replaced unseen
    other.click("#sync-conflicts .conflict-again")             # theirs again, as a new revision
    expect(conflicts).to_be_hidden()
    sent(other)
    judgment.refresh_from_db()
    assert (judgment.grade, judgment.revision) == ("0", 2)
    assert JudgmentRevision.objects.filter(judgment=judgment).count() == 2
    other.close()


def test_keeping_the_other_tabs_grade_writes_nothing(page, live_server, a9, ada):
    a = a9
    order = pool(a)
    open_first(page, live_server, a)
    services.judgment_submit(assignment_pk=a.pk, item_id=order[0], grades=[services.GradeInput(grade="3")],
                             user=ada)                         # another browser, meanwhile
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    expect(page.locator("#sync-conflicts")).to_contain_text("changed in another tab: High (3) → Low (1)",
                                                            timeout=20000)
    expect(page.locator("#item-pane .item-view[data-position='0'] .item-sync")).to_contain_text(
        "Not saved: changed in another tab")
    page.click("#sync-conflicts .conflict-keep")
    expect(page.locator("#sync-conflicts")).to_be_hidden()
    sent(page)
    assert list(Judgment.objects.filter(assignment=a).values_list("grade", "revision")) == [("3", 1)]


def test_a_revision_made_before_the_first_submit_was_sent_is_no_conflict(page, live_server, a9, ada):
    a = a9
    order = pool(a)
    open_first(page, live_server, a)
    page.context.set_offline(True)
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    on_item(page, live_server, a, 1, order[1])
    page.keyboard.press("b")
    on_item(page, live_server, a, 0, order[0])
    page.keyboard.press("1")                                   # revised in this tab, the first still unsent
    page.keyboard.press("Enter")
    on_item(page, live_server, a, 1, order[1])
    page.context.set_offline(False)
    sent(page)
    expect(page.locator("#sync-conflicts")).to_be_hidden()
    judgment = Judgment.objects.get(assignment=a, item_id=order[0])
    assert (judgment.grade, judgment.revision) == ("1", 2)


# -- judgments left in a closed tab


def arrived(a, count: int) -> int:
    """Waits (20 s at most) for the server to hold `count` judgments of `a`, the tab that sent them being gone."""
    for _ in range(200):
        held = Judgment.objects.filter(assignment=a).count()
        if held >= count:
            return held
        time.sleep(0.1)
    return Judgment.objects.filter(assignment=a).count()


def test_three_fast_judgments_then_a_closed_tab_all_reach_the_server_once(page, live_server, a9, ada):
    a = a9
    order = pool(a)
    open_first(page, live_server, a)
    with transaction.atomic():                                 # the server is slow: its submits wait for this lock
        Assignment.objects.select_for_update().get(pk=a.pk)
        for key in "310":
            judge(page, key)
        page.close()                                           # the tab closed with two submits not even sent
    assert arrived(a, 3) == 3                                  # nothing of this browser's is open any more
    assert dict(Judgment.objects.filter(assignment=a).values_list("item_id", "grade")) == {
        order[0]: "3", order[1]: "1", order[2]: "0"}
    assert JudgmentRevision.objects.count() == 3 and SubmitReceipt.objects.count() == 3


def test_leaving_with_judgments_unsent_asks_first(page, live_server, a9, ada):
    a = a9
    order = pool(a)
    open_first(page, live_server, a)
    page.context.set_offline(True)
    judge(page, "3")
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
    page.click(".judge-bar a:has-text('My assignments')")
    on_item(page, live_server, a, 1, order[1])                 # the assessor chose to stay
    assert asked == ["beforeunload"]
    page.context.set_offline(False)
    sent(page)
    with page.expect_navigation():
        page.click(".judge-bar a:has-text('My assignments')")  # nothing unsent: no question
    assert asked == ["beforeunload"]


def test_the_start_page_in_any_browser_says_the_server_lacks_judgments_a_browser_sent(page, browser, live_server,
                                                                                      a9, ada):
    a = a9
    order = pool(a)
    open_first(page, live_server, a)
    lost = re.compile(r".*/items/1/$")
    page.route(lost, lambda route: route.abort() if route.request.method == "POST" else route.continue_())
    for key in "310":
        judge(page, key)
    expect(page.locator("#sync-status")).to_contain_text("not sent yet")   # the second cannot be sent, nor the third
    page.evaluate("window.dispatchEvent(new PageTransitionEvent('pagehide'))")   # the tab goes: all handed over
    assert arrived(a, 2) == 2
    elsewhere = browser.new_context()
    try:
        home = elsewhere.new_page()
        log_in(home, live_server, "ada", "assessor-pass-1")
        expect(home.locator("#not-arrived")).to_contain_text(
            "The server has 1 judgment fewer than one of your browsers sent")
        page.unroute(lost)                                     # the first browser, back: it sends what it holds
        sent(page)
        home.reload()
        expect(home.locator("#not-arrived")).to_have_count(0)
        assert Judgment.objects.get(assignment=a, item_id=order[1]).grade == "1"
    finally:
        elsewhere.close()

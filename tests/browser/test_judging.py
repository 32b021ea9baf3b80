"""An assessor judges in headless Chromium: by mouse and by keyboard, revises, opens threads, and nothing planted in
the collection runs (SPEC 5.2, 5.3)."""
import pytest
from playwright.sync_api import expect

from judging.models import Judgment, JudgmentRevision
from pooling.models import PoolItem
from tests.browser.test_organizer_pages import log_in
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def item_url(live_server, assignment, item_id):
    pos = PoolItem.objects.get(topic=assignment.topic, item_id=item_id).position
    return f"{live_server.url}/assess/assignments/{assignment.pk}/items/{pos}/"


def typeset(page) -> None:
    """Waits for MathJax (served by the service itself) to have rendered the page's formulas."""
    page.wait_for_selector(".topic-pane mjx-container", timeout=20000)


def sent(page) -> None:
    """Waits until the server has everything the page kept to send (the page moves on before the server answers)."""
    expect(page.locator("#sync-status")).to_have_attribute("data-outbox", "0", timeout=20000)


def test_assessor_judges_answers_by_mouse_and_keyboard_and_revises(page, live_server, answers, ada, screenshot):
    a = assign(answers, ada, "A.1")
    order = list(PoolItem.objects.filter(topic=a.topic).order_by("position").values_list("item_id", flat=True))
    log_in(page, live_server, "ada", "assessor-pass-1")
    assert "0 of 3 judged" in page.inner_text("#assignments")
    page.click("text=Continue")
    typeset(page)
    assert page.evaluate("window.__pwned") is None
    screenshot(page, "judge-answers.png")

    # By mouse: a grade button, then Submit.
    page.click("#judge-form .grade-3")
    with page.expect_navigation():
        page.click("#submit")
    assert "1 of 3 judged" in page.inner_text("#progress")

    # By keyboard: "2" then Enter.
    typeset(page)
    page.keyboard.press("2")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "2 of 3 judged" in page.inner_text("#progress")

    # Back ("b") to the item just judged, revise it to Low by keyboard.
    with page.expect_navigation():
        page.keyboard.press("b")
    page.wait_for_selector("#judge-form .saved:has-text('Saved: Medium')")
    page.keyboard.press("1")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    sent(page)
    judgments = dict(Judgment.objects.filter(assignment=a).values_list("item_id", "grade"))
    assert judgments == {order[0]: "3", order[1]: "1"}
    assert JudgmentRevision.objects.filter(judgment__item_id=order[1]).count() == 2

    # Do not know needs a comment: the page says so and keeps nothing.
    page.goto(item_url(live_server, a, order[2]))
    page.keyboard.press("d")
    assert page.evaluate("document.activeElement.name") == "comment"   # the comment box is where to type
    page.evaluate("document.activeElement.blur()")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "a comment is required with Do not know" in page.inner_text("#errors")
    page.fill("textarea[name=comment]", "cannot tell")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    assert Judgment.objects.get(assignment=a, item_id=order[2]).grade == "DK"
    assert "every item is judged" in page.inner_text("main")


def test_thread_opens_in_a_new_tab_follows_internal_links_and_blocks_the_rest(page, live_server, answers, ada):
    a = assign(answers, ada, "A.1")
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(item_url(live_server, a, "11"))
    typeset(page)
    page.wait_for_selector("#judge-form mjx-container")
    assert page.evaluate("window.__pwned") is None
    # TeX from the collection makes no link and no page-covering overlay (MathJax's safe extension).
    assert page.locator("#item-pane mjx-container a").count() == 0
    assert not page.evaluate("Array.from(document.querySelectorAll('mjx-container *'))"
                             ".some(e => getComputedStyle(e).position === 'fixed')")
    # The external link is text, not a link.
    assert page.locator("#item-pane a[href*='wikipedia']").count() == 0
    assert "Wikipedia" in page.inner_text("#judge-form .external-link")

    with page.expect_popup() as popup_info:
        page.click("#judge-form .thread-link")
    thread = popup_info.value
    thread.wait_for_load_state()
    assert "An integral" in thread.inner_text("h1")
    assert "Nice, thanks!" in thread.inner_text("main")
    thread.wait_for_selector("mjx-container", timeout=20000)
    assert thread.evaluate("window.__pwned") is None
    with thread.expect_navigation():
        thread.click("a.internal-link:has-text('this question')")
    assert "Euler" in thread.inner_text("h1")
    assert thread.url.endswith("/posts/2/#post-2")


def test_formula_view_highlights_query_and_instances_and_takes_one_grade_each(page, live_server, formulas, ada,
                                                                             screenshot):
    a = assign(formulas, ada, "B.1")
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(item_url(live_server, a, "100"))
    typeset(page)
    page.wait_for_selector("#judge-form .instance mjx-container")
    assert page.locator(".topic-pane .math-container.hl mjx-container").count() == 1
    assert page.locator("#judge-form .instance").count() == 2   # (the items fetched ahead wait unseen)
    assert page.locator("#instance-0 .math-container.hl").count() == 1
    assert page.locator("#instance-1 .math-container.hl").count() == 1
    assert page.locator("#instance-1 .math-container:not(.hl)").count() == 1   # formula 3 in the same post
    screenshot(page, "judge-formulas.png")

    page.keyboard.press("3")                                  # instance 1, then on to instance 2
    assert "active" in page.get_attribute("#instance-1", "class")
    page.keyboard.press("1")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    sent(page)
    assert sorted(Judgment.objects.filter(assignment=a).values_list("formula_id", "grade")) == [("1", "3"),
                                                                                                 ("2", "1")]

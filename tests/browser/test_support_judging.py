"""An assessor judges generated answers against the nuggets in headless Chromium, by keyboard only: a key per label,
j/k between nuggets, Enter submits and goes on, b goes back; a label revised; a span marked; a submit the server
the server failed is kept in the browser and sent when a page opens again (docs/nuggets.md, "Support judging")."""
import pytest
from playwright.sync_api import expect

from nuggets.models import CitationJudgment, SupportJudgment
from nuggets.services import support as services
from nuggets.services.support import support_assign
from tests.browser.test_organizer_pages import log_in
from tests.nuggets.support_world import make_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def stored(assignment):
    return {(j.answer.run.name, j.nugget.position): (j.label, j.revision, j.span)
            for j in SupportJudgment.objects.filter(assignment=assignment).select_related("answer__run", "nugget")}



def all_sent(page):
    """Nothing left in the browser's outbox: the submit was answered (a record leaves it only then), by the page that
    made it or by the next one (which, depends on how fast the server answered before the navigation)."""
    page.wait_for_function("""() => Object.keys(localStorage).filter((k) => k.startsWith("judge-outbox:"))
        .every((k) => JSON.parse(localStorage.getItem(k) || "[]").length === 0)""")
    expect(page.locator("#sync-status")).to_have_attribute("data-state", "saved")


def test_assessor_judges_by_keyboard_revises_and_loses_nothing(page, live_server, answers, ada, screenshot,
                                                                monkeypatch):
    world = make_world(answers)
    assignment = support_assign(campaign=world.campaign, topic=world.topic, assessor=ada)[0]
    first = f"{live_server.url}/assess/support/{assignment.pk}/answers/0/"
    second = f"{live_server.url}/assess/support/{assignment.pk}/answers/1/"
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/support/")
    page.click("text=Continue")
    assert page.url == first
    expect(page.locator("#keys")).to_contain_text("support")
    expect(page.locator(".nugget.active")).to_have_count(1)
    screenshot(page, "support-judging.png")

    page.keyboard.press("1")   # the first nugget: support, and on to the next
    page.keyboard.press("p")   # partial_support
    page.keyboard.press("Enter")   # one nugget left: not submitted, the page says so
    expect(page.locator(".support-note")).to_contain_text("1 left")
    page.keyboard.press("3")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == second
    all_sent(page)
    assert stored(assignment) == {("alpha", 0): ("support", 1, ""), ("alpha", 1): ("partial_support", 1, ""),
                                  ("alpha", 2): ("not_support", 1, "")}

    # Back to the first answer: its labels shown; the second nugget revised.
    with page.expect_navigation():
        page.keyboard.press("b")
    assert page.url == first
    assert page.is_checked(f"#nugget-{world.nuggets[1].pk} input[value=partial_support]")
    page.keyboard.press("j")
    page.keyboard.press("s")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    all_sent(page)
    assert stored(assignment)[("alpha", 1)] == ("support", 2, "")

    # The second answer, with a span marked by selecting words of the answer.
    page.evaluate("""() => {
        const node = document.querySelector('#answer-text .sentence').firstChild;
        const range = document.createRange();
        range.setStart(node, 0);
        range.setEnd(node, 'Riemann sums converge'.length);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
    }""")
    page.keyboard.press("k")   # the first nugget (already the current one)
    page.keyboard.press("m")
    expect(page.locator(".nugget.active .span-shown")).to_contain_text("Riemann sums converge")
    down = {"now": True}   # the server failing (a 500) while the last answer is submitted
    submit = services.support_submit

    def failing(**kwargs):
        if down["now"]:
            raise RuntimeError("the database is gone")
        return submit(**kwargs)

    monkeypatch.setattr(services, "support_submit", failing)
    for key in ("n", "n", "s"):
        page.keyboard.press(key)
    with page.expect_navigation():
        page.keyboard.press("Enter")   # the last answer: on to the list, the submit kept in this browser
    assert page.url == f"{live_server.url}/assess/support/"
    expect(page.locator("#sync-status")).to_contain_text("Saved in this browser (1), not sent yet")
    assert ("beta", 0) not in stored(assignment)

    # The server back, the page opened again shows the labels and the submit is sent, once.
    down["now"] = False
    page.goto(second)
    assert page.is_checked(f"#nugget-{world.nuggets[0].pk} input[value=not_support]")
    expect(page.locator("#sync-status")).to_have_text("Saved")
    page.reload()
    assert page.is_checked(f"#nugget-{world.nuggets[0].pk} input[value=not_support]")
    result = stored(assignment)
    assert result[("beta", 0)] == ("not_support", 1, "Riemann sums converge")
    assert result[("beta", 2)] == ("support", 1, "")
    assert len(result) == 6


def test_assessor_labels_citations_by_keyboard(page, live_server, answers, ada):
    world = make_world(answers)
    assignment = support_assign(campaign=world.campaign, topic=world.topic, assessor=ada, task="citations")[0]
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/support/{assignment.pk}/")
    expect(page.locator(".cited-post").first).to_contain_text("power rule")
    assert page.evaluate("window.__pwned") is None   # post 11's planted script and handlers never run
    for key in ("f", "2", "n"):   # alpha: sentence 0 cites 10; sentence 1 cites 10 and 11
        page.keyboard.press(key)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(f"/assess/support/{assignment.pk}/answers/1/")
    all_sent(page)
    assert {(j.sentence.position, j.citation, j.label) for j in CitationJudgment.objects.all()} == {
        (0, "10", "full"), (1, "10", "partial"), (1, "11", "none")}

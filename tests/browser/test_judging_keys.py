"""The judging page's keyboard as assessors use it for hours (issue 22 points 2 and 4), in headless Chromium, also on
the items swapped in from those fetched ahead: Enter after a Thread was opened, System failure's message, the grade
definitions kept open, no silent overwrite of Task 2's last instance; the characterisation page's keys; the start
page grouped by campaign."""
import pytest
from playwright.sync_api import expect

from characterisation import services as characterising
from judging import services
from judging.models import CharacterisationAnswer, Judgment
from tests.browser.test_judging import item_url, sent, typeset
from tests.browser.test_judging_ahead import open_first, six  # noqa: F401 (the fixture `six`)
from tests.browser.test_organizer_pages import log_in
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOWN = "#item-pane .item-view:not(.parked)"


@pytest.fixture
def a9(request, ada):
    """ada's assignment of A.9, six answers to judge (test_judging_ahead's campaign `six`)."""
    return assign(request.getfixturevalue("six"), ada, "A.9")


def open_thread_and_come_back(page, link: str) -> None:
    """Opens a Thread link in its new tab, reads it, and comes back to the judging tab (focus was left on the link)."""
    with page.expect_popup() as popup:
        page.click(link)
    thread = popup.value
    thread.wait_for_load_state()
    thread.close()
    page.bring_to_front()


def test_enter_submits_after_a_thread_was_opened_also_on_items_swapped_in(page, live_server, a9):
    a = a9
    open_first(page, live_server, a)
    for done, link in enumerate([".topic-pane .thread-link", f"{SHOWN} .thread-link"], 1):
        page.keyboard.press("2")
        open_thread_and_come_back(page, link)
        # Back in the tab, the focus is on the form again; and Enter submits wherever the focus is once graded.
        expect(page.locator(f"{SHOWN} form").first).to_be_focused()
        page.focus(link)
        page.keyboard.press("Enter")
        expect(page.locator("#progress")).to_contain_text(f"{done} of 6 judged")
        expect(page.locator(f"{SHOWN} input[type=radio]:checked")).to_have_count(0)   # the next item, swapped in
    assert len(page.context.pages) == 1   # Enter opened no thread again
    sent(page)
    assert Judgment.objects.filter(assignment=a).count() == 2


def test_system_failure_says_a_comment_is_needed_and_definitions_stay_open(page, live_server, a9):
    a = a9
    open_first(page, live_server, a)
    page.keyboard.press("f")
    expect(page.locator(f"{SHOWN} .judge-note")).to_have_text(
        "A comment is required with System failure: write it here, then Ctrl+Enter submits.")
    expect(page.locator(f"{SHOWN} textarea")).to_be_focused()
    page.keyboard.type("the formula does not render")
    expect(page.locator(f"{SHOWN} .judge-note")).to_have_count(0)

    definitions = page.locator("#definitions")
    page.keyboard.press("Escape")                # leaves the comment box
    page.keyboard.press("?")
    expect(definitions).to_have_attribute("open", "")
    page.keyboard.press("Enter")                 # the next item swapped in: the definitions still open
    expect(page.locator("#progress")).to_contain_text("1 of 6 judged")
    expect(definitions).to_have_attribute("open", "")
    page.keyboard.press("n")                     # another page altogether: still open
    page.wait_for_load_state()
    typeset(page)
    expect(definitions).to_have_attribute("open", "")
    page.keyboard.press("Escape")
    expect(definitions).not_to_have_attribute("open", "")
    page.reload()
    typeset(page)
    expect(definitions).not_to_have_attribute("open", "")
    sent(page)
    assert Judgment.objects.get(assignment=a).grade == "SF"


def test_task2_grade_key_after_the_last_instance_does_not_overwrite_it(page, live_server, formulas, ada):
    a = assign(formulas, ada, "B.1")
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(item_url(live_server, a, "100"))   # two instances
    typeset(page)
    page.keyboard.press("3")
    page.keyboard.press("1")
    page.keyboard.press("0")                     # one key too many
    expect(page.locator("#instance-1 input[value='1']")).to_be_checked()
    expect(page.locator("#instance-1 .judge-note")).to_contain_text("Every one is graded")
    page.keyboard.press("k")                     # chosen on purpose: a key changes it
    page.keyboard.press("2")
    expect(page.locator("#instance-0 input[value='2']")).to_be_checked()
    page.keyboard.press("Enter")
    sent(page)
    assert sorted(Judgment.objects.filter(assignment=a).values_list("formula_id", "grade")) == [("1", "2"),
                                                                                                 ("2", "1")]


def test_characterisation_page_takes_the_judging_keys(page, live_server, answers, ada):
    characterising.questions_arqmath(campaign=answers)
    a = characterising.characterisation_assign(campaign=answers, assessors=[ada], topic_ids=["A.1"], size=3).created[0]
    first = list(a.sample.values_list("item_id", flat=True))[0]
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.click("text=Continue")
    typeset(page)
    page.keyboard.press("0")                     # MG: no, then on to UI
    page.keyboard.press("1")                     # UI: yes
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "1 of 3 answered" in page.inner_text("#progress")
    with page.expect_navigation():
        page.keyboard.press("b")
    expect(page.locator("#question-UI input[value=yes]")).to_be_checked()
    page.keyboard.press("?")
    expect(page.locator("#definitions")).to_have_attribute("open", "")
    page.keyboard.press("Escape")
    expect(page.locator("#definitions")).not_to_have_attribute("open", "")
    stored = {(x.question.label, x.answer) for x in CharacterisationAnswer.objects.filter(item_id=first)}
    assert stored == {("MG", False), ("UI", True)}


def test_start_page_groups_assignments_by_campaign(page, live_server, answers, formulas, a9, ada, screenshot):
    assign(answers, ada, "A.1")
    assign(answers, ada, "A.2")
    assign(formulas, ada, "B.1")
    done = a9
    for item_id in done.topic.pool_items.values_list("item_id", flat=True):
        services.judgment_submit(assignment_pk=done.pk, item_id=item_id, grades=[services.GradeInput(grade="1")],
                                 user=ada)
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.wait_for_selector("#assignments details[open] mjx-container", timeout=20000)
    groups = page.locator("#assignments details.campaign-group")
    assert groups.locator("summary h2").all_inner_texts() == ["six", "formulas", "answers"]   # the newest first
    assert groups.nth(2).locator("tbody tr").count() == 2
    assert "0 of 5 judged · 2 topics" in groups.nth(2).locator("summary").inner_text()
    # A campaign with nothing left is folded.
    expect(groups.nth(0)).not_to_have_attribute("open", "")
    assert "6 of 6 judged · 1 topic · nothing left" in groups.nth(0).locator("summary").inner_text()
    expect(groups.nth(1)).to_have_attribute("open", "")
    screenshot(page, "assessor-home-grouped.png")

"""The LLM's grade in the browser (issue 26 point 4): in suggest mode the judging page shows it above the buttons, the
items swapped in from those fetched ahead show their own, and each stored judgment records the grade that was on
screen; in blind mode nothing of an LLM grade is anywhere in the page's HTML, fetched-ahead items included."""
import pytest
from playwright.sync_api import expect

from judging.models import Judgment
from llm.models import Mode
from pooling.models import PoolItem
from tests.browser.test_judging import sent
from tests.browser.test_organizer_pages import log_in
from tests.factories import LlmEndpointFactory, LlmPromptFactory
from tests.judging.fixtures import assign
from tests.llm_rows import llm_grade

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOWN = "#item-pane .item-view:not(.parked)"
LLM_GRADES = {"10": 3, "11": 0, "12": 2}


def _graded(answers, ada, mode):
    prompt = LlmPromptFactory()
    LlmEndpointFactory(campaign=answers, mode=mode, prompt=prompt)
    grades = {item: llm_grade(answers, "A.1", item, grade, prompt=prompt) for item, grade in LLM_GRADES.items()}
    a = assign(answers, ada, "A.1")
    order = list(PoolItem.objects.filter(topic=a.topic).order_by("position").values_list("item_id", flat=True))
    return a, order, grades


def _open(page, live_server, a, item_id):
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/")
    page.wait_for_selector(f"{SHOWN}[data-item-id='{item_id}'][data-bound='1']")


def test_suggest_mode_shows_each_item_s_llm_grade_and_the_judgment_records_it(page, live_server, answers, ada,
                                                                              screenshot):
    a, order, grades = _graded(answers, ada, Mode.SUGGEST)
    labels = {3: "High", 2: "Medium", 0: "Not relevant"}
    _open(page, live_server, a, order[0])
    expect(page.locator("#item-pane .item-view.parked")).to_have_count(2)   # the others wait, fetched ahead
    expect(page.locator(f"{SHOWN} .llm-suggestion strong")).to_have_text(labels[LLM_GRADES[order[0]]])
    screenshot(page, "judge-llm-suggestion.png")
    given = ["1", "2", "0"]
    for n, key in enumerate(given):
        if n:   # swapped in from the items fetched ahead: its own suggestion
            page.wait_for_selector(f"{SHOWN}[data-item-id='{order[n]}'][data-bound='1']")
            expect(page.locator(f"{SHOWN} .llm-suggestion strong")).to_have_text(labels[LLM_GRADES[order[n]]])
        page.keyboard.press(key)
        page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/assess/")   # the last item judged: the start page, all sent
    assert sorted(Judgment.objects.values_list("item_id", "grade", "suggested", "suggestion_id")) == sorted(
        (item, grade, True, grades[item].pk) for item, grade in zip(order, given, strict=True))


def test_blind_mode_puts_no_llm_grade_in_the_page_s_html(page, live_server, answers, ada):
    a, order, grades = _graded(answers, ada, Mode.BLIND)
    _open(page, live_server, a, order[0])
    expect(page.locator("#item-pane .item-view.parked")).to_have_count(2)   # fetched ahead, in the HTML too
    html = page.content()
    assert "llm-suggestion" not in html and "suggestion" not in html and "LLM" not in html
    expect(page.locator(".llm-suggestion")).to_have_count(0)
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{SHOWN}[data-item-id='{order[1]}'][data-bound='1']")
    sent(page)
    assert "suggestion" not in page.content()
    assert list(Judgment.objects.values_list("item_id", "grade", "suggested", "suggestion_id")) == [
        (order[0], "1", False, None)]

"""A campaign's judging scheme in the browser (docs/judging.md, "Judging schemes"): an assessor judges a TREC DL
(trec-4) campaign with its keys only, and the organizer sees the scheme on the settings page."""
import pytest
from playwright.sync_api import expect

from ir import grades
from judging.models import Judgment
from pooling.models import PoolItem
from tests.browser.test_organizer_pages import log_in
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


SHOWN = "#item-pane .item-view:not(.parked)"


def _judging(page, live_server, answers, ada, scheme: str) -> list[str]:
    """The campaign judged with `scheme`, ada's first item open with its keys bound; the topic's items in order."""
    answers.scheme = grades.preset(scheme).to_json()
    answers.save()
    a = assign(answers, ada, "A.1")
    order = list(PoolItem.objects.filter(topic=a.topic).order_by("position").values_list("item_id", flat=True))
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/")
    _bound(page, order[0])
    return order


def _bound(page, item_id: str) -> None:
    """Waits until `item_id` is the item shown and judge.js has bound its keys (not for a fixed time)."""
    page.wait_for_selector(f"{SHOWN}[data-item-id='{item_id}'][data-bound='1']")


def test_an_assessor_judges_with_the_scheme_s_keys_only(page, live_server, answers, ada, organizer, screenshot):
    order = _judging(page, live_server, answers, ada, "trec-4")
    shown = SHOWN
    expect(page.locator(f"{shown} .grade-buttons label")).to_have_count(4)
    expect(page.locator(f"{shown} .grade-buttons")).to_contain_text("Perfectly relevant")
    expect(page.locator(f"{shown} .comment-label")).to_contain_text("Comment (optional)")  # trec-4 has no SF/DK
    screenshot(page, "judge-scheme-trec-4.png")
    for n, key in enumerate(("3", "1", "0")):
        page.keyboard.press(key)
        page.keyboard.press("Enter")
        if n + 1 < len(order):
            _bound(page, order[n + 1])
    page.wait_for_url(f"{live_server.url}/assess/")   # the last item judged: the start page, all sent
    assert dict(Judgment.objects.values_list("item_id", "grade")) == dict(zip(order, ["3", "1", "0"], strict=True))

    page.context.clear_cookies()
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/settings/")
    expect(page.locator("#scheme")).to_contain_text("Judging scheme: trec-4")
    page.locator("#scheme").scroll_into_view_if_needed()
    screenshot(page, "campaign-scheme.png")


def test_an_assessor_judges_with_two_facets_using_only_the_keyboard(page, live_server, answers, ada, screenshot):
    order = _judging(page, live_server, answers, ada, "mo-facets")
    shown = SHOWN
    expect(page.locator(f"{shown} fieldset.facet")).to_have_count(2)
    expect(page.locator(f"{shown} .comment-label")).to_contain_text("required for System failure and Do not know")
    page.keyboard.press("p")   # totality: partial
    page.keyboard.press("Enter")   # too soon: the page names the question left
    expect(page.locator(f"{shown} .item-sync")).to_have_text(
        "Answer “Does it answer directly?” first (or choose a mark).")
    page.keyboard.press("r")   # directness: direct
    screenshot(page, "judge-facets.png")
    for n, keys in enumerate((("Enter",), ("t", "i", "Enter"), ("o", "i", "Enter"))):
        for key in keys:
            page.keyboard.press(key)
        if n + 1 < len(order):
            _bound(page, order[n + 1])
    page.wait_for_url(f"{live_server.url}/assess/")   # the last item judged: the start page, all sent
    assert sorted(Judgment.objects.values_list("item_id", "grade", "facets")) == sorted([
        (order[0], "2", {"totality": "partial", "directness": "direct"}),
        (order[1], "2", {"totality": "total", "directness": "indirect"}),
        (order[2], "0", {"totality": "none", "directness": "indirect"})])

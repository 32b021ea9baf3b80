"""A campaign's judging scheme in the browser (docs/judging.md, "Judging schemes"): an assessor judges a TREC DL
(trec-4) campaign with its keys only, and the organizer sees the scheme on the settings page."""
import pytest
from playwright.sync_api import expect

from assessor.models import Judgment
from ir import grades
from pooling.models import PoolItem
from tests.assessor.fixtures import assign
from tests.browser.test_judging import sent
from tests.browser.test_organizer_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_assessor_judges_with_the_scheme_s_keys_only(page, live_server, answers, ada, organizer, screenshot):
    answers.scheme = grades.preset("trec-4").to_json()
    answers.save()
    a = assign(answers, ada, "A.1")
    order = list(PoolItem.objects.filter(topic=a.topic).order_by("position").values_list("item_id", flat=True))
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{a.pk}/")
    shown = "#item-pane .item-view:not(.parked)"
    expect(page.locator(f"{shown} .grade-buttons label")).to_have_count(4)
    expect(page.locator(f"{shown} .grade-buttons")).to_contain_text("Perfectly relevant")
    screenshot(page, "judge-scheme-trec-4.png")
    for key in ("3", "1", "0"):
        page.keyboard.press(key)
        page.keyboard.press("Enter")
        page.wait_for_timeout(300)
    sent(page)
    assert dict(Judgment.objects.values_list("item_id", "grade")) == dict(zip(order, ["3", "1", "0"], strict=True))

    page.context.clear_cookies()
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/settings/")
    expect(page.locator("#scheme")).to_contain_text("Judging scheme: trec-4")
    page.locator("#scheme").scroll_into_view_if_needed()
    screenshot(page, "campaign-scheme.png")

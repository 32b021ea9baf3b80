"""The new training round's form has the assignment grid's "All" boxes (issue 13.12: every topic grid of its kind)."""
import pytest

from judging.models import Assignment
from tests.browser.test_organizer_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_training_round_form_selects_every_assessor_and_topic_at_once(page, live_server, organizer, answers, ada,
                                                                          bob):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/training/")
    page.check("#round-form input[data-select-all=assessors]")
    page.check("#round-form input[data-select-all=topics]")
    assert page.locator("#round-form input[name=assessors]:checked").count() == 2
    assert page.locator("#round-form input[name=topics]:checked").count() == 2
    # Unticking one box unticks its "All" box.
    page.uncheck("#round-form input[name=topics][value='A.2']")
    assert not page.is_checked("#round-form input[data-select-all=topics]")
    page.check("#round-form input[data-select-all=topics]")
    with page.expect_navigation():
        page.click("#round-form button[type=submit]")
    rows = sorted(Assignment.objects.filter(campaign=answers, kind="training").values_list(
        "assessor__username", "topic__topic_id", "round"))
    assert rows == [("ada", "A.1", 1), ("ada", "A.2", 1), ("bob", "A.1", 1), ("bob", "A.2", 1)]

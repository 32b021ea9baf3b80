"""An organizer in a real browser deletes a topic nothing is judged on, and is told why a judged one is kept."""
import pytest

from pooling.models import Topic
from tests.browser.test_organizer_pages import log_in
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_organizer_deletes_an_unjudged_topic_and_is_refused_a_judged_one(page, live_server, organizer, answers, ada,
                                                                         screenshot):
    from judging import services

    assignment = assign(answers, ada, "A.1")
    services.judgment_submit(assignment_pk=assignment.pk, item_id="10", user=ada,
                             grades=[services.GradeInput(grade="3")])
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/")
    page.locator("#topics").scroll_into_view_if_needed()
    screenshot(page, "campaign-topics.png")
    page.click("[aria-label='Delete topic A.2']")
    assert page.inner_text("h1") == "Delete topic A.2?"
    assert "its 2 pool items" in page.inner_text("main")
    screenshot(page, "topic-delete.png")
    with page.expect_navigation():
        page.click("button:has-text('Delete topic A.2')")
    assert page.url == f"{live_server.url}/campaigns/{answers.pk}/"
    assert "Topic A.2 was deleted (2 pool items, 2 run rows)." in page.inner_text("main")
    assert "A.2" not in page.inner_text("#topics")

    page.click("[aria-label='Delete topic A.1']")
    assert "This topic cannot be deleted" in page.inner_text("main")
    assert page.locator("button:has-text('Delete topic A.1')").count() == 0
    screenshot(page, "topic-delete-refused.png")
    assert list(Topic.objects.filter(campaign=answers).values_list("topic_id", flat=True)) == ["A.1"]

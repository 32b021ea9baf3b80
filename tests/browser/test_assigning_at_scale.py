"""The Assignments page's search filters the topic grid as one types, and the balanced form spreads the ticked topics
over the ticked assessors (issue 22.8)."""
import pytest

from judging import services
from judging.models import Assignment
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, TopicFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TITLES = ["Integral of $x^2$ from 0 to 1", "Euler's identity $e^{i\\pi}+1=0$", "Sum of $1/k^2$",
          "Integral of $\\sin x$", "Limit of $(1+1/n)^n$", "Euler's totient of a prime", "Derivative of $x^x$",
          "Integral by parts"]


def test_the_search_filters_the_grid_live_and_the_balanced_form_spreads_topics(page, live_server, organizer,
                                                                               screenshot):
    campaign = CampaignFactory(name="ARQMath-3 Task 1")
    for n, title in enumerate(TITLES):
        TopicFactory(campaign=campaign, topic_id=f"A.{301 + n}", position=n, title=title)
    people = [UserFactory(username=name) for name in ("ada", "bob", "cleo")]
    services.assignments_create(campaign=campaign, assessors=[people[0]], topic_ids=["A.301"])
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/assignments/")
    url = page.url
    page.fill("#id_q", "integral")
    shown = page.locator("#topic-grid .topic-boxes label:visible")
    assert shown.count() == 3
    assert page.inner_text(".search-count") == "3 of 8 topics"
    assert page.url == url  # filtered in the page, not reloaded
    # "All topics" ticks only what the search shows.
    page.check("input[data-select-all=topics]")
    ticked = page.eval_on_selector_all("#topic-grid input[name=topics]:checked", "b => b.map(x => x.value)")
    assert ticked == ["A.301", "A.304", "A.308"]
    page.check("input[data-select-all=assessors]")
    page.fill("#id_per_topic", "1")
    screenshot(page, "assignments-balanced.png")
    # A second search keeps what the first one ticked.
    page.fill("#id_q", "euler")
    page.check("#topic-grid label:has-text('A.302') input")
    page.fill("#id_q", "")
    assert page.locator("#topic-grid .topic-boxes label:visible").count() == 8
    with page.expect_navigation():
        page.click("#assign-form button[type=submit]")
    assert "3 assignments created (1 was already assigned)." in page.inner_text(".messages")
    rows = sorted(Assignment.objects.filter(campaign=campaign).values_list("topic__topic_id", "assessor__username"))
    assert rows == [("A.301", "ada"), ("A.302", "bob"), ("A.304", "cleo"), ("A.308", "ada")]

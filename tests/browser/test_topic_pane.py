"""The topic pane of the judging page for topics in the field's formats (issue 25): a TREC topic with its description
and narrative; a micro-topic under its parent's prelude, its siblings folded until asked for."""
import pytest
from playwright.sync_api import expect

from pooling import services as pooling_services
from pooling.models import Campaign
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory
from tests.judging.fixtures import assign
from tests.pooling.run_files import ingest, task1_lines
from tests.pooling.test_formats_topics_field import TREC

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MICRO = (b'{"id": "401", "title": "Integrals for an exam", "prelude": "I have a calculus exam on Monday and keep '
         b'getting definite integrals wrong.", "micro_topics": [{"text": "How do I integrate x^2 from 0 to 1?"}, '
         b'{"text": "When can I use Riemann sums instead?"}, {"text": "Is there a trick for e^(i pi)?"}]}\n')


def campaign_of(collection, tmp_path, name: str, topics: bytes, topic_id: str):
    campaign = CampaignFactory(name=name, task=Campaign.Task.ANSWERS, collection=collection, primary_depth=3,
                               alternate_depth=3)
    path = tmp_path / f"{name}.topics"
    path.write_bytes(topics)
    pooling_services.topics_ingest(campaign=campaign, path=path)
    ingest(campaign, tmp_path, f"{name}-r1", task1_lines(topic_id, ["10", "11", "12"], "r1"))
    pooling_services.pool_build(campaign=campaign, judged_items={})
    return campaign


def test_a_trec_topic_shows_its_description_and_narrative(page, live_server, collection, ada, tmp_path, screenshot):
    assignment = assign(campaign_of(collection, tmp_path, "trec", TREC, "301"), ada, "301")
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{assignment.pk}/items/0/")
    pane = page.locator(".topic-pane")
    expect(pane.locator(".topic-title")).to_have_text("International Organized Crime")
    expect(pane.locator(".topic-description")).to_contain_text("Identify organizations that participate")
    expect(pane.locator(".topic-narrative")).to_contain_text("A relevant document must as a minimum identify")
    screenshot(page, "judge-trec-topic.png")


def test_a_micro_topic_shows_the_prelude_above_and_its_siblings_folded(page, live_server, collection, ada, tmp_path,
                                                                        screenshot):
    assignment = assign(campaign_of(collection, tmp_path, "micro", MICRO, "401.1"), ada, "401.1")
    log_in(page, live_server, "ada", "assessor-pass-1")
    page.goto(f"{live_server.url}/assess/assignments/{assignment.pk}/items/0/")
    pane = page.locator(".topic-pane")
    expect(pane.locator(".topic-parent")).to_have_text("Topic 401: Integrals for an exam")
    expect(pane.locator(".topic-prelude")).to_contain_text("I have a calculus exam on Monday")
    prelude, title = pane.locator(".topic-prelude").bounding_box(), pane.locator(".topic-title").bounding_box()
    assert prelude["y"] < title["y"]
    sibling = pane.locator(".topic-siblings li").first
    expect(sibling).to_be_hidden()
    pane.locator(".topic-siblings summary").click()
    expect(sibling).to_have_text("401.2 When can I use Riemann sums instead?")
    screenshot(page, "judge-micro-topic.png")

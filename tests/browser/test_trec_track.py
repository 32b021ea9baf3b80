"""A TREC-style track's judging page in headless Chromium shows the document with its title, in the track's words
(docs/pooling.md, "Document retrieval"); the campaign page names its task."""
import pytest

from pooling.models import PoolItem
from tests.browser.test_organizer_pages import log_in
from tests.pooling.trec_track import DOCS, trec_track

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_judging_page_of_a_trec_track_shows_the_document_s_title(page, live_server, tmp_path, assessor_user,
                                                                     organizer, screenshot):
    campaign, assignment = trec_track(tmp_path, assessor_user)
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    assert "Document retrieval (TREC-style)" in page.inner_text("main")
    screenshot(page, "trec-track-campaign.png")
    page.context.clear_cookies()

    log_in(page, live_server, "ada", "assessor-pass-1")
    item = PoolItem.objects.filter(topic=assignment.topic).order_by("position")[1]
    page.goto(f"{live_server.url}/assess/assignments/{assignment.pk}/items/{item.position}/")
    title, text = DOCS[item.item_id]
    pane = page.locator(".pane-title")
    assert pane.inner_text().startswith(f"Document {item.item_id}")
    assert page.locator(".document-title").inner_text() == title
    assert page.locator(".document-title").is_visible()
    assert text in page.inner_text(".answer-body")
    screenshot(page, "trec-track-judging.png")

"""Layout: the campaign tab strip fits at 1024 and 1280 px, in the normal and the projector
view, by wrapping; nothing of the page scrolls sideways. Also the qrels form's checkbox sits with its label
and the pages are screenshot for the docs."""
import pytest

from pooling import services
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, TopicFactory
from tests.pooling.run_files import ingest, task1_lines

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OVERFLOW = """() => {
  const tabs = document.querySelector('nav.tabs');
  const right = Math.max(...[...tabs.querySelectorAll('a')].map(a => a.getBoundingClientRect().right));
  return {strip: tabs.scrollWidth - tabs.clientWidth, links: right - tabs.getBoundingClientRect().right,
          page: document.documentElement.scrollWidth - window.innerWidth, links_shown: [...tabs.querySelectorAll('a')]
          .filter(a => a.getBoundingClientRect().width > 0).length};
}"""


@pytest.mark.parametrize("width", [1024, 1280])
def test_the_campaign_tab_strip_fits_without_overflow(browser, live_server, organizer, width, screenshot):
    campaign = CampaignFactory(name="ARQMath-3 Task 1 with a long campaign name")
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    try:
        log_in(page, live_server, "olga", "organizer-pass-1")
        for address in (f"/campaigns/{campaign.pk}/", f"/campaigns/{campaign.pk}/leaderboard/",
                        f"/campaigns/{campaign.pk}/disagreements/?projector=1"):
            page.goto(live_server.url + address)
            measured = page.evaluate(OVERFLOW)
            # An answers campaign also has the Nuggets and Support tabs (docs/nuggets.md).
            assert measured["links_shown"] == (10 if campaign.task == "answers" else 8), address
            assert (measured["strip"], measured["page"]) == (0, 0), (address, measured)
            assert measured["links"] <= 0, (address, measured)
        if width == 1024:
            page.goto(f"{live_server.url}/campaigns/{campaign.pk}/progress/")
            screenshot(page, "tabs-1024.png")
    finally:
        context.close()


def test_the_sf_dk_checkbox_sits_with_its_label(page, live_server, organizer):
    campaign = CampaignFactory()
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/leaderboard/")
    box = page.locator("#id_complete").bounding_box()
    label = page.locator("label:has(#id_complete)").bounding_box()
    assert box is not None and label is not None
    assert box["width"] < 30  # a checkbox, not an 18rem-wide box with the tick in its middle
    text_left = page.evaluate("""() => { const r = document.createRange();
      const label = document.querySelector('#id_complete').parentElement; r.selectNodeContents(label);
      const rects = [...r.getClientRects()].filter(x => x.width > 0 && x.left > document.querySelector('#id_complete')
        .getBoundingClientRect().right - 1); return rects.length ? rects[0].left : null; }""")
    assert text_left is not None and text_left - (box["x"] + box["width"]) < 12


def test_screenshots_of_an_out_of_date_pool_and_a_help_page(page, live_server, organizer, tmp_path, screenshot):
    campaign = CampaignFactory(name="ARQMath-3 Task 1")
    from tests.factories import TopicFactory
    for position, topic in enumerate(("A.1", "A.2")):
        TopicFactory(campaign=campaign, topic_id=topic, position=position)
    ingest(campaign, tmp_path, "team-P", task1_lines("A.1", ["10", "11", "12"], "team-P")
           + task1_lines("A.2", ["20", "21"], "team-P"))
    services.pool_build(campaign=campaign, judged_items={})
    ingest(campaign, tmp_path, "team-late", task1_lines("A.1", ["13"], "team-late"))
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/pools/")
    assert "run team-late has no item in them" in page.inner_text("#pools-out-of-date")
    screenshot(page, "pools-out-of-date.png")
    page.click("#help-link")
    page.wait_for_url("**/help/pooling/")
    assert page.inner_text("#help-text h1") == "Pooling"
    # The screenshots of the help page load from the site.
    assert page.evaluate("() => [...document.querySelectorAll('#help-text img')].every(i => i.naturalWidth > 0)")
    screenshot(page, "help-page.png")


def test_the_runs_table_with_real_run_names_fits_the_campaign_page_at_1400_px(browser, live_server, organizer,
                                                                              tmp_path):
    # Real ARQMath participants' run names are long and have no space: the name and tag cells break them, so the
    # campaign page does not scroll sideways (it was 1,582 px wide at 1,400).
    campaign = CampaignFactory(name="ARQMath-1 Task 1")
    TopicFactory(campaign=campaign, topic_id="A.1")
    for name in ("prim_MIRMU-task1-SCM_compuBERT_math_and_text-auto-both-P",
                 "DPRL_task1_auto_both_A3_rerank_tangent_cft_plus_bm25_fused",
                 "TU_DBS_task1_TU_DBS_P_Ensemble_of_SciBERT_and_TF-IDF_retrieval"):
        ingest(campaign, tmp_path, name, task1_lines("A.1", ["10", "11"], name), allow_missing=True)
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    try:
        log_in(page, live_server, "olga", "organizer-pass-1")
        page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
        assert page.locator("#runs tbody tr").count() == 3
        assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    finally:
        context.close()

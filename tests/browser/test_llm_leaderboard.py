"""An organizer compares the LLM judge's ranking of the runs with the people's in headless Chromium (issue 26): the
two rankings side by side with Kendall's tau and tau_ap, the run that reranks with the judge's own model flagged, the
switch without the runs that declare an LLM, and the taus following the judge's new grades without a reload.
The campaign is the analysis pages' (twelve ARQMath-3 topic ids, five runs, every pooled item judged); the LLM's
grades are made up: it over-labels, and favours the items of the run that declares its model."""
import random

import pytest
from playwright.sync_api import expect

from llm.models import LlmGrade
from pooling.models import Run
from tests.browser.test_analysis_pages import campaign, grade  # noqa: F401 (fixture)
from tests.browser.test_organizer_pages import log_in
from tests.factories import LlmEndpointFactory, LlmGradeFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

JUDGE = "qwen2.5-7b-instruct"
GAMER = "TU_DBS-task1-colbert-manual-math-P"  # the worst run for the people; it reranks with the judge


@pytest.fixture
def judged_by_llm(campaign):  # noqa: F811
    LlmEndpointFactory(campaign=campaign, model=JUDGE)
    Run.objects.filter(campaign=campaign, name=GAMER).update(llm_model=JUDGE)
    Run.objects.filter(campaign=campaign, name="DPRL-task1-bm25-auto-both-A").update(llm_model="gpt-4o")
    rng = random.Random(26)
    for item in campaign.pool_items.select_related("topic"):
        truth = grade(int(item.item_id[3:]))
        favoured = any(run == GAMER and rank <= 5 for run, rank in item.provenance)
        llm = min(3, truth + (2 if favoured else 1 if rng.random() < 0.3 else 0))
        LlmGradeFactory(topic=item.topic, campaign=campaign, item_id=item.item_id, model=JUDGE, grade=llm)
    return campaign


def test_organizer_compares_the_llm_ranking_with_the_peoples(page, live_server, judged_by_llm, organizer,
                                                              screenshot):
    page.clock.install()  # the page polls every 30 s: the test moves the clock instead of waiting
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{live_server.url}/campaigns/{judged_by_llm.pk}/leaderboard/")
    expect(page.locator("#llm")).to_contain_text(JUDGE)
    expect(page.locator("#llm-flagged")).to_contain_text(f"{GAMER} declares the judge's own model")
    flagged = page.locator(f'#llm-leaderboard tr[data-run="{GAMER}"]')
    expect(flagged).to_have_class("flagged")
    # The judge favours the gamer's items: it climbs from last under the people's qrels.
    people_rank, llm_rank = (int(text) for text in flagged.locator("td").all_inner_texts()[2:4])
    assert people_rank == 5 and llm_rank < 5
    tau = page.locator('#llm-correlation tr[data-measure="ndcg_prime"] td.tau')
    before = float(tau.inner_text())
    assert before < 1.0
    page.evaluate("document.getElementById('llm').scrollIntoView()")
    screenshot(page, "leaderboard-llm.png")

    # The judge is rerun without its bias: every grade the people's. The page follows without a reload.
    for found in LlmGrade.objects.filter(campaign=judged_by_llm):
        found.grade = grade(int(found.item_id[3:]))
        found.save()
    page.clock.fast_forward(31_000)
    expect(tau).to_have_text("1.0000")
    expect(flagged.locator("td").nth(3)).to_have_text("5")

    page.click("#llm-switch a:has-text('without the runs that declare an LLM')")
    expect(page.locator("#llm-leaderboard tbody tr")).to_have_count(3)
    expect(page.locator('#llm-correlation tr[data-measure="ndcg_prime"] td').nth(1)).to_have_text("3")
    expect(page.locator("#llm-correlation caption")).to_contain_text("without the runs that declare an LLM")

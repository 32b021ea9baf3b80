"""An organizer reads the analysis for the overview paper in headless Chromium: the leaderboard with significance
marks, intervals, a breakdown by topic category and a per-topic difference chart; another measure chosen in the
form; the reusability page. Twelve ARQMath-3 topic ids (their categories from the real topic information cut),
five runs of four teams with ARQMath-style names, every pooled item judged."""
import random

import pytest
from playwright.sync_api import expect

from evaluation.topic_info import topic_info_ingest
from judging.services import judgments_import
from pooling import services
from pooling.models import Campaign
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, TopicFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOPICS = ["A.301", "A.302", "A.303", "A.304", "A.305", "A.306", "A.307", "A.308", "A.309", "A.310", "A.312",
          "A.313"]
# Each run's noise on the hidden relevance: the less, the better the run.
RUNS = {"DPRL-task1-rrf-auto-both-P": 1.0, "DPRL-task1-bm25-auto-both-A": 2.0,
        "MIRMU-task1-scm-auto-both-P": 1.5, "Baseline2022-task1-terrier-auto-text-P": 2.5,
        "TU_DBS-task1-colbert-manual-math-P": 8.0}
POSTS = 30


def grade(i: int) -> int:
    return 3 if i < 2 else 2 if i < 5 else 1 if i < 8 else 0


@pytest.fixture
def campaign(tmp_path, arqmath_data):
    campaign = CampaignFactory(name="arqmath3-demo", task=Campaign.Task.ANSWERS, primary_depth=10, alternate_depth=5)
    for position, topic in enumerate(TOPICS):
        TopicFactory(campaign=campaign, topic_id=topic, position=position, title=f"Topic {topic}")
    rng = random.Random(18)
    for name, noise in RUNS.items():
        lines = []
        for topic in TOPICS:
            scored = sorted(range(POSTS), key=lambda i: -(grade(i) + rng.gauss(0, noise)))
            lines += [f"{topic}\t{topic[2:]}{i:03d}\t{rank}\t{100 - rank}\t{name}\n"
                      for rank, i in enumerate(scored, 1)]
        path = tmp_path / f"{name}.tsv"
        path.write_text("".join(lines))
        services.run_ingest(campaign=campaign, path=path)
    services.pool_build(campaign=campaign, judged_items={})
    assessors = ["ada", "bob", "cy"]
    judgments_import(campaign=campaign, lines=[
        f"{assessors[TOPICS.index(item.topic.topic_id) % 3]}\t{item.topic.topic_id}\t{item.item_id}\t"
        f"{grade(int(item.item_id[3:]))}\t" for item in campaign.pool_items.select_related("topic")])
    info = arqmath_data / "topics" / "Task1_ARQMath3_Topic_Information.head12.csv"
    topic_info_ingest(campaign=campaign, data=info.read_bytes(), filename=info.name)
    return campaign


def test_organizer_reads_significance_intervals_a_breakdown_and_reusability(page, live_server, campaign, organizer,
                                                                            screenshot):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.set_viewport_size({"width": 1280, "height": 1500})
    base = f"{live_server.url}/campaigns/{campaign.pk}/leaderboard/"
    # The baseline is chosen by its fact (read from its name); the breakdown and the chart by the form.
    page.goto(base)
    expect(page.locator("#id_baseline")).to_have_value("Baseline2022-task1-terrier-auto-text-P")
    page.select_option("#id_by", "Category")
    page.click("#analysis-form button")
    page.select_option("#id_a", "DPRL-task1-rrf-auto-both-P")
    page.select_option("#id_b", "Baseline2022-task1-terrier-auto-text-P")
    page.click("#difference-form button")
    page.wait_for_selector("#difference-chart")
    table = page.locator("#analysis-table")
    assert table.locator("tbody tr").first.get_attribute("data-run") == "DPRL-task1-rrf-auto-both-P"
    # The nearly random manual run is far below the best; the best is far above the baseline.
    expect(table.locator("tr[data-run='TU_DBS-task1-colbert-manual-math-P'] .mark.below").first).to_have_text(
        "▼ best")
    expect(table.locator("tr[data-run='DPRL-task1-rrf-auto-both-P'] .mark")).to_have_text(["▲ baseline"])
    assert table.locator("td.interval").first.inner_text().startswith("[")
    assert page.locator("#breakdown-table thead th").all_inner_texts()[1:] == [
        "Computation", "Concept", "Proof", "Proof & Concept"]
    assert page.locator("#difference-chart rect.bar").count() == len(TOPICS)
    page.locator("#analysis").scroll_into_view_if_needed()
    page.evaluate("document.getElementById('analysis').scrollIntoView()")
    screenshot(page, "leaderboard-analysis.png")

    # Another measure, by its ir_measures name.
    page.fill("#id_measure", "nDCG@10")
    page.click("#analysis-form button")
    expect(page.locator("#analysis")).to_contain_text("Analysis: nDCG@10")

    page.click("a:has-text('Reusability (leave one team out)')")
    page.wait_for_selector("#reusability")
    teams = set(page.locator("#reusability tbody td:nth-child(2)").all_inner_texts())
    assert teams == {"DPRL", "MIRMU", "Baseline2022", "TU_DBS"}
    assert page.locator("#rank-agreement tbody tr").count() == 3
    page.set_viewport_size({"width": 1280, "height": 860})
    screenshot(page, "reusability.png")

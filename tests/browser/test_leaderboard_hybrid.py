"""An organizer reads the runs under hybrid qrels on the leaderboard in headless Chromium (docs/evaluation.md, "Under
hybrid qrels"): each run's official mean and rank beside its hybrid mean with 95% intervals of the mean and the
rank. The campaign is the analysis pages' runs and topics (five runs, twelve ARQMath-3 topic ids), a third of the
pool judged by people and every pooled item graded by a made-up model, calibrated by the job (in-process)."""
import random

import pytest

from agreement.tasks import calibration_refit_request
from judging.services import judgments_import
from llm.models import Calibration
from pooling import services
from pooling.models import Campaign
from tests.browser.test_analysis_pages import POSTS, RUNS, TOPICS, grade
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, LlmGradeFactory, TopicFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MODEL = "qwen2.5-7b-instruct"


@pytest.fixture
def partly_judged(tmp_path):
    campaign = CampaignFactory(name="arqmath3-hybrid", task=Campaign.Task.ANSWERS, primary_depth=10,
                               alternate_depth=5)
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
    items = list(campaign.pool_items.select_related("topic").order_by("topic__position", "item_id"))
    judgments_import(campaign=campaign, lines=[
        f"ada\t{item.topic.topic_id}\t{item.item_id}\t{grade(int(item.item_id[3:]))}\t"
        for item in items if rng.random() < 0.35])
    for item in items:  # the model: right two times in three, its probability spread around its grade
        truth = grade(int(item.item_id[3:]))
        said = truth if rng.random() < 0.67 else min(3, max(0, truth + rng.choice((-1, 1))))
        p = [0.1 + (0.6 if g == said else 0.15 if abs(g - said) == 1 else 0.0) for g in range(4)]
        LlmGradeFactory(topic=item.topic, campaign=campaign, item_id=item.item_id, model=MODEL, grade=said,
                        probabilities={str(g): v / sum(p) for g, v in enumerate(p)}, probability_source="logprobs")
    assert calibration_refit_request(campaign=campaign)  # no broker: fitted at once
    return campaign


def test_organizer_reads_the_runs_under_hybrid_qrels(page, live_server, partly_judged, organizer, screenshot):
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/campaigns/{partly_judged.pk}/leaderboard/")
    page.reload()  # the first view sent the scores' job, which ran in the web process (no broker)
    calibration = Calibration.objects.get(campaign=partly_judged)
    heading = page.locator("#hybrid")
    assert heading.inner_text() == f"Under hybrid qrels ({MODEL}, calibrated on {calibration.humans} judgments)"
    rows = page.locator("#hybrid-leaderboard tbody tr")
    assert rows.count() == len(RUNS)
    hybrid = [float(rows.nth(i).locator("td.hybrid").inner_text()) for i in range(rows.count())]
    assert hybrid == sorted(hybrid, reverse=True)  # best hybrid mean first
    for i in range(rows.count()):
        low, high = (float(v) for v in rows.nth(i).locator("td.interval").inner_text().strip("[]").split(", "))
        assert low <= hybrid[i] <= high
    page.evaluate("document.querySelector('#hybrid').scrollIntoView({block: 'start'})")
    screenshot(page, "leaderboard-hybrid.png")

"""An organizer opens the pools page of a campaign with built pools and sees the statistics and the planner."""
import pytest

from pooling import services
from pooling.models import Campaign
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, TopicFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_organizer_sees_pool_statistics_and_the_planner_chart(page, live_server, organizer, tmp_path, screenshot):
    campaign = CampaignFactory(name="ARQMath-3 Task 1", task=Campaign.Task.ANSWERS, primary_depth=10,
                               alternate_depth=5)
    for position, topic in enumerate(("A.1", "A.2")):
        TopicFactory(campaign=campaign, topic_id=topic, position=position)
    for run, offset, alternate in (("team-P", 0, False), ("team-A", 5, True)):
        path = tmp_path / f"{run}.tsv"
        path.write_text("".join(f"A.{t}\t{t}{i + offset}\t{i}\t{100 - i}\t{run}\n"
                                for t in (1, 2) for i in range(1, 51)))
        services.run_ingest(campaign=campaign, path=path, alternate=alternate)
    services.pool_build(campaign=campaign, judged_items={})

    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    page.click("text=Pools and planner")
    assert page.inner_text("#pool-total") == "20"
    assert "team-A" in page.inner_text("#pool-runs") and "alternate" in page.inner_text("#pool-runs")
    page.fill("#id_depths", "10, 20, 30")
    page.press("#id_depths", "Enter")
    page.wait_for_url("**depths=10*")
    assert page.locator("#plan-table tbody tr").count() == 3
    assert page.locator("#plan-chart rect").count() == 3
    screenshot(page, "pools.png")

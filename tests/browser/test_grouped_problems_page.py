"""An organizer uploads a 98,000-row run whose topics the campaign does not have: the job page reports it in one
line with the count and the lines, not a wall of identical errors."""
import pytest

from pooling import services
from tests.browser.test_organizer_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_run_wrong_on_every_row_is_reported_in_one_line(page, live_server, organizer, tmp_path, screenshot):
    campaign = services.campaign_create(name="ARQMath-3 Task 1", task="answers")
    topics = tmp_path / "topics.xml"
    topics.write_text('<Topics><Topic number="A.301"><Title>t</Title><Question>q</Question></Topic></Topics>')
    services.topics_ingest(campaign=campaign, path=topics)
    run = tmp_path / "arqmath1-run.tsv"  # an ARQMath-1 run (topics A.1-A.98) sent to an ARQMath-3 campaign
    run.write_text("".join(f"A.{t}\t{1000 * t + r}\t{r}\t{1000 - r}.5\trun\n"
                           for t in range(1, 99) for r in range(1, 1001)))

    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/runs/upload/")
    page.set_input_files("#id_file", str(run))
    page.click("button:has-text('Upload and check')")
    page.wait_for_selector(".problems", timeout=60_000)
    lines = page.locator(".problems li").all_inner_texts()
    assert lines == ["arqmath1-run.tsv: line 1: topic 'A.1' is not a topic of this campaign (98,000 like this one, on "
                     "lines 1, 2, 3, 4, 5, ..., 98000)"]
    assert "rejected: 98,000 problems, nothing was written" in page.inner_text("main")
    screenshot(page, "run-rejected-grouped.png")

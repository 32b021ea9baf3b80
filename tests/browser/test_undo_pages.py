"""An organizer in a real browser undoes mistakes: deletes a judged run (ticking the box), edits settings, and is
told why a judged campaign cannot be deleted."""
import pytest

from judging.models import Judgment
from pooling.models import Campaign
from tests.browser.test_organizer_pages import log_in
from tests.pooling.undo_data import judged  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_organizer_deletes_a_judged_run_and_edits_settings(page, live_server, organizer, judged, screenshot):  # noqa: F811
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{judged.pk}/")
    page.click("[aria-label='Delete run r3']")
    assert "Delete run r3?" in page.inner_text("h1")
    assert "2 items in 1 topic are judged" in page.inner_text("main")
    screenshot(page, "run-delete.png")
    page.click("button:has-text('Delete run r3')")  # the box is required: the browser keeps the form
    assert judged.runs.filter(name="r3").exists()
    page.check("input[name=force]")
    with page.expect_navigation():
        page.click("button:has-text('Delete run r3')")
    assert page.url == f"{live_server.url}/campaigns/{judged.pk}/"
    text = page.inner_text("main")
    assert "Run r3 was deleted (4 rows)." in text and "their judgments are kept" in text
    assert "r3" not in page.inner_text("#runs") and Judgment.objects.count() == 2

    page.click("text=Settings")
    page.fill("#id_name", "answers 2026")
    page.fill("#id_primary_depth", "2")
    screenshot(page, "campaign-settings.png")
    page.click("button:has-text('Save settings')")
    assert "primary depth would change what they hold" in page.inner_text(".problems")
    page.check("#id_force")
    with page.expect_navigation():
        page.click("button:has-text('Save settings')")
    assert page.inner_text("h1") == "answers 2026"
    assert Campaign.objects.get(pk=judged.pk).primary_depth == 2

    page.click("text=Delete campaign")
    assert "This campaign cannot be deleted" in page.inner_text("main")
    screenshot(page, "campaign-delete-refused.png")
    href = page.get_attribute("text=download its qrels", "href")
    assert page.request.get(f"{live_server.url}{href}").status == 200
    assert Campaign.objects.filter(pk=judged.pk).exists()


def test_organizer_deletes_a_campaign_and_follows_its_job(page, live_server, organizer, tmp_path, screenshot):
    from jobs.models import Job
    from pooling import services
    from tests.pooling.run_files import answers_campaign

    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    page.click("text=Delete campaign")
    assert "3 runs (18 rows)" in page.inner_text("main")
    screenshot(page, "campaign-delete.png")
    with page.expect_navigation():
        page.click("button:has-text('Delete campaign answers')")
    job = Job.objects.get(kind=Job.Kind.CAMPAIGN_DELETE)
    assert page.url == f"{live_server.url}/jobs/{job.pk}/"
    page.wait_for_selector("text=Deleted campaign answers: 2 topics, 3 runs (18 rows), 9 pool items.")
    screenshot(page, "campaign-delete-job.png")
    assert not Campaign.objects.exists()

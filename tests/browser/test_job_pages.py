"""Job pages in a real browser: a job followed live to "done" and its result in words, failures and stalled jobs
standing out in the list, and Retry on a job whose worker stopped (issues 13.11 and 14.3)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from jobs.models import Job
from jobs.runner import job_execute
from tests.browser.test_organizer_pages import log_in
from tests.pooling.run_files import answers_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_job_page_follows_the_job_to_done_and_says_what_it_did(page, live_server, organizer, tmp_path,
                                                                  screenshot):
    campaign = answers_campaign(tmp_path)
    job = Job.objects.create(kind=Job.Kind.POOL_BUILD, campaign=campaign)  # queued; no worker has it yet
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    assert page.inner_text(".status-line") == "Status: queued"
    job_execute(job_id=job.pk)  # a worker takes it; the page polls and reloads
    page.wait_for_selector(".status:text('done')")
    line = page.inner_text(".status-line")
    assert line == "Status: done — Built pools for 2 topics: 9 items."
    assert "{" not in page.inner_text("main")
    screenshot(page, "job-done.png")


def test_the_jobs_list_highlights_failures_and_a_stalled_job_is_retried(page, live_server, organizer, tmp_path,
                                                                       screenshot):
    campaign = answers_campaign(tmp_path)
    Job.objects.create(kind=Job.Kind.RUN_INGEST, campaign=campaign, status=Job.Status.FAILED,
                       params={"filename": "team-bad.tsv"}, message="rejected: 2 problems, nothing was written",
                       problems=[{"line": 2, "message": "rank 'x' is not a whole number >= 1", "file": "team-bad.tsv"}])
    heard = timezone.now() - timedelta(hours=2)  # and nobody holds it: its worker died
    stalled = Job.objects.create(kind=Job.Kind.POOL_BUILD, campaign=campaign, status=Job.Status.RUNNING,
                                 started_at=heard, attempts=1)
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/jobs/")
    failed_row = page.locator("tr.job-failed")
    assert failed_row.count() == 1 and "team-bad.tsv" in failed_row.inner_text()
    assert failed_row.evaluate("row => getComputedStyle(row).backgroundColor") != "rgba(0, 0, 0, 0)"
    assert "stalled" in page.inner_text("tr.job-stalled")
    screenshot(page, "jobs.png")

    page.goto(f"{live_server.url}/jobs/{stalled.pk}/")
    assert page.inner_text(".status-line").startswith("Status: stalled: its worker stopped answering")
    with page.expect_navigation():
        page.click("button:has-text('Retry')")
    # No broker in the tests: the retried job ran when the Retry request committed.
    page.wait_for_selector(".status:text('done')")
    assert page.inner_text(".status-line") == "Status: done — Built pools for 2 topics: 9 items."
    assert page.locator("button:has-text('Retry')").count() == 0

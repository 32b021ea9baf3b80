"""An organizer in headless Chromium sets a campaign's LLM endpoint, starts a judging job, watches its progress and
cancels it (issue 26); the key's value appears on no page."""
import threading

import pytest
from playwright.sync_api import Error as PlaywrightError

from jobs.models import Job
from llm.models import Endpoint, LlmGrade
from tests.browser.test_organizer_pages import log_in
from tests.llm.server import Answer, ChatServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SECRET = "sk-browser-5ecret-0123456789"



def settled_content(page) -> str:
    """The page's HTML once it is not navigating: a job page reloads itself when its job ends."""
    for _ in range(5):
        try:
            return page.content()
        except PlaywrightError:
            page.wait_for_load_state()
    return page.content()


def test_organizer_sets_the_endpoint_judges_and_cancels(page, live_server, organizer, answers, screenshot,
                                                        monkeypatch):
    monkeypatch.setenv("ASSESS_LLM_KEY_BROWSER", SECRET)
    release = threading.Event()

    def answer(prompt, n):
        if n >= 2:  # the third item waits until the organizer has cancelled
            release.wait(20)
        return Answer("##final score: 1")

    with ChatServer(answer) as server:
        log_in(page, live_server, "olga", "organizer-pass-1")
        page.goto(f"{live_server.url}/campaigns/{answers.pk}/")
        page.click("#llm-link")
        assert page.inner_text("h1") == "answers: LLM co-assessor"
        page.fill("#id_base_url", server.url)
        page.fill("#id_model", "llama3.1:8b-instruct")
        page.fill("#id_api_key_env", "ASSESS_LLM_KEY_BROWSER")
        page.fill("#id_concurrency", "1")
        page.fill("#id_samples", "1")
        page.select_option("#id_mode", "blind")
        with page.expect_navigation():
            page.click("button:has-text('Save the endpoint')")
        assert Endpoint.objects.get(campaign=answers).api_key_env == "ASSESS_LLM_KEY_BROWSER"
        page.fill("#id_limit_per_topic", "3")
        page.set_viewport_size({"width": 1280, "height": 1750})
        page.evaluate("window.scrollTo(0, 0)")
        screenshot(page, "llm-settings.png")
        page.set_viewport_size({"width": 1280, "height": 860})
        assert SECRET not in page.content()

        page.click("button:has-text('Start judging')", no_wait_after=True)  # the job runs inside that request
        watcher = page.context.new_page()
        for _ in range(200):
            job = Job.objects.filter(kind=Job.Kind.LLM_JUDGE).first()
            if job is not None and job.progress > 0:
                break
            watcher.wait_for_timeout(50)
        assert job is not None and job.status == Job.Status.RUNNING
        watcher.goto(f"{live_server.url}/jobs/{job.pk}/")
        watcher.wait_for_function("document.querySelector('progress').value > 0")
        assert watcher.inner_text(".status") == "running"
        screenshot(watcher, "llm-job-progress.png")
        with watcher.expect_navigation():
            watcher.click("#job-cancel button")
        assert "stops after the batch" in watcher.inner_text("main")
        # The job sees the request within seconds, though the model still keeps its last prompt waiting.
        page.wait_for_url(f"{live_server.url}/jobs/{job.pk}/", timeout=20000)
        release.set()
        job.refresh_from_db()
        assert job.status == Job.Status.CANCELLED and job.result["cancelled"]
        assert "Cancelled: stopped after judging" in page.inner_text(".message")
        assert LlmGrade.objects.filter(grade__isnull=False).count() == 2 and server.requests == 3
        assert set(server.keys) == {f"Bearer {SECRET}"}
        assert SECRET not in settled_content(page) and SECRET not in settled_content(watcher)


def test_an_unreachable_endpoint_fails_the_job_and_the_page_says_why(page, live_server, organizer, answers,
                                                                      screenshot):
    # Nothing listens on port 9 of this host: every request is refused.
    Endpoint.objects.create(campaign=answers, base_url="127.0.0.1:9/v1", model="llama3.1:8b", retries=0, timeout=5)
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/")
    page.click("#llm-link")
    page.fill("#id_topics", "A.1 A.99")
    with page.expect_navigation():
        page.click("button:has-text('Start judging')")
    assert "topic 'A.99' is not a topic of campaign 'answers'" in page.inner_text("#llm-judge .has-error")
    assert page.input_value("#id_topics") == "A.1 A.99" and not Job.objects.exists()
    page.fill("#id_topics", "A.1")
    with page.expect_navigation():
        page.click("button:has-text('Start judging')")  # the job runs inside that request
    job = Job.objects.get(kind=Job.Kind.LLM_JUDGE)
    assert job.status == Job.Status.FAILED
    assert "Commonest failures" in page.inner_text(".message") and "Connection error." in page.inner_text(".message")
    page.goto(f"{live_server.url}/campaigns/{answers.pk}/llm/")
    assert "APIConnectionError" in page.inner_text("#llm-failures")
    assert page.inner_text(f"tr[data-job='{job.pk}'] .status") == "failed"
    page.set_viewport_size({"width": 1280, "height": 1400})
    page.locator("#llm-judge").scroll_into_view_if_needed()
    page.evaluate("document.getElementById('llm-judge').scrollIntoView()")
    screenshot(page, "llm-failures.png")

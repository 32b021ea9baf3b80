"""Headless Chromium from Debian (/usr/bin/chromium) driven by Playwright; never a downloaded browser."""
import os
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; the Django ORM calls made by fixtures are
# still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    # The product must load nothing from another host.
    foreign = []
    page.on("request", lambda r: foreign.append(r.url) if not r.url.startswith(("http://localhost", "data:"))
            else None)
    # The judging page asks the server things in the background (issue 16): the test's end waits for the answers,
    # so that no request is still running in the live server while the database is emptied for the next test.
    running: set = set()
    page.on("request", lambda r: running.add(r))
    page.on("requestfinished", lambda r: running.discard(r))
    page.on("requestfailed", lambda r: running.discard(r))
    yield page
    for _ in range(400):
        if not running or page.is_closed():
            break
        page.wait_for_timeout(25)
    context.close()
    assert not foreign, f"requests to other hosts: {foreign}"


@pytest.fixture
def screenshot():
    """Saves a screenshot into $SAVE_SCREENSHOTS (docs/img for the README) when that is set."""
    target = os.environ.get("SAVE_SCREENSHOTS")

    def save(page, name: str) -> None:
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(target) / name), full_page=False)

    return save

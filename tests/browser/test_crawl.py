"""A newcomer's first day in a real browser: the demo loaded as `make demo` loads it, the pools rebuilt from the web,
then every same-site page reachable from the navigation and from links on those pages, as the organizer and as an
assessor: no 5xx, no debug page, no request to another host, no link to a page that is not there."""
import re
from collections import Counter, deque
from io import StringIO
from urllib.parse import urldefrag, urlsplit

import pytest
from django.core.management import call_command
from playwright.sync_api import Error as PlaywrightError

from pooling.models import Campaign
from workflow.demo import CAMPAIGNS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Bounds: pages per account, and pages per URL pattern (numbers in the path folded: two judging pages of 24 items,
# two topics of 100, are enough to know the kind renders).
MAX_PAGES = 300
PER_PATTERN = 2
# Never followed: logging out, and Django's admin (not part of the product's pages).
SKIP = re.compile(r"^/(logout|admin)/")
DEBUG_PAGE = ("You're seeing this error because you have", "Traceback (most recent call last)", "technical_500")


def _pattern(url: str) -> str:
    parts = urlsplit(url)
    query = "&".join(sorted(re.sub(r"=.*", "=", q) for q in parts.query.split("&") if q))
    return re.sub(r"\d+", "N", parts.path) + ("?" + query if query else "")


def _load_demo(settings, tmp_path) -> dict[str, str]:
    settings.DATA_DIR, settings.DEMO_SITE = tmp_path, True
    out = StringIO()
    call_command("load_demo", stdout=out)
    return dict(re.findall(r"^ +\w+ +user (\S+) +password (\S+)$", out.getvalue(), flags=re.M))


def _sign_in(browser, live_server, username: str, password: str):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    # Requests to other hosts, and the page's own files (CSS, scripts, MathJax's fonts) that failed to load.
    foreign = []
    context.on("request", lambda r: None if r.url.startswith((live_server.url, "data:", "blob:"))
               else foreign.append(r.url))
    context.on("response", lambda r: foreign.append(f"{r.status} {r.url}") if r.status >= 400 and
               r.request.resource_type in ("stylesheet", "script", "font", "image") else None)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("button:has-text('Log in')")
    assert not page.url.startswith(f"{live_server.url}/login/"), page.inner_text("main")
    return context, page, foreign


def _open(page, url: str):
    """The page's response, or None when the address turns out to be a download (an attachment)."""
    try:
        return page.goto(url)
    except PlaywrightError as error:
        if "Download is starting" in str(error):
            return None
        raise


def _crawl(page, live_server, start: str) -> dict:
    """Breadth first from `start`; returns the pages seen, those that failed and the links that lead nowhere."""
    seen, per_pattern, failures, broken, visited = set(), Counter(), [], [], []
    queue = deque([(f"{live_server.url}{start}", "(start)", False)])
    while queue and len(visited) < MAX_PAGES:
        url, source, download = queue.popleft()
        url = urldefrag(url).url
        path = url[len(live_server.url):]
        if url in seen or not url.startswith(live_server.url + "/") or SKIP.match(path):
            continue
        seen.add(url)
        if per_pattern[_pattern(path)] >= PER_PATTERN:
            continue
        per_pattern[_pattern(path)] += 1
        visited.append(path)
        # A download (pools, qrels, CSV) is fetched, not opened: the browser would only save it.
        response = None if download else _open(page, url)
        if response is None:
            response = page.request.get(url)
            if response.status >= 400:
                (failures if response.status >= 500 else broken).append((path, response.status, source))
            continue
        text = page.content()
        if response.status >= 500 or any(mark in text for mark in DEBUG_PAGE):
            failures.append((path, response.status, source))
            continue
        if response.status >= 400:
            broken.append((path, response.status, source))
            continue
        if "text/html" not in response.headers.get("content-type", ""):
            continue
        links = page.eval_on_selector_all("a[href]", "els => els.map(e => [e.href, e.hasAttribute('download')])")
        for href, download in links:
            if href.startswith(live_server.url) and urldefrag(href).url not in seen:
                queue.append((href, path, download))
    return {"visited": visited, "failures": failures, "broken": broken}


def test_every_page_of_the_demo_renders_for_the_organizer_and_an_assessor(browser, live_server, settings, tmp_path,
                                                                          screenshot):
    passwords = _load_demo(settings, tmp_path)
    context, page, foreign = _sign_in(browser, live_server, "organizer", passwords["organizer"])

    # The pools of both demo campaigns rebuilt from the web, as an organizer would: Task 1 has judgments already.
    for task, name in CAMPAIGNS.items():
        campaign = Campaign.objects.get(name=name)
        page.goto(f"{live_server.url}/campaigns/{campaign.pk}/pools/")
        button = page.locator("form[action$='/pools/build/'] button")
        assert button.inner_text() == ("Rebuild pools, keeping the judgments" if task == "answers" else "Rebuild pools")
        with page.expect_navigation() as navigation:
            button.click()
        assert navigation.value.status < 500 and re.search(r"/jobs/\d+/$", page.url), page.url
        assert "done" in page.inner_text(".status")

    organizer = _crawl(page, live_server, "/")
    page.goto(f"{live_server.url}/no/such/page/")
    screenshot(page, "error-404.png")
    context.close()

    context, page, assessor_foreign = _sign_in(browser, live_server, "assessor2", passwords["assessor2"])
    assessor = _crawl(page, live_server, "/")
    # With DEBUG off the static files still come from the service: the judging page's math is typeset.
    page.goto(live_server.url + next(p for p in assessor["visited"] if re.search(r"/items/\d+/$", p)))
    page.wait_for_selector("mjx-container", timeout=20000)
    page.goto(f"{live_server.url}/campaigns/")
    screenshot(page, "error-403.png")
    context.close()

    for who, crawl in (("organizer", organizer), ("assessor", assessor)):
        assert not crawl["failures"], f"{who}: pages that failed (path, status, linked from): {crawl['failures']}"
        assert not crawl["broken"], f"{who}: links to pages that are not there: {crawl['broken']}"
    assert not foreign and not assessor_foreign, f"requests to other hosts or failed: {foreign + assessor_foreign}"
    # The crawl reached the organizer's and the assessor's pages of every kind, not just a start page.
    organizer_paths = " ".join(organizer["visited"])
    for kind in ("/campaigns/", "/collections/", "/jobs/", "/pools/"):
        assert kind in organizer_paths, kind
    assert len(organizer["visited"]) > 20 and len(assessor["visited"]) > 5, (organizer["visited"],
                                                                             assessor["visited"])
    assert any(path.startswith("/assess/") for path in assessor["visited"])

"""The API's documentation page in a real browser: Swagger UI served by the service itself, for organizers only."""
import pytest

from tests.browser.test_organizer_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_api_docs_render_for_an_organizer_from_this_host_only(page, live_server, organizer, screenshot):
    blocked = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    log_in(page, live_server, "olga", "organizer-pass-1")
    with page.expect_navigation():
        page.click("header nav >> text=API docs")
    assert page.url == f"{live_server.url}/api/docs/"
    page.wait_for_selector(".swagger-ui .info .title")
    assert "Relevance assessment service API" in page.inner_text(".swagger-ui .info .title")
    page.wait_for_selector(".opblock-summary-path")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/token/" in paths and any(p.startswith("/api/campaigns/") for p in paths)
    assert not blocked, blocked
    screenshot(page, "api-docs.png")
    # The page fixture fails the test if anything was requested from another host.


def test_the_api_docs_are_for_organizers_only(client, assessor_user):
    assert client.get("/api/docs/").status_code == 302
    assert client.get("/api/docs/?script=").status_code == 302
    client.force_login(assessor_user)
    assert client.get("/api/docs/").status_code == 403
    assert client.get("/api/docs/?script=").status_code == 403


def test_the_people_page_in_a_browser_creates_and_resets_without_javascript(browser, live_server, organizer,
                                                                           assessor_user, screenshot):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, live_server, "olga", "organizer-pass-1")
        page.click("header nav >> text=People")
        page.click("summary:has-text('Create an account')")
        page.fill("#id_username", "cleo")
        with page.expect_navigation():
            page.click("button:has-text('Create account')")
        password = page.inner_text("#new-password")
        assert len(password) == 16
        screenshot(page, "people-password-once.png")
        page.click("text=Back to People")
        assert password not in page.content()
        with page.expect_navigation():
            page.click(f"#person-{assessor_user.pk} >> text=Reset password")
        assert page.inner_text("h1") == "Reset the password of ada?"
        with page.expect_navigation():
            page.click("button:has-text('Reset the password of ada')")
        assert page.inner_text("#new-password") not in ("", password)
        page.click("text=Back to People")
        screenshot(page, "people.png")
    finally:
        context.close()

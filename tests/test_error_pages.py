"""The error pages (400, 403, 404, 500, the expired form) are the site's own, in its layout with its navigation,
with DEBUG off: never Django's debug page or its bare fallbacks."""
import pytest
from django.conf import settings
from django.template import loader
from django.test import Client

pytestmark = pytest.mark.django_db

ORGANIZER_NAV = ['aria-label="main"', ">Campaigns</a>", ">Collections</a>", ">Jobs</a>"]
ASSESSOR_NAV = ['aria-label="main"', ">My assignments</a>"]


def _in_layout(response, status: int, title: str, nav: list[str]) -> str:
    assert response.status_code == status
    text = response.content.decode()
    assert f"<title>{title} · Assess</title>" in text
    assert 'href="/static/css/site.css"' in text and 'class="brand"' in text
    for link in nav:
        assert link in text
    assert "Traceback" not in text and "technical_500" not in text and "DEBUG = True" not in text
    return text


@pytest.fixture
def signed_in(client, organizer, assessor_user):
    def sign_in(who: str) -> Client:
        client.force_login(organizer if who == "organizer" else assessor_user)
        return client

    return sign_in


def test_debug_is_off_for_these_pages():
    assert settings.DEBUG is False


@pytest.mark.parametrize("who, nav", [("organizer", ORGANIZER_NAV), ("assessor", ASSESSOR_NAV)])
def test_an_unknown_address_is_the_sites_404_page_with_the_navigation(signed_in, who, nav):
    text = _in_layout(signed_in(who).get("/no/such/page/"), 404, "Page not found", nav)
    assert "<code>/no/such/page/</code>" in text


def test_a_404_for_a_visitor_offers_the_login(client):
    text = _in_layout(client.get("/no/such/page/"), 404, "Page not found", [])
    assert 'href="/login/"' in text and 'aria-label="main"' not in text


def test_an_organizer_page_is_the_sites_403_page_for_an_assessor(signed_in):
    text = _in_layout(signed_in("assessor").get("/campaigns/"), 403, "Not allowed", ASSESSOR_NAV)
    assert "not open to your account (ada)" in text


def test_an_expired_form_is_the_sites_403_page(organizer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    response = client.post("/campaigns/", {"name": "x"})
    _in_layout(response, 403, "Form expired", ORGANIZER_NAV)


@pytest.mark.urls("tests.error_urls")
@pytest.mark.parametrize("who, nav", [("organizer", ORGANIZER_NAV), ("assessor", ASSESSOR_NAV)])
def test_a_failing_page_is_the_sites_500_page_with_the_navigation(signed_in, who, nav):
    client = signed_in(who)
    client.raise_request_exception = False
    text = _in_layout(client.get("/fails/"), 500, "Server error", nav)
    assert "a bug in a view" not in text


@pytest.mark.urls("tests.error_urls")
def test_the_500_page_renders_without_the_request_when_the_navigation_fails_too(signed_in, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the database is gone")

    monkeypatch.setattr("config.errors.render", broken)
    client = signed_in("organizer")
    client.raise_request_exception = False
    text = _in_layout(client.get("/fails/"), 500, "Server error", [])
    assert 'aria-label="main"' not in text


def test_the_500_template_needs_no_context():
    text = loader.get_template("500.html").render()
    assert "Something went wrong" in text and 'href="/static/css/site.css"' in text


def test_a_bad_request_is_the_sites_400_page(client):
    _in_layout(client.get("/", HTTP_HOST="evil.example"), 400, "Bad request", [])


def test_static_files_are_served_with_debug_off(client):
    for path in ("/static/css/site.css", "/static/mathjax/es5/tex-chtml.js",
                 "/static/judging/js/mathjax-config.js"):
        response = client.get(path)
        assert response.status_code == 200, path
        response.close()


def test_a_page_whose_cache_is_down_answers_the_sites_503(client, organizer):
    # Production caches on Redis: with Redis gone, a page that reads the cache says so (503, Retry-After), in the
    # site's layout, and the API in JSON: never a 500. The session, in the database, survives it.
    import socket

    from django.test import override_settings

    from tests.factories import CampaignFactory

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    campaign = CampaignFactory()
    client.force_login(organizer)
    with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                               "LOCATION": f"redis://127.0.0.1:{closed}/0"}}):
        page = client.get(f"/campaigns/{campaign.pk}/progress/")
        api = client.get(f"/api/campaigns/{campaign.pk}/progress/")
    text = _in_layout(page, 503, "Service unavailable", ORGANIZER_NAV)
    assert "the cache (Redis) does not answer" in text and page["Retry-After"] == "30"
    assert api.status_code == 503 and api.json()["detail"].startswith("the cache (Redis) does not answer")

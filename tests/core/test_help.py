"""Help in the site (issue 22, point 10): docs/*.md of a fixed list rendered at /help/<page>/, sanitized, linked from
the pages that used to say "see docs/x.md" or "see the README"; the Swagger page links back to the site."""
import re
from pathlib import Path

import pytest
from django.template.loader import get_template

from core import help as core_help
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent.parent


def test_every_help_page_renders_with_its_links_rewritten(client, organizer):
    client.force_login(organizer)
    for page in core_help.HELP_PAGES:
        response = client.get(f"/help/{page}/")
        assert response.status_code == 200, page
        text = response.content.decode()
        assert 'id="help-text"' in text
        # No link left to a Markdown file or to docs/img: every one became a site address or plain text.
        assert not re.search(r'(href|src)="[^"]*\.md[#"]', text), page
        assert not re.search(r'src="img/', text), page
    pooling = client.get("/help/pooling/").content.decode()
    assert '<h1 id="pooling">Pooling</h1>' in pooling
    assert 'src="/help/img/pools.png"' in pooling
    # A link to code (../pooling/ranking.py) is not served here: its text stays, not the link.
    assert "../pooling/" not in pooling


def test_help_images_are_served_by_name_from_docs_img_only(client, organizer):
    client.force_login(organizer)
    response = client.get("/help/img/pools.png")
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert b"".join(response.streaming_content).startswith(b"\x89PNG")
    for address in ("/help/img/..%2Fjudging.md", "/help/img/nothing.png", "/help/img/%2Fetc%2Fpasswd",
                    "/help/architecture/", "/help/..%2FREADME/", "/help/security/"):
        assert client.get(address).status_code == 404, address


def test_help_needs_a_login_and_serves_assessors(client, assessor_user):
    response = client.get("/help/judging/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    client.force_login(assessor_user)
    assert client.get("/help/judging/").status_code == 200
    assert 'id="help-link" href="/help/judging/"' in client.get("/assess/").content.decode().replace(
        'href="/help/judging/" id="help-link"', 'id="help-link" href="/help/judging/"')


def test_help_html_is_sanitized(tmp_path, settings):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "judging.md").write_text(
        "# T\n\n<script>alert(1)</script> <img src=x onerror=alert(2)>\n\n[x](javascript:alert(3)) "
        "[y](formats.md#problems) [z](../core/help.py)\n", encoding="utf-8")
    settings.BASE_DIR = tmp_path
    html = core_help.help_html("judging")
    assert "<script" not in html and "onerror" not in html and "href=\"javascript" not in html
    assert '<a href="/help/formats/#problems">y</a>' in html
    assert "<span>z</span>" in html


def test_each_page_links_its_help_page(client, organizer):
    client.force_login(organizer)
    campaign = CampaignFactory()
    for address, page in [(f"/campaigns/{campaign.pk}/pools/", "pooling"),
                          (f"/campaigns/{campaign.pk}/runs/upload/", "formats"),
                          (f"/campaigns/{campaign.pk}/progress/", "agreement"),
                          (f"/campaigns/{campaign.pk}/leaderboard/", "evaluation"),
                          ("/people/", "accounts"), ("/help/", "index")]:
        text = client.get(address).content.decode()
        expected = "/help/" if page == "index" else f"/help/{page}/"
        assert f'<a href="{expected}" id="help-link">Help</a>' in text, address


def test_no_template_sends_the_user_to_docs_or_the_readme_as_plain_text():
    """Every "see docs/x.md" or "see the README" of a page is a link to /help/<page>/ (comments aside)."""
    offenders = []
    for path in (ROOT / "templates").rglob("*.html"):
        text = re.sub(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}|{#.*?#}", "", path.read_text(encoding="utf-8"),
                      flags=re.DOTALL)
        if re.search(r"docs/\w+\.md|\bREADME\b", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_people_and_leaderboard_link_their_help(client, organizer):
    client.force_login(organizer)
    assert 'href="/help/accounts/#api-tokens"' in client.get("/people/").content.decode()


def test_swagger_page_links_back_to_the_site(client, organizer):
    client.force_login(organizer)
    text = client.get("/api/docs/").content.decode()
    assert 'id="site-bar"' in text
    assert 'href="/campaigns/"' in text and 'href="/help/accounts/#api-tokens"' in text
    assert "swagger-ui" in text  # the package's page is still there
    assert get_template("drf_spectacular/swagger_ui.html")


def test_pointers_into_the_docs_in_help_texts_are_links_to_their_sections(client, organizer):
    text = core_help.help_pointers(
        "the order of next items (docs/pooling.md, Live order and budgets); grades <b> (docs/judging.md, Judging "
        'schemes); the scores (docs/evaluation.md); code (docs/benchmarks.md); budgets (docs/pooling.md "Live order '
        'and budgets")')
    assert text.count('<a href="/help/pooling/#live-order-and-budgets">') == 2
    assert '<a href="/help/judging/#judging-schemes">docs/judging.md, Judging schemes</a>' in text
    assert '<a href="/help/evaluation/">docs/evaluation.md</a>' in text
    assert "code (docs/benchmarks.md)" in text  # not served as help: plain text
    assert "&lt;b&gt;" in text and "<b>" not in text
    # Each anchor is a heading of its page; and the settings page shows its help texts so.
    client.force_login(organizer)
    for page, anchor in (("pooling", "live-order-and-budgets"), ("judging", "judging-schemes")):
        assert f'id="{anchor}"' in client.get(f"/help/{page}/").content.decode()
    campaign = CampaignFactory()
    settings_page = client.get(f"/campaigns/{campaign.pk}/settings/").content.decode()
    assert '<a href="/help/pooling/#live-order-and-budgets">' in settings_page

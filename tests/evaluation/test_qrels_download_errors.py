"""A qrels download the page's form (or a hand-made link) asks wrongly answers the site's 400 page naming the
problem, in the layout with the navigation and a way back (walkthrough defect: a bare text/plain 400)."""
import pytest
from django.urls import reverse

from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("query", "problem"), [
    ({"source": "robots"}, "source"),
    ({"min_relevant": "x"}, "min"),
    ({"source": "adjudicated", "round": "-1"}, "round"),
])
def test_a_bad_qrels_request_is_the_sites_400_page_with_the_problem(client, organizer, query, problem):
    campaign = CampaignFactory(name="c<1>")
    client.force_login(organizer)
    answer = client.get(reverse("evaluation:qrels", args=[campaign.pk]), query)
    page = answer.content.decode()
    assert answer.status_code == 400 and answer["Content-Type"].startswith("text/html")
    assert "<title>Bad request · Assess</title>" in page and 'aria-label="main"' in page
    problems = page.split('id="request-problems"')[1].split("</ul>")[0]
    assert problems.count("<li>") >= 1 and problem in problems.lower()
    back = reverse("evaluation:leaderboard", args=[campaign.pk])
    assert f'<a href="{back}">the qrels and leaderboard of c&lt;1&gt;</a>' in page


def test_the_400_page_without_problems_is_unchanged(client, organizer):
    from django.template import loader

    page = loader.render_to_string("400.html")
    assert "The site could not read this request" in page and "request-problems" not in page

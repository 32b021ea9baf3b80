"""The pools page's planner and per-run depth on bad input (walkthrough defect: bad depths fell back to the default
depths with the field reset, and a run depth of -3 was called "no whole number"): each refused value is named, the
field keeps what was typed, and the plan says it uses the defaults."""
import html
import re

import pytest

from pooling import services
from pooling.models import Run

pytestmark = pytest.mark.django_db


def _field(page: str, name: str) -> str:
    return html.unescape(re.search(rf'<input id="id_{name}" name="{name}" value="([^"]*)"', page).group(1))


@pytest.mark.parametrize(("depths", "problem"), [
    ("abc", "depths: abc (not a whole number). Give up to 20 whole numbers from 1 to 1000, separated by commas"),
    ("-5,0", "depths: -5 (a depth is at least 1); 0 (a depth is at least 1). Give up to 20 whole numbers from 1 to "
             "1000, separated by commas"),
    ("99999999", "depths: 99999999 (past the campaign's maximum run depth, 1000). Give up to 20 whole numbers from 1 "
                 "to 1000, separated by commas"),
    ("<script>alert(1)</script>", "depths: <script>alert(1)</sc (not a whole number). Give up to 20 whole numbers "
                                  "from 1 to 1000, separated by commas"),
    (",".join(map(str, range(1, 30))), "depths: 29 depths are too many: give up to 20 whole numbers from 1 to 1000, "
                                       "separated by commas"),
])
def test_bad_depths_are_named_and_kept_in_the_field(client, organizer, answers, depths, problem):
    client.force_login(organizer)
    answer = client.get(f"/campaigns/{answers.pk}/pools/", {"depths": depths, "seconds": "30"})
    page = answer.content.decode()
    assert answer.status_code == 200 and "<script>alert" not in page
    assert answer.context["plan_errors"] == [problem]
    assert f"<li>{html.escape(problem)}</li>" in page
    assert _field(page, "depths") == depths and _field(page, "seconds") == "30"
    assert "The plan below uses the defaults (depths 5, 10, 15" in page
    assert [r.depth for r in answer.context["plan"]] == list(range(5, 51, 5))


def test_a_refused_time_is_kept_in_its_field_and_good_depths_are_planned(client, organizer, answers):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{answers.pk}/pools/", {"depths": "7, 3", "seconds": "-1"}).content.decode()
    assert _field(page, "seconds") == "-1" and _field(page, "depths") == "3, 7"
    assert "The plan below uses the defaults (60 s per judgment)" in page


@pytest.mark.parametrize(("depth", "message"), [
    ("-3", "a pool depth is at least 1, not -3"),
    ("0", "a pool depth is at least 1, not 0"),
    ("deep", "a pool depth is a whole number, not &#x27;deep&#x27;"),
])
def test_a_run_depth_below_1_says_at_least_1(client, organizer, tmp_path, depth, message):
    campaign = services.campaign_create(name="depths", task="answers")
    topics = tmp_path / "t.xml"
    topics.write_text('<Topics><Topic number="A.1"><Title>t</Title><Question>q</Question></Topic></Topics>')
    services.topics_ingest(campaign=campaign, path=topics)
    run_file = tmp_path / "manual.tsv"
    run_file.write_text("".join(f"A.1\t{i}\t{i}\t{100 - i}\tm\n" for i in range(1, 11)))
    run = services.run_ingest(campaign=campaign, path=run_file)
    client.force_login(organizer)
    page = client.post(f"/campaigns/{campaign.pk}/runs/{run.pk}/depth/", {"depth": depth}, follow=True)
    assert message in page.content.decode() and Run.objects.get(pk=run.pk).depth is None

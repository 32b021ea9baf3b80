"""The planner trusts a measured time per judgment only from PLAN_MIN_JUDGMENTS judgments, and says which it uses."""
import pytest

from judging import services
from judging.progress import judging_time
from pooling import services as pooling_services
from pooling.models import Campaign
from pooling.selectors import PLAN_MIN_JUDGMENTS, plan_seconds_per_judgment
from tests.factories import CampaignFactory, TopicFactory
from tests.judging.fixtures import assign
from tests.pooling.run_files import ingest, task1_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def wide(tmp_path):
    """One topic pooling PLAN_MIN_JUDGMENTS + 5 posts."""
    campaign = CampaignFactory(name="wide", task=Campaign.Task.ANSWERS, primary_depth=100, alternate_depth=100)
    TopicFactory(campaign=campaign, topic_id="A.1", position=0)
    ingest(campaign, tmp_path, "r1", task1_lines("A.1", [str(100 + n) for n in range(PLAN_MIN_JUDGMENTS + 5)], "r1"))
    pooling_services.pool_build(campaign=campaign, judged_items={})
    return campaign


def judge(assignment, user, count, seconds):
    for item in assignment.topic.pool_items.order_by("position")[:count]:
        services.judgment_submit(assignment_pk=assignment.pk, item_id=item.item_id,
                                 grades=[services.GradeInput(grade="1")], user=user, active_seconds=seconds)


def planner_note(client, campaign) -> str:
    page = client.get(f"/campaigns/{campaign.pk}/pools/").content.decode()
    return page.split('<span id="plan-time">', 1)[1].split("</span>", 1)[0]


def test_a_few_judgments_leave_the_default_and_the_page_says_so(client, organizer, wide, ada):
    client.force_login(organizer)
    assert planner_note(client, wide) == ("The time per judgment starts at 60 s, the default assumption: nothing is "
                                          "judged yet; the planner uses the measured mean once 30 judgments are timed.")
    judge(assign(wide, ada, "A.1"), ada, PLAN_MIN_JUDGMENTS - 1, seconds=20)
    time = plan_seconds_per_judgment(measured=judging_time(wide))
    assert (time.seconds, time.measured, time.judgments) == (60.0, False, 29)
    assert planner_note(client, wide) == ("The time per judgment starts at 60 s, the default assumption: only 29 "
                                          "judgments measured so far, and the planner waits for 30.")
    assert 'name="seconds" value="60"' in client.get(f"/campaigns/{wide.pk}/pools/").content.decode()


def test_thirty_judgments_make_the_measured_mean_the_planners(client, organizer, wide, ada):
    judge(assign(wide, ada, "A.1"), ada, PLAN_MIN_JUDGMENTS, seconds=20)
    time = plan_seconds_per_judgment(measured=judging_time(wide))
    assert (time.seconds, time.measured, time.judgments) == (20.0, True, 30)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{wide.pk}/pools/").content.decode()
    assert 'name="seconds" value="20"' in page
    assert planner_note(client, wide) == ("The time per judgment starts at 20 s, measured from 30 judgments "
                                          "(see Progress).")
    progress = client.get(f"/campaigns/{wide.pk}/progress/").content.decode()
    assert "measured from 30 judgments" in progress

"""Where people find the RAG pages (docs/nuggets.md, "The workflow of a RAG track in the service"): an answers
campaign's tabs link its nugget banks and support assignments; the assessor's home page links "My support
assignments" once they have one."""
import pytest

from nuggets.services.support import support_assign, support_withdraw
from tests.nuggets.support_world import make_world

pytestmark = pytest.mark.django_db


def test_an_answers_campaigns_tabs_link_nuggets_and_support(client, organizer, answers, formulas):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{answers.pk}/").content.decode()
    assert f'href="/campaigns/{answers.pk}/nuggets/"' in page and ">Nuggets</a>" in page
    assert f'href="/campaigns/{answers.pk}/support/"' in page and ">Support</a>" in page
    leaderboard = client.get(f"/campaigns/{answers.pk}/leaderboard/").content.decode()
    assert f'href="/campaigns/{answers.pk}/nuggets/"' in leaderboard
    # A formulas campaign has no generated answers: no such tabs.
    other = client.get(f"/campaigns/{formulas.pk}/").content.decode()
    assert "/nuggets/" not in other and ">Support</a>" not in other


def test_the_assessors_home_links_their_support_assignments_once_they_have_one(client, assessor_user, answers):
    client.force_login(assessor_user)
    assert "My support assignments" not in client.get("/assess/").content.decode()
    world = make_world(answers)
    assignment = support_assign(campaign=world.campaign, topic=world.topic, assessor=assessor_user)[0]
    home = client.get("/assess/").content.decode()
    assert 'href="/assess/support/"' in home and "My support assignments" in home
    support_withdraw(assignment=assignment)
    assert "My support assignments" not in client.get("/assess/").content.decode()

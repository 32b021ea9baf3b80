"""Close and withdraw ask first, also without JavaScript (issue 13.12); downloads are named without spaces and
counts read "1 assignment" (issue 13.13)."""
import pytest

from core.downloads import attachment, download_name
from judging.models import Assignment
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


def test_withdraw_and_close_ask_first_and_change_nothing_until_confirmed(client, organizer, answers, ada):
    a = assign(answers, ada, "A.1")
    client.force_login(organizer)
    page = client.get(f"/campaigns/{answers.pk}/assignments/").content.decode()
    withdraw = f"/campaigns/{answers.pk}/assignments/{a.pk}/withdraw/"
    close = f"/campaigns/{answers.pk}/topics/{a.topic.pk}/close/"
    assert f'href="{withdraw}"' in page and f'href="{close}"' in page   # links to the confirmation pages

    page = client.get(withdraw).content.decode()
    assert "Withdraw A.1 from ada?" in page and "has judged nothing on this topic yet" in page
    page = client.get(close).content.decode()
    assert "Close topic A.1?" in page and "1 open assignment of this topic becomes read-only" in page
    a.refresh_from_db()
    assert a.closed_at is None and a.withdrawn_at is None

    response = client.post(close, {"closed": "1"}, follow=True)
    assert "Topic A.1 closed (1 assignment)." in response.content.decode()
    response = client.post(withdraw, follow=True)
    assert "removed (nothing was judged yet)" in response.content.decode()
    assert not Assignment.objects.filter(pk=a.pk).exists()


def test_one_assignment_is_one_assignment(client, organizer, answers, ada):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{answers.pk}/assignments/", {
        "action": "assign", "assessors": [ada.pk], "topics": ["A.1"], "kind": "official"}, follow=True)
    assert "1 assignment created." in response.content.decode()
    response = client.post(f"/campaigns/{answers.pk}/assignments/", {
        "action": "assign", "assessors": [ada.pk], "topics": ["A.1", "A.2"], "kind": "official"}, follow=True)
    assert "1 assignment created (1 was already assigned)." in response.content.decode()


def test_the_assignment_grid_marks_topics_already_assigned(client, organizer, answers, ada):
    assign(answers, ada, "A.2")
    client.force_login(organizer)
    page = client.get(f"/campaigns/{answers.pk}/assignments/").content.decode()
    assert page.count('class="check assigned"') == 1 and "assigned: ada" in page


def test_download_names_have_no_spaces():
    assert download_name("ARQMath-3 Task 1", "qrels", extension="txt") == "ARQMath-3_Task_1-qrels.txt"
    assert download_name("agreement", "a \"b\"\n/c", "", "1", extension="csv") == "agreement-a_b_-c-1.csv"
    assert attachment("My campaign", "pools", extension="tsv") == 'attachment; filename="My_campaign-pools.tsv"'


def test_the_qrels_download_of_a_campaign_with_spaces_in_its_name(client, organizer, answers):
    answers.name = "ARQMath 2026 answers"
    answers.save()
    client.force_login(organizer)
    response = client.get(f"/campaigns/{answers.pk}/qrels.txt")
    assert response["Content-Disposition"] == 'attachment; filename="ARQMath_2026_answers-qrels.txt"'

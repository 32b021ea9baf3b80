"""Deleting a topic while nothing is judged on it (issue 22 point 5): the services, the page and the API."""
import pytest
from rest_framework.test import APIClient

from ir.problems import InputError
from judging import services as assessor_services
from judging.models import Assignment, ItemVisit, Judgment
from pooling import services
from pooling.models import AnswerText, PoolInstance, PoolItem, Run, RunAnswer, RunEntry, Topic
from tests.judging.fixtures import assign
from tests.pooling.undo_data import token_client

pytestmark = pytest.mark.django_db


def state(campaign) -> tuple:
    """What a topic delete may change: topics, pool items, run rows and the runs' counts, assignments."""
    return (sorted(campaign.topics.values_list("topic_id", flat=True)),
            sorted(PoolItem.objects.filter(campaign=campaign).values_list("topic__topic_id", "item_id")),
            sorted(RunEntry.objects.filter(run__campaign=campaign).values_list("topic_id", "item_id")),
            sorted(campaign.runs.values_list("name", "row_count", "topic_count")),
            Assignment.objects.filter(campaign=campaign).count())


def judge(campaign, user, topic_id: str, item_id: str) -> Assignment:
    assignment = assign(campaign, user, topic_id)
    assessor_services.judgment_submit(assignment_pk=assignment.pk, item_id=item_id, user=user,
                                      grades=[assessor_services.GradeInput(grade="2")])
    return assignment


# --- the services --------------------------------------------------------------------------------------------------

def test_deleting_a_topic_nobody_judged_takes_its_pool_items_run_rows_and_empty_assignments(answers, ada):
    a1 = answers.topics.get(topic_id="A.1")
    assign(answers, ada, "A.2")  # given, never opened
    contents = assessor_services.topic_delete(campaign=answers, topic_id="A.2")
    assert (contents.pool_items, contents.run_rows, contents.runs) == (2, 2, 1)
    topics, pool, rows, runs, assignments = state(answers)
    assert topics == ["A.1"] and assignments == 0
    assert pool == [("A.1", "10"), ("A.1", "11"), ("A.1", "12")]  # A.1's pool as it was: no rebuild
    assert rows == [(a1.pk, "10"), (a1.pk, "11"), (a1.pk, "12")]
    assert runs == [("r1", 3, 1)]  # the run stays, counting its rows and topics left


def test_a_judged_topic_is_kept_and_nothing_changes(answers, ada):
    judge(answers, ada, "A.1", "10")
    before = state(answers)
    with pytest.raises(InputError, match=r"topic A.1 has judging work \(1 judged items, 1 items shown to assessors\) "
                                         r"and is kept"):
        assessor_services.topic_delete(campaign=answers, topic_id="A.1")
    assert state(answers) == before and Judgment.objects.count() == 1


def test_a_topic_shown_to_an_assessor_is_kept(answers, ada):
    assignment = assign(answers, ada, "A.2")
    assessor_services.item_visit(assignment=assignment, item_id="20")
    before = state(answers)
    with pytest.raises(InputError, match=r"\(0 judged items, 1 items shown to assessors\)"):
        assessor_services.topic_delete(campaign=answers, topic_id="A.2")
    assert state(answers) == before and ItemVisit.objects.count() == 1


def test_another_topics_judgments_do_not_keep_a_topic(answers, ada):
    judge(answers, ada, "A.1", "10")
    assessor_services.topic_delete(campaign=answers, topic_id="A.2")
    assert state(answers)[0] == ["A.1"] and Judgment.objects.count() == 1


def test_pooling_refuses_a_topic_it_is_told_is_judged(answers):
    """Pooling's own service, told what is judged as its other undo services are, keeps a judged topic too."""
    a1 = answers.topics.get(topic_id="A.1")
    before = state(answers)
    with pytest.raises(InputError, match=r"topic A.1 has judgments \(1 judged items\)"):
        services.topic_delete(campaign=answers, topic_id="A.1", judged_items={a1.pk: {"10"}})
    with pytest.raises(InputError, match="topic 'A.9' is not a topic of campaign 'answers'"):
        services.topic_delete(campaign=answers, topic_id="A.9", judged_items={})
    assert state(answers) == before


def test_a_formula_topic_goes_with_its_instances(formulas):
    assessor_services.topic_delete(campaign=formulas, topic_id="B.1")
    assert not PoolItem.objects.filter(campaign=formulas).exists() and not PoolInstance.objects.exists()
    assert formulas.runs.get().row_count == 0


def test_a_task3_topic_goes_with_its_answers(task3):
    assessor_services.topic_delete(campaign=task3, topic_id="A.2")
    assert sorted(AnswerText.objects.values_list("topic__topic_id", flat=True)) == ["A.1", "A.1"]
    assert set(RunAnswer.objects.values_list("topic__topic_id", flat=True)) == {"A.1"}
    assert {r.name: r.row_count for r in Run.objects.filter(format=Run.Format.ARQMATH_TASK3)} == {
        "team-task3-gpt-auto-both-generate-P": 1, "other-task3-se-auto-both-extract-A": 1}


# --- the page ------------------------------------------------------------------------------------------------------

def test_the_campaign_page_links_each_topics_delete(client, organizer, answers):
    client.force_login(organizer)
    html = client.get(f"/campaigns/{answers.pk}/").content.decode()
    a2 = answers.topics.get(topic_id="A.2")
    assert f'href="/campaigns/{answers.pk}/topics/{a2.pk}/delete/" aria-label="Delete topic A.2"' in html


def test_deleting_a_topic_asks_first_then_deletes_and_lands_on_the_campaign(client, organizer, answers):
    client.force_login(organizer)
    url = f"/campaigns/{answers.pk}/topics/{answers.topics.get(topic_id='A.2').pk}/delete/"
    html = client.get(url).content.decode()
    assert "Delete topic A.2?" in html and "its 2 pool items" in html and "its 2 rows in 1 run " in html
    assert Topic.objects.filter(topic_id="A.2").exists()  # a GET deletes nothing
    response = client.post(url, follow=True)
    assert response.redirect_chain == [(f"/campaigns/{answers.pk}/", 302)]
    assert "Topic A.2 was deleted (2 pool items, 2 run rows)." in response.content.decode()
    assert state(answers)[0] == ["A.1"]


def test_a_judged_topics_page_says_why_it_is_kept_and_its_post_changes_nothing(client, organizer, answers, ada):
    judge(answers, ada, "A.1", "10")
    before = state(answers)
    client.force_login(organizer)
    url = f"/campaigns/{answers.pk}/topics/{answers.topics.get(topic_id='A.1').pk}/delete/"
    html = client.get(url).content.decode()
    assert "This topic cannot be deleted" in html and "Delete topic A.1</button>" not in html
    response = client.post(url)
    assert response.status_code == 400 and "Nothing was deleted" in response.content.decode()
    assert state(answers) == before


def test_assessors_may_not_delete_topics(client, ada, answers):
    client.force_login(ada)
    url = f"/campaigns/{answers.pk}/topics/{answers.topics.get(topic_id='A.2').pk}/delete/"
    assert client.get(url).status_code == 403 and client.post(url).status_code == 403
    assert state(answers)[0] == ["A.1", "A.2"]


def test_a_topic_of_another_campaign_is_not_found(client, organizer, answers, formulas):
    client.force_login(organizer)
    other = formulas.topics.get().pk
    assert client.post(f"/campaigns/{answers.pk}/topics/{other}/delete/").status_code == 404
    assert formulas.topics.exists()


# --- the API -------------------------------------------------------------------------------------------------------

def test_the_api_deletes_a_topic_with_204(organizer, answers):
    response = token_client(organizer).delete(f"/api/campaigns/{answers.pk}/topics/A.2/")
    assert response.status_code == 204 and state(answers)[0] == ["A.1"]


def test_the_api_answers_400_with_the_reason_for_a_judged_topic(organizer, answers, ada):
    judge(answers, ada, "A.1", "10")
    before = state(answers)
    response = token_client(organizer).delete(f"/api/campaigns/{answers.pk}/topics/A.1/")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        "topic A.1 has judging work (1 judged items, 1 items shown to assessors) and is kept: nothing an assessor "
        "did is ever deleted. Close the topic instead"]
    assert state(answers) == before


def test_the_api_answers_404_for_an_unknown_topic_or_campaign(organizer, answers, formulas):
    client = token_client(organizer)
    assert client.delete(f"/api/campaigns/{answers.pk}/topics/A.9/").status_code == 404
    assert client.delete(f"/api/campaigns/{answers.pk}/topics/B.1/").status_code == 404  # another campaign's
    assert client.delete("/api/campaigns/987654/topics/A.1/").status_code == 404
    assert formulas.topics.exists()


def test_the_api_refuses_assessors_with_403(ada, answers):
    response = token_client(ada).delete(f"/api/campaigns/{answers.pk}/topics/A.2/")
    assert response.status_code == 403 and state(answers)[0] == ["A.1", "A.2"]
    assert APIClient().delete(f"/api/campaigns/{answers.pk}/topics/A.2/").status_code == 401


def test_pooling_keeps_a_topic_that_still_has_an_assignment(answers, ada):
    """An assignment its caller did not remove (one made meanwhile) keeps the topic: a refusal, not a 500."""
    assign(answers, ada, "A.2")
    before = state(answers)
    with pytest.raises(InputError, match="topic A.2 was assigned meanwhile and is kept"):
        services.topic_delete(campaign=answers, topic_id="A.2", judged_items={})
    assert state(answers) == before

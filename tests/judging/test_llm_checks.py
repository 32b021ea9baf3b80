"""Disagreements to people (issue 26, point 7): the review lists the items where the LLM and the official judgment
differ on relevance, relevant-by-LLM first; an organizer sends chosen ones to an assessor as a check assignment, who
then judges just those items; the check's grades show beside the item and never reach the official qrels."""
import re

import pytest

from agreement.checks import check_items_send
from ir.problems import InputError
from judging import selectors, services
from judging.models import Assignment, CheckItem, Judgment
from pooling.models import PoolItem
from tests.commands import command_output
from tests.factories import LlmGradeFactory, UserFactory

pytestmark = pytest.mark.django_db

TOPIC = {"10": "A.1", "11": "A.1", "12": "A.1", "20": "A.2", "99": "A.2"}
# Official: 10 High, 11 Medium (relevant), 12 Not relevant, 20 Low. The model: 10 High (agrees), 11 Low (says not
# relevant), 12 Medium (says relevant), 20 High (says relevant).
OFFICIAL = {"10": "3", "11": "2", "12": "0", "20": "1"}
LLM = {"10": 3, "11": 1, "12": 2, "20": 3}


@pytest.fixture
def review(answers, ada, bob):
    services.judgments_import(campaign=answers, lines=[f"ada\t{TOPIC[i]}\t{i}\t{g}\t\tofficial"
                                                       for i, g in OFFICIAL.items()])
    topics = {t.topic_id: t for t in answers.topics.all()}
    for item, grade in LLM.items():
        LlmGradeFactory(topic=topics[TOPIC[item]], item_id=item, grade=grade)
    return answers


def listed(page: str) -> list[tuple[str, str, str]]:
    table = re.search(r'<table class="data" id="llm-disagreement-list">.*?</table>', page, re.S).group(0)
    return re.findall(r'<tr class="(llm-[a-z-]+)">\s*<td><input[^>]*></td>\s*<td>([^<]*)</td><td>([^<]*)</td>',
                      table)


def test_the_review_lists_llm_disagreements_relevant_by_llm_first(review, client, organizer):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{review.pk}/disagreements/").content.decode()
    assert listed(page) == [("llm-relevant", "A.1", "12"), ("llm-relevant", "A.2", "20"),
                            ("llm-not-relevant", "A.1", "11")]
    assert '<span class="count">3 items</span>' in page
    one_topic = client.get(f"/campaigns/{review.pk}/disagreements/", {"topic": "A.2"}).content.decode()
    assert listed(one_topic) == [("llm-relevant", "A.2", "20")]


def test_sending_items_makes_a_check_assignment_that_judges_just_them(review, client, organizer, bob):
    client.force_login(organizer)
    url = f"/campaigns/{review.pk}/disagreements/llm-checks/"
    response = client.post(url, {"units": ["A.1\t12\t", "A.1\t11\t", "A.2\t20\t"], "assessor": bob.pk}, follow=True)
    assert "Sent 3 items to bob as a check assignment (2 topics)." in response.content.decode()
    checks = Assignment.objects.filter(assessor=bob, kind="check").order_by("topic__position")
    assert [a.topic.topic_id for a in checks] == ["A.1", "A.2"]
    assert set(CheckItem.objects.filter(assignment=checks[0]).values_list("item_id", flat=True)) == {"11", "12"}
    # Sent twice (a double submit): nothing doubles.
    again = client.post(url, {"units": ["A.1\t12\t"], "assessor": bob.pk}, follow=True).content.decode()
    assert "Sent 0 items" in again and "1 had been sent already" in again
    assert CheckItem.objects.count() == 3
    # bob's check of A.1 holds two items of the three pooled, and the next item is one of them, never 10.
    a1 = checks[0]
    assert selectors.assignment_progress(assignment=a1).total == 2
    first = selectors.next_item(assignment=a1)
    assert first is not None and first.item_id in {"11", "12"}
    after = selectors.next_item(assignment=a1, excluding=[first.item_id])
    assert after is not None and {first.item_id, after.item_id} == {"11", "12"}
    assert selectors.next_item(assignment=a1, excluding=["11", "12"]) is None
    # The judging page of an item that was not sent is not bob's to open.
    client.force_login(bob)
    ten = PoolItem.objects.get(topic=a1.topic, item_id="10").position
    assert client.get(f"/assess/assignments/{a1.pk}/items/{ten}/").status_code == 404
    opened = client.get(f"/assess/assignments/{a1.pk}/")
    assert opened.status_code == 302 and f"/items/{first.position}/" in opened["Location"]


def test_check_grades_show_in_the_review_and_stay_out_of_the_qrels(review, client, organizer, bob):
    sent = check_items_send(campaign=review, assessor=bob, items=[("A.1", "12")])
    [check] = sent.assignments
    services.judgment_submit(assignment_pk=check.pk, item_id="12", user=bob, grades=[services.GradeInput(grade="1")])
    assert Judgment.objects.get(assignment=check).grade == "1"
    qrels, _ = command_output("export_qrels", "--campaign", "answers")
    assert "A.1\t0\t12\t0" in qrels.splitlines()  # the official grade, not the check's
    client.force_login(organizer)
    page = client.get(f"/campaigns/{review.pk}/disagreements/").content.decode()
    row = re.search(r'<tr class="llm-relevant">.*?</tr>', page, re.S).group(0)
    assert "A.1" in row and "bob: <span class=\"grade g1\">1</span>" in row  # checked
    assert "<td>bob</td>" in row  # sent to


def test_items_not_in_the_pools_or_no_items_are_refused(review, bob):
    with pytest.raises(InputError, match="not in the pool of topic A.1"):
        check_items_send(campaign=review, assessor=bob, items=[("A.1", "12"), ("A.1", "77")])
    with pytest.raises(InputError, match="choose the items"):
        check_items_send(campaign=review, assessor=bob, items=[])
    assert not Assignment.objects.filter(kind="check").exists()


def test_the_form_says_what_is_missing_and_sends_nothing(review, client, organizer, bob):
    client.force_login(organizer)
    url = f"/campaigns/{review.pk}/disagreements/llm-checks/"
    page = client.post(url, {"assessor": bob.pk}, follow=True).content.decode()
    assert "Nothing was sent: choose the items to send" in page
    page = client.post(url, {"units": ["A.1\t77\t"], "assessor": bob.pk}, follow=True).content.decode()
    assert "Nothing was sent: item 77 is not in the pool of topic A.1" in page
    assert not CheckItem.objects.exists()


def test_assessors_cannot_send_checks(review, client, bob):
    client.force_login(UserFactory(username="cy"))
    response = client.post(f"/campaigns/{review.pk}/disagreements/llm-checks/",
                           {"units": ["A.1\t12\t"], "assessor": bob.pk})
    assert response.status_code == 403
    assert not CheckItem.objects.exists()


def test_the_review_of_a_campaign_without_llm_grades_has_no_llm_section(answers, client, organizer):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{answers.pk}/disagreements/").content.decode()
    assert 'id="llm-disagreements"' not in page


def test_a_check_assignment_is_not_made_by_assigning_or_importing(review, bob, tmp_path):
    from tests.commands import rejected

    assert any("made by sending items" in line for line in rejected(
        "assign_topics", "--campaign", "answers", "--assessor", "bob", "--kind", "check", "A.1"))
    (tmp_path / "j.tsv").write_text("bob\tA.1\t10\t3\t\tcheck\n")
    assert any("made by sending items" in line for line in rejected(
        "import_judgments", "--campaign", "answers", str(tmp_path / "j.tsv")))
    assert not Assignment.objects.filter(kind="check").exists()

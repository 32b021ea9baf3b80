"""What a submit records (SPEC 5.3): the visit's first-shown time on each new judgment, active time added once per
change, completion kept from the first time, one revision per change; and numbers past the database's integers
find nothing in the API either."""
import pytest

from judging import services
from judging.models import ItemVisit, Judgment, JudgmentRevision
from judging.services import GradeInput
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


def submit(assignment, item_id, *grades, active=7.5):
    return services.judgment_submit(assignment_pk=assignment.pk, item_id=item_id, grades=list(grades),
                                    user=assignment.assessor, active_seconds=active)


def test_a_day_of_answers_keeps_times_active_seconds_and_revisions(answers, ada):
    a = assign(answers, ada, "A.1")
    services.item_visit(assignment=a, item_id="10")
    shown = ItemVisit.objects.get(assignment=a, item_id="10").first_shown_at
    for _ in range(2):                                   # the second day is a resubmission: nothing changes
        submit(a, "10", GradeInput("3"))
        submit(a, "11", GradeInput("DK", comment="  unsure "))   # never shown: shown at its submission
    visits = {v.item_id: v for v in ItemVisit.objects.filter(assignment=a)}
    assert {k: (v.active_seconds, v.completed_at is not None) for k, v in visits.items()} == {
        "10": (7.5, True), "11": (7.5, True)}
    assert visits["10"].first_shown_at == shown
    judgments = {j.item_id: j for j in Judgment.objects.filter(assignment=a)}
    assert [(j.grade, j.comment, j.revision, j.post_id) for j in judgments.values()] == [
        ("3", "", 1, "10"), ("DK", "unsure", 1, "11")]
    for item_id, judgment in judgments.items():
        assert judgment.first_shown_at == visits[item_id].first_shown_at
        assert judgment.submitted_at == judgment.updated_at == visits[item_id].completed_at
    revisions = JudgmentRevision.objects.filter(judgment__assignment=a).select_related("judgment")
    assert [(r.judgment.item_id, r.number, r.old_grade, r.grade, r.comment, r.active_seconds, r.source,
             r.at == r.judgment.submitted_at) for r in revisions] == [
        ("10", 1, "", "3", "", 7.5, "web", True), ("11", 1, "", "DK", "unsure", 7.5, "web", True)]


def test_a_revision_keeps_the_old_value_and_the_first_completion(answers, ada):
    a = assign(answers, ada, "A.1")
    submit(a, "10", GradeInput("3"), active=5)
    completed = ItemVisit.objects.get(assignment=a, item_id="10").completed_at
    result = submit(a, "10", GradeInput("1", comment="on second thought"), active=4)
    assert (result.revised, result.created) == (1, 0)
    visit = ItemVisit.objects.get(assignment=a, item_id="10")
    assert visit.completed_at == completed and visit.active_seconds == 9
    judgment = Judgment.objects.get(assignment=a)
    assert (judgment.grade, judgment.revision) == ("1", 2) and judgment.updated_at > judgment.submitted_at
    assert list(judgment.revisions.values_list("number", "old_grade", "grade", "comment")) == [
        (1, "", "3", ""), (2, "3", "1", "on second thought")]


def test_a_formula_is_complete_once_every_selected_instance_is_judged(formulas, ada):
    a = assign(formulas, ada, "B.1")
    first = submit(a, "100", GradeInput("3", formula_id="1"))
    assert first.complete is False
    assert ItemVisit.objects.get(assignment=a, item_id="100").completed_at is None
    second = submit(a, "100", GradeInput("3", formula_id="1"), GradeInput("1", formula_id="2"))
    assert (second.created, second.unchanged, second.complete) == (1, 1, True)
    visit = ItemVisit.objects.get(assignment=a, item_id="100")
    assert visit.completed_at is not None and visit.active_seconds == 15
    assert sorted(Judgment.objects.values_list("formula_id", "post_id")) == [("1", "20"), ("2", "30")]
    assert JudgmentRevision.objects.count() == 2


def test_the_api_finds_no_assignment_past_the_database_s_integers(client, answers, ada):
    assign(answers, ada, "A.1")
    client.force_login(ada)
    huge = 2**70
    body = {"assignment": huge, "item_id": "10", "grades": [{"grade": "3"}]}
    assert client.post("/api/judgments/", body, content_type="application/json").status_code == 404
    assert client.get(f"/api/assignments/{huge}/").status_code == 404
    assert client.get(f"/api/assignments/{huge}/next/").status_code == 404
    assert not Judgment.objects.exists()


def test_continue_after_a_position_of_thousands_of_digits_opens_the_first_item(client, answers, ada):
    a = assign(answers, ada, "A.1")
    client.force_login(ada)
    first = a.topic.pool_items.order_by("position").first()
    response = client.get(f"/assess/assignments/{a.pk}/?after={'9' * 5000}")
    assert response.status_code == 302
    assert response["Location"] == f"/assess/assignments/{a.pk}/items/{first.position}/"
    assert client.get(f"/assess/assignments/{a.pk}/items/{'9' * 5000}/").status_code == 404

"""import_judgments in bulk (issue 24): as many queries for 200 lines as for 10, a bad line anywhere changes nothing
and is named, and what it writes is what the judging page writes (revisions, visits, complete items)."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from judging import selectors, services
from judging.models import Assignment, ItemVisit, Judgment, JudgmentRevision
from pooling.models import PoolItem
from tests.commands import rejected
from tests.factories import CampaignFactory, TopicFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def wide(db):
    """Campaign "wide": topics T.1 and T.2, each pooling posts 1 to 200."""
    campaign = CampaignFactory(name="wide")
    for position, topic_id in enumerate(("T.1", "T.2")):
        topic = TopicFactory(campaign=campaign, topic_id=topic_id, position=position)
        PoolItem.objects.bulk_create(PoolItem(campaign=campaign, topic=topic, item_id=str(n), position=n)
                                     for n in range(1, 201))
    return campaign


def lines(assessor: str, topic_id: str, count: int, grade: str = "2") -> list[str]:
    return [f"{assessor}\t{topic_id}\t{n}\t{grade}\t" for n in range(1, count + 1)]


def test_an_import_of_200_lines_takes_as_many_queries_as_one_of_10(wide):
    with CaptureQueriesContext(connection) as ten:
        services.judgments_import(campaign=wide, lines=lines("ada", "T.1", 10))
    with CaptureQueriesContext(connection) as two_hundred:
        result = services.judgments_import(campaign=wide, lines=lines("bob", "T.2", 200))
    assert (result.created, result.new_assignments, result.new_accounts) == (200, 1, ["bob"])
    assert len(two_hundred) == len(ten)
    # Revising 200 judgments takes no more queries than revising 10.
    with CaptureQueriesContext(connection) as ten:
        services.judgments_import(campaign=wide, lines=lines("ada", "T.1", 10, grade="3"))
    with CaptureQueriesContext(connection) as two_hundred:
        result = services.judgments_import(campaign=wide, lines=lines("bob", "T.2", 200, grade="3"))
    assert result.revised == 200
    assert len(two_hundred) == len(ten)


@pytest.mark.parametrize(("bad", "message"), [
    ("carl\tT.9\t5\t2\t", "topic 'T.9' is not a topic of campaign 'wide'"),
    ("carl\tT.1\t5\t4\t", "'4' is not a grade: use 3, 2, 1, 0, SF or DK"),
    ("carl\tT.1\t777\t2\t", "post 777 is not in the pool of topic T.1"),
])
def test_a_bad_line_in_the_middle_changes_nothing_and_is_named(wide, tmp_path, django_user_model, bad, message):
    services.judgments_import(campaign=wide, lines=lines("ada", "T.1", 200))
    before = sorted(Judgment.objects.values_list("item_id", "grade", "revision"))
    path = tmp_path / "j.tsv"
    # ada revises all 200, carl (a new account) judges T.2: line 101 is the bad one.
    path.write_text("\n".join(lines("ada", "T.1", 100, grade="0") + [bad] + lines("carl", "T.2", 99)) + "\n")
    outside = ["j.tsv: 1 line names items outside the pools: choose to skip them or to add them to the pools (on "
               "the form, or import_judgments --outside skip|add)"] if "pool" in message else []
    assert rejected("import_judgments", "--campaign", "wide", str(path)) == [f"j.tsv:line 101: {message}", *outside]
    assert sorted(Judgment.objects.values_list("item_id", "grade", "revision")) == before
    assert JudgmentRevision.objects.count() == 200 and ItemVisit.objects.count() == 200
    assert list(Assignment.objects.values_list("assessor__username", flat=True)) == ["ada"]
    assert not django_user_model.objects.filter(username="carl").exists()


def test_an_import_writes_revisions_and_visits_as_the_judging_page_does(answers, ada):
    a = services.assignments_create(campaign=answers, assessors=[ada], topic_ids=["A.1"]).created[0]
    services.item_visit(assignment=a, item_id="11")
    shown = ItemVisit.objects.get(item_id="11").first_shown_at
    services.judgments_import(campaign=answers, lines=["ada\tA.1\t10\t3\t", "ada\tA.1\t11\t1\t"])
    result = services.judgments_import(campaign=answers, lines=["ada\tA.1\t10\t3\t", "ada\tA.1\t11\t0\tread again"])
    assert (result.created, result.revised, result.unchanged, result.new_assignments) == (0, 1, 1, 0)
    judgment = Judgment.objects.get(item_id="11")
    assert (judgment.grade, judgment.comment, judgment.revision, judgment.first_shown_at) == ("0", "read again", 2,
                                                                                              shown)
    assert list(JudgmentRevision.objects.filter(judgment=judgment).values_list(
        "number", "old_grade", "grade", "comment", "user__username", "source")) == [
        (1, "", "1", "", "ada", "import"), (2, "1", "0", "read again", "ada", "import")]
    assert set(ItemVisit.objects.filter(completed_at__isnull=False).values_list("item_id", flat=True)) == {"10", "11"}
    assert selectors.assignment_progress(assignment=a).done == 2


def test_a_formula_is_complete_once_every_selected_instance_is_imported(formulas, ada):
    def complete() -> dict[str, bool]:
        return {v.item_id: v.completed_at is not None for v in ItemVisit.objects.all()}

    services.judgments_import(campaign=formulas, lines=["ada\tB.1\t1\t3\t", "ada\tB.1\t3\t0\t"])
    assert complete() == {"100": False, "300": True}  # 100 has a second instance, 2
    services.judgments_import(campaign=formulas, lines=["ada\tB.1\t2\t1\t"])
    assert complete() == {"100": True, "300": True}


def test_one_import_into_a_new_assignment_and_one_with_a_visit_keeps_each_visit(answers, ada, django_user_model):
    # The new assignment's visits are copied straight in; the existing one's visit (the page showed item 11) is kept.
    a = services.assignments_create(campaign=answers, assessors=[ada], topic_ids=["A.1"]).created[0]
    services.item_visit(assignment=a, item_id="11")
    shown = ItemVisit.objects.get(assignment=a, item_id="11").first_shown_at
    result = services.judgments_import(campaign=answers, lines=["ada\tA.1\t11\t1\t", "bob\tA.2\t20\t2\t",
                                                                "bob\tA.2\t99\t0\t"])
    assert (result.created, result.new_assignments, result.new_accounts) == (3, 1, ["bob"])
    visits = {(v.assignment.assessor.username, v.item_id): v for v in ItemVisit.objects.select_related(
        "assignment__assessor")}
    assert sorted(visits) == [("ada", "11"), ("bob", "20"), ("bob", "99")]
    assert all(v.completed_at is not None for v in visits.values())
    assert visits[("ada", "11")].first_shown_at == shown
    assert Judgment.objects.get(assignment=a, item_id="11").first_shown_at == shown
    bob = Judgment.objects.get(assignment__assessor__username="bob", item_id="20")
    assert bob.first_shown_at == visits[("bob", "20")].first_shown_at == visits[("bob", "20")].completed_at


def test_an_import_into_a_withdrawn_assignment_given_back_keeps_its_visits(answers, ada):
    # Given back, the assignment has its judgments and visits still: they are revised and kept, not made again.
    a = services.assignments_create(campaign=answers, assessors=[ada], topic_ids=["A.1"]).created[0]
    services.judgment_submit(assignment_pk=a.pk, item_id="10", user=ada, grades=[services.GradeInput(grade="2")])
    shown = ItemVisit.objects.get(assignment=a, item_id="10").first_shown_at
    assert services.assignment_withdraw(assignment=a) == "withdrawn"
    result = services.judgments_import(campaign=answers, lines=["ada\tA.1\t10\t3\t", "ada\tA.1\t11\t1\t"])
    assert (result.created, result.revised, result.new_assignments) == (1, 1, 1)
    assert list(Assignment.objects.values_list("pk", "withdrawn_at")) == [(a.pk, None)]
    assert ItemVisit.objects.get(assignment=a, item_id="10").first_shown_at == shown
    assert sorted(ItemVisit.objects.filter(completed_at__isnull=False).values_list("item_id", flat=True)) == ["10",
                                                                                                           "11"]

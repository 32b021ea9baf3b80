"""Judging services (SPEC 5.3): idempotent submits, revisions, required comments, closed topics, nothing lost."""
import pytest
from django.db import IntegrityError

from ir.problems import InputError
from judging import selectors, services
from judging.models import Assignment, ItemVisit, Judgment, JudgmentRevision
from judging.services import GradeInput
from pooling import services as pooling_services
from pooling.models import PoolItem
from tests.commands import command_output, rejected
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


def item(campaign, topic, item_id):
    return PoolItem.objects.get(campaign=campaign, topic__topic_id=topic, item_id=item_id)


def submit(assignment, pool_item, *grades, user=None, active=0.0):
    return services.judgment_submit(assignment_pk=assignment.pk, item_id=pool_item.item_id, grades=list(grades),
                                    user=user or assignment.assessor, active_seconds=active)


def test_double_submit_keeps_one_judgment(answers, ada):
    a = assign(answers, ada, "A.1")
    target = item(answers, "A.1", "10")
    first = submit(a, target, GradeInput("3"))
    second = submit(a, target, GradeInput("3"))
    assert (first.created, second.created, second.unchanged) == (1, 0, 1)
    assert Judgment.objects.filter(assignment=a).count() == 1
    assert JudgmentRevision.objects.count() == 1


def test_the_database_refuses_a_second_judgment_of_the_same_item(answers, ada):
    a = assign(answers, ada, "A.1")
    submit(a, item(answers, "A.1", "10"), GradeInput("2"))
    judgment = Judgment.objects.get()
    judgment.pk = None
    with pytest.raises(IntegrityError):
        judgment.save()


def test_a_revision_keeps_who_when_and_the_old_and_new_values(answers, ada):
    a = assign(answers, ada, "A.1")
    target = item(answers, "A.1", "10")
    submit(a, target, GradeInput("1", "first look"))
    result = submit(a, target, GradeInput("3", "read the thread"))
    assert result.revised == 1
    judgment = Judgment.objects.get()
    assert (judgment.grade, judgment.comment, judgment.revision) == ("3", "read the thread", 2)
    revisions = list(JudgmentRevision.objects.order_by("number").values_list(
        "number", "user__username", "old_grade", "old_comment", "grade", "comment"))
    assert revisions == [(1, "ada", "", "", "1", "first look"), (2, "ada", "1", "first look", "3", "read the thread")]
    assert judgment.submitted_at <= judgment.updated_at


@pytest.mark.parametrize("grade", ["SF", "DK"])
def test_system_failure_and_do_not_know_need_a_comment(answers, ada, grade):
    a = assign(answers, ada, "A.1")
    with pytest.raises(InputError, match="a comment is required"):
        submit(a, item(answers, "A.1", "10"), GradeInput(grade, "   "))
    assert not Judgment.objects.exists()
    submit(a, item(answers, "A.1", "10"), GradeInput(grade, "formula does not render"))
    assert Judgment.objects.get().grade == grade


def test_an_unknown_grade_is_refused(answers, ada):
    a = assign(answers, ada, "A.1")
    with pytest.raises(InputError, match="'4' is not a grade"):
        submit(a, item(answers, "A.1", "10"), GradeInput("4"))


def test_a_closed_topic_is_read_only(answers, ada):
    a = assign(answers, ada, "A.1")
    submit(a, item(answers, "A.1", "10"), GradeInput("2"))
    services.topic_close(topic=a.topic)
    a.refresh_from_db()
    with pytest.raises(InputError, match="closed"):
        submit(a, item(answers, "A.1", "10"), GradeInput("3"))
    assert Judgment.objects.get().grade == "2"
    services.topic_close(topic=a.topic, closed=False)
    a.refresh_from_db()
    submit(a, item(answers, "A.1", "10"), GradeInput("3"))
    assert Judgment.objects.get().grade == "3"


def test_only_the_assignments_assessor_may_judge(answers, ada, bob):
    a = assign(answers, ada, "A.1")
    with pytest.raises(Assignment.DoesNotExist):      # as if there were no such assignment: a 404
        submit(a, item(answers, "A.1", "10"), GradeInput("2"), user=bob)
    assert not Judgment.objects.exists()


def test_an_item_of_another_topic_is_refused(answers, ada):
    a = assign(answers, ada, "A.1")
    with pytest.raises(PoolItem.DoesNotExist):        # no such item in the topic: a 404
        submit(a, item(answers, "A.2", "20"), GradeInput("2"))
    assert not Judgment.objects.exists()


def test_withdrawing_an_assignment_keeps_its_judgments_and_lets_another_assessor_take_the_topic(answers, ada, bob):
    a = assign(answers, ada, "A.1")
    submit(a, item(answers, "A.1", "10"), GradeInput("2"))
    assert services.assignment_withdraw(assignment=a) == "withdrawn"
    assert Judgment.objects.filter(assignment=a).count() == 1
    b = assign(answers, bob, "A.1")
    assert b.kind == "official"
    a.refresh_from_db()
    with pytest.raises(InputError, match="closed"):
        submit(a, item(answers, "A.1", "11"), GradeInput("2"))


def test_a_withdrawn_assignment_given_back_returns_with_its_judgments(answers, ada):
    a = assign(answers, ada, "A.1")
    submit(a, item(answers, "A.1", "10"), GradeInput("2"))
    services.assignment_withdraw(assignment=a)
    again = assign(answers, ada, "A.1")
    assert again.pk == a.pk and not again.read_only
    assert selectors.assignment_progress(assignment=again).done == 1


def test_the_dual_assessor_cannot_become_the_official_one(answers, ada, bob):
    official = assign(answers, ada, "A.1")
    assign(answers, bob, "A.1", kind="dual")
    services.assignment_withdraw(assignment=official)
    with pytest.raises(InputError, match="bob judges topic A.1 as the dual assessor"):
        services.assignments_create(campaign=answers, assessors=[bob], topic_ids=["A.1"])


def test_an_assessor_joining_a_closed_topic_finds_it_closed(answers, ada, bob):
    a = assign(answers, ada, "A.1")
    services.topic_close(topic=a.topic)
    assert assign(answers, bob, "A.1", kind="training").read_only


def test_withdrawing_an_assignment_without_work_deletes_it(answers, ada):
    a = assign(answers, ada, "A.1")
    services.item_visit(assignment=a, item_id="10")
    assert services.assignment_withdraw(assignment=a) == "deleted"
    assert not Assignment.objects.exists() and not ItemVisit.objects.exists()


def test_a_topic_has_one_official_assessor(answers, ada, bob):
    assign(answers, ada, "A.1")
    with pytest.raises(InputError, match="already assigned officially to ada"):
        services.assignments_create(campaign=answers, assessors=[bob], topic_ids=["A.1"])


def test_assigning_twice_reports_the_existing_assignment(answers, ada):
    assign(answers, ada, "A.1")
    result = services.assignments_create(campaign=answers, assessors=[ada], topic_ids=["A.1", "A.2"])
    assert [a.topic.topic_id for a in result.created] == ["A.2"]
    assert [a.topic.topic_id for a in result.existing] == ["A.1"]


def test_a_dual_assignment_needs_another_official_assessor(answers, ada, bob):
    with pytest.raises(InputError, match="has no official assessor yet"):
        services.assignments_create(campaign=answers, assessors=[bob], topic_ids=["A.1"], kind="dual")
    assign(answers, ada, "A.1")
    with pytest.raises(InputError, match="is judged officially by ada"):
        services.assignments_create(campaign=answers, assessors=[ada], topic_ids=["A.1"], kind="dual")
    dual = assign(answers, bob, "A.1", kind="dual")
    assert dual.round == 0


def test_training_rounds_are_numbered_and_an_unknown_topic_is_named(answers, ada, bob):
    result = services.assignments_create(campaign=answers, assessors=[ada, bob], topic_ids=["A.1"],
                                         kind="training", round=2)
    assert sorted((a.assessor.username, a.round) for a in result.created) == [("ada", 2), ("bob", 2)]
    with pytest.raises(InputError, match="topic 'A.9' is not a topic of campaign 'answers'"):
        services.assignments_create(campaign=answers, assessors=[ada], topic_ids=["A.9"])


def test_first_shown_time_is_kept_from_the_first_showing(answers, ada):
    a = assign(answers, ada, "A.1")
    services.item_visit(assignment=a, item_id="10")
    first = ItemVisit.objects.get().first_shown_at
    services.item_visit(assignment=a, item_id="10")
    assert ItemVisit.objects.get().first_shown_at == first
    submit(a, item(answers, "A.1", "10"), GradeInput("2"), active=12.5)
    judgment = Judgment.objects.get()
    assert judgment.first_shown_at == first
    assert ItemVisit.objects.get().active_seconds == 12.5
    submit(a, item(answers, "A.1", "10"), GradeInput("2"), active=30)   # unchanged: no time added
    assert ItemVisit.objects.get().active_seconds == 12.5


def test_next_item_follows_display_order_and_offers_skipped_items_last(answers, ada):
    a = assign(answers, ada, "A.1")
    order = list(PoolItem.objects.filter(topic=a.topic).order_by("position").values_list("item_id", flat=True))
    assert selectors.next_item(assignment=a).item_id == order[0]
    services.item_skip(assignment=a, item_id=order[0])
    assert selectors.next_item(assignment=a).item_id == order[1]
    submit(a, item(answers, "A.1", order[1]), GradeInput("1"))
    submit(a, item(answers, "A.1", order[2]), GradeInput("0"))
    assert selectors.next_item(assignment=a).item_id == order[0]   # only the skipped one is left
    submit(a, item(answers, "A.1", order[0]), GradeInput("0"))
    assert selectors.next_item(assignment=a) is None
    assert selectors.assignment_progress(assignment=a).done == 3


def test_a_skip_that_fails_half_way_records_nothing(answers, ada, monkeypatch):
    a = assign(answers, ada, "A.1")

    def fail(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr("django.db.models.query.QuerySet.update", fail)
    with pytest.raises(RuntimeError):
        services.item_skip(assignment=a, item_id="10")
    assert not ItemVisit.objects.exists()   # no visit without its skip: both writes or neither


def test_a_formula_is_complete_when_every_selected_instance_is_graded(formulas, ada):
    a = assign(formulas, ada, "B.1")
    visual = item(formulas, "B.1", "100")
    first = submit(a, visual, GradeInput("3", formula_id="1"))
    assert not first.complete
    second = submit(a, visual, GradeInput("3", formula_id="1"), GradeInput("1", formula_id="2"))
    assert (second.created, second.unchanged, second.complete) == (1, 1, True)
    assert sorted(Judgment.objects.values_list("item_id", "formula_id", "post_id", "grade")) == [
        ("100", "1", "20", "3"), ("100", "2", "30", "1")]


def test_a_formula_instance_that_is_not_selected_is_refused(formulas, ada):
    a = assign(formulas, ada, "B.1")
    with pytest.raises(InputError, match="formula 3 is not an instance to judge"):
        submit(a, item(formulas, "B.1", "100"), GradeInput("3", formula_id="3"))


def test_pool_rebuild_is_refused_once_judging_started_and_a_forced_one_keeps_judgments(answers, ada, tmp_path):
    a = assign(answers, ada, "A.2")
    submit(a, item(answers, "A.2", "99"), GradeInput("SF", "not in the collection"))
    with pytest.raises(InputError, match=r"judging has started .* \(1 judged items in 1 topics\)"):
        services.pools_rebuild(campaign=answers)
    assert PoolItem.objects.filter(campaign=answers, item_id="99").exists()

    # A new depth leaves 99 out: the forced rebuild reports it, and the judgment stays.
    run = answers.runs.get()
    pooling_services.run_depth_set(run=run, depth=1)
    assert selectors.assignment_progress(assignment=a) == selectors.Progress(done=1, total=2)
    result = services.pools_rebuild(campaign=answers, force=True)
    assert result.unpooled == [["A.2", "99"]]
    assert Judgment.objects.get().item_id == "99"
    assert not PoolItem.objects.filter(campaign=answers, item_id="99").exists()
    # The rebuild recounted the assessor's visits: 99 is no longer a completed item.
    assert ItemVisit.objects.get(assignment=a, item_id="99").completed_at is None
    # Progress counts the items of the pool as it is now.
    assert selectors.assignment_progress(assignment=a) == selectors.Progress(done=0, total=1)


def test_build_pools_force_lists_the_judged_items_left_out(answers, ada):
    a = assign(answers, ada, "A.1")
    submit(a, item(answers, "A.1", "12"), GradeInput("1"))
    assert rejected("build_pools", "--campaign", "answers")[0].startswith("judging has started")
    pooling_services.run_depth_set(run=answers.runs.get(), depth=2)
    _out, err = command_output("build_pools", "--campaign", "answers", "--force")
    assert err.splitlines() == ["A.1\t12\tjudged, no longer in the pool (judgments kept)"]

"""The judging requests' written-out writes store what the ORM would, so that the ORM's own lookups find the rows."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assessor import services
from assessor.models import ItemVisit, Judgment, JudgmentRevision
from pooling.models import PoolItem

from .fixtures import assign

pytestmark = pytest.mark.django_db


def test_times_written_by_a_submit_are_found_by_the_orm_lookups_on_them(answers, ada):
    a = assign(answers, ada, "A.1")
    first, second = PoolItem.objects.filter(topic=a.topic).order_by("position")[:2]
    services.item_visit(assignment=a, item_id=first.item_id)
    services.judgment_submit(assignment=a, item=first, user=ada, grades=[services.GradeInput(grade="3")],
                             active_seconds=5)
    services.judgment_submit(assignment=a, item=first, user=ada, grades=[services.GradeInput(grade="2")],
                             active_seconds=5)
    services.judgment_submit(assignment=a, item=second, user=ada, grades=[services.GradeInput(grade="1")])
    for visit in ItemVisit.objects.filter(assignment=a):
        assert ItemVisit.objects.filter(pk=visit.pk, first_shown_at=visit.first_shown_at).exists()
        assert ItemVisit.objects.filter(pk=visit.pk, completed_at=visit.completed_at).exists()
    for judgment in Judgment.objects.filter(assignment=a):
        assert Judgment.objects.filter(pk=judgment.pk, submitted_at=judgment.submitted_at,
                                       first_shown_at=judgment.first_shown_at).exists()
    for revision in JudgmentRevision.objects.filter(judgment__assignment=a):
        assert JudgmentRevision.objects.filter(pk=revision.pk, at=revision.at).exists()
    assert JudgmentRevision.objects.filter(judgment__assignment=a).count() == 3



def _judge_a_day(campaign, user, topic_id: str, grades_by_item: list[tuple[str, list]], shown: set[str]) -> dict:
    """Shows the items of `shown`, submits each item's grades in turn (twice: the second is a resubmission), and
    returns what the database held of it (visits, judgments and revisions, their times as relations) before
    deleting it all, assignment included."""
    a = assign(campaign, user, topic_id)
    items = {i.item_id: i for i in PoolItem.objects.filter(topic=a.topic)}
    for item_id in shown:
        services.item_visit(assignment=a, item_id=item_id)
    for item_id, grades in grades_by_item * 2:
        services.judgment_submit(assignment=a, item=items[item_id], grades=grades, user=user, active_seconds=7.5)
    visits = {v.item_id: v for v in ItemVisit.objects.filter(assignment=a)}
    judgments = Judgment.objects.filter(assignment=a)
    revisions = JudgmentRevision.objects.filter(judgment__assignment=a).select_related("judgment")
    held = {
        "visits": sorted((v.item_id, v.active_seconds, v.completed_at is not None,
                          v.first_shown_at <= (v.completed_at or v.first_shown_at)) for v in visits.values()),
        "judgments": sorted((j.item_id, j.formula_id, j.post_id, j.grade, j.comment, j.revision,
                             j.first_shown_at == visits[j.item_id].first_shown_at, j.submitted_at == j.updated_at)
                            for j in judgments),
        "revisions": sorted((r.judgment.item_id, r.judgment.formula_id, r.number, r.user_id, r.old_grade,
                             r.old_comment, r.grade, r.comment, r.active_seconds, r.source,
                             r.at == r.judgment.submitted_at) for r in revisions),
    }
    revisions.delete()
    judgments.delete()
    ItemVisit.objects.filter(assignment=a).delete()
    a.delete()
    return held


def test_the_one_statement_submit_on_postgresql_writes_what_the_plain_one_does(answers, formulas, ada, monkeypatch):
    """On PostgreSQL the visit, the new judgments and their revisions are one statement (a data-modifying CTE);
    elsewhere (SQLite) one statement each. Both leave the same rows: visits made when the page was not shown, active
    time added once per change, completion, first-shown times from the visit, one revision per new judgment."""
    if connection.vendor != "postgresql":
        pytest.skip("SKIPPED: the one-statement submit is PostgreSQL's")
    answer_day = [("10", [services.GradeInput("3")]), ("11", [services.GradeInput("DK", comment="  unsure ")])]
    formula_day = [("100", [services.GradeInput("3", formula_id="1")]),  # one of two instances: not complete
                   ("100", [services.GradeInput("3", formula_id="1"), services.GradeInput("1", formula_id="2")]),
                   ("300", [services.GradeInput("2", formula_id="3")])]
    with CaptureQueriesContext(connection) as written:
        one_statement = (_judge_a_day(answers, ada, "A.1", answer_day, shown={"10"}),
                         _judge_a_day(formulas, ada, "B.1", formula_day, shown={"300"}))
    # One statement per submit that made judgments: A.1's 10 and 11, B.1's 100 twice (instance 1, then 2 beside
    # 1 unchanged) and 300. The resubmissions change nothing and write nothing.
    assert sum(q["sql"].startswith("WITH v AS (INSERT INTO") for q in written.captured_queries) == 5

    class Plain:  # the same connection, taken for another database's: the plain writes run
        vendor = "plain"

        def __getattr__(self, name):
            return getattr(connection, name)

    monkeypatch.setattr(services, "connection", Plain())
    plain = (_judge_a_day(answers, ada, "A.1", answer_day, shown={"10"}),
             _judge_a_day(formulas, ada, "B.1", formula_day, shown={"300"}))
    assert plain == one_statement
    answers_held, formulas_held = one_statement
    assert [v[:3] for v in answers_held["visits"]] == [("10", 7.5, True), ("11", 7.5, True)]
    assert [j[:6] for j in answers_held["judgments"]] == [("10", "", "10", "3", "", 1),
                                                           ("11", "", "11", "DK", "unsure", 1)]
    assert [v[:3] for v in formulas_held["visits"]] == [("100", 15.0, True), ("300", 7.5, True)]
    assert len(formulas_held["judgments"]) == len(formulas_held["revisions"]) == 3
    assert all(j[6] and j[7] for held in one_statement for j in held["judgments"])
    assert all(r[-1] for held in one_statement for r in held["revisions"])

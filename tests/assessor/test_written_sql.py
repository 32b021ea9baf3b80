"""The judging requests' written-out writes store what the ORM would, so that the ORM's own lookups find the rows."""
import pytest

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

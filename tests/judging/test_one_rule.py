"""One rule in one place, seen from outside: the submit, the recount after a pool rebuild and the judging page agree
on when a formula is complete and on what was graded."""
import pytest

from judging import selectors, services
from judging.models import ItemVisit
from pooling.models import PoolInstance, PoolItem
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


def _item_with_instances(assignment, at_least: int = 2) -> PoolItem:
    return next(i for i in PoolItem.objects.filter(topic=assignment.topic)
                if PoolInstance.objects.filter(item=i, selected=True).count() >= at_least)


def test_the_submit_and_the_recount_agree_on_when_a_formula_is_complete(formulas, ada):
    a = assign(formulas, ada, "B.1")
    item = _item_with_instances(a)
    instances = list(PoolInstance.objects.filter(item=item, selected=True).order_by("formula_id"))
    grade = [services.GradeInput(grade="2", formula_id=instances[0].formula_id)]
    partial = services.judgment_submit(assignment_pk=a.pk, item_id=item.item_id, user=ada, grades=grade)
    assert partial.complete is False and services.item_complete(assignment=a, item=item) is False
    services.visits_recount(campaign=formulas)
    assert ItemVisit.objects.get(assignment=a, item_id=item.item_id).completed_at is None

    rest = [services.GradeInput(grade="1", formula_id=i.formula_id) for i in instances[1:]]
    whole = services.judgment_submit(assignment_pk=a.pk, item_id=item.item_id, user=ada, grades=rest)
    assert whole.complete is True and services.item_complete(assignment=a, item=item) is True
    done_at = ItemVisit.objects.get(assignment=a, item_id=item.item_id).completed_at
    services.visits_recount(campaign=formulas)
    assert ItemVisit.objects.get(assignment=a, item_id=item.item_id).completed_at == done_at is not None


def test_the_judging_page_shows_each_instance_as_the_submit_stored_it(formulas, ada):
    a = assign(formulas, ada, "B.1")
    item = _item_with_instances(a)
    first, second = PoolInstance.objects.filter(item=item, selected=True).order_by("formula_id")[:2]
    services.judgment_submit(assignment_pk=a.pk, item_id=item.item_id, user=ada,
                             grades=[services.GradeInput(grade="1", formula_id=first.formula_id)])
    page = selectors.judging_page(user=ada, assignment_pk=a.pk, position=item.position)
    grades = {i.formula_id: i.judgment.grade if i.judgment else None for i in page.shown.instances}
    assert grades[first.formula_id] == "1" and grades[second.formula_id] is None


def test_the_recount_after_a_rebuild_reads_the_campaign_once_not_once_per_visit(formulas, ada,
                                                                                django_assert_max_num_queries):
    a = assign(formulas, ada, "B.1")
    items = [i for i in PoolItem.objects.filter(topic=a.topic).order_by("position")
             if PoolInstance.objects.filter(item=i, selected=True).exists()][:3]
    assert len(items) == 3
    for item in items:
        first = PoolInstance.objects.filter(item=item, selected=True).order_by("formula_id").first()
        services.judgment_submit(assignment_pk=a.pk, item_id=item.item_id, user=ada,
                                 grades=[services.GradeInput(grade="2", formula_id=first.formula_id)])
    # A visit marked complete that is not (a formula with an instance left ungraded): the recount corrects it.
    ItemVisit.objects.filter(assignment=a).update(completed_at="2026-01-01T00:00:00Z")
    expected = sum(PoolInstance.objects.filter(item=i, selected=True).count() > 1 for i in items)
    # Four reads and one bulk write (and the savepoint of the atomic service), however many visits there are.
    with django_assert_max_num_queries(8):
        changed = services.visits_recount(campaign=formulas)
    assert changed == expected
    assert ItemVisit.objects.filter(assignment=a, completed_at__isnull=True).count() == expected

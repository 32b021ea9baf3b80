"""One rule in one place: completeness for the submit and the recount, the judgments of an item for every reader."""
import pytest

from assessor import selectors, services
from pooling.models import PoolInstance, PoolItem

from .fixtures import assign

pytestmark = pytest.mark.django_db


def test_the_submit_and_the_recount_decide_complete_by_the_same_rule(formulas, ada, monkeypatch):
    a = assign(formulas, ada, "B.1")
    item = next(i for i in PoolItem.objects.filter(topic=a.topic)
                if PoolInstance.objects.filter(item=i, selected=True).count() > 1)
    first = PoolInstance.objects.filter(item=item, selected=True).order_by("formula_id").first()
    seen = []
    rule = services.judged_complete

    def spy(judged, instances):
        seen.append((frozenset(judged), None if instances is None else frozenset(instances)))
        return rule(judged, instances)

    monkeypatch.setattr(services, "judged_complete", spy)
    result = services.judgment_submit(assignment_pk=a.pk, item_id=item.item_id, user=ada,
                                      grades=[services.GradeInput(grade="2", formula_id=first.formula_id)])
    assert services.item_complete(assignment=a, item=item) is result.complete is False
    assert len(seen) == 2 and seen[0] == seen[1]


def test_the_judging_page_reads_a_formulas_judgments_as_the_submit_does(formulas, ada, monkeypatch):
    a = assign(formulas, ada, "B.1")
    item = PoolItem.objects.filter(topic=a.topic).first()
    instance = PoolInstance.objects.filter(item=item, selected=True).first()
    services.judgment_submit(assignment_pk=a.pk, item_id=item.item_id, user=ada,
                             grades=[services.GradeInput(grade="1", formula_id=instance.formula_id)])
    calls = []
    read = selectors.item_judgments

    def spy(**kwargs):
        calls.append(kwargs)
        return read(**kwargs)

    monkeypatch.setattr(selectors, "item_judgments", spy)
    page = selectors.judging_page(user=ada, assignment_pk=a.pk, position=item.position)
    assert [call["item_id"] for call in calls] == [item.item_id]
    assert {i.formula_id: i.judgment.grade for i in page.shown.instances if i.judgment} == {instance.formula_id: "1"}

"""judgment_submit takes a caller's lock only as the proof the locked read made, in the transaction still open."""
import pytest
from django.db import transaction

from assessor import selectors, services
from assessor.models import Assignment, Judgment
from pooling.models import PoolItem

from .fixtures import assign


def grade3():
    return [services.GradeInput(grade="3")]


@pytest.mark.django_db
def test_a_stale_assignment_said_to_be_locked_cannot_judge_a_closed_topic(answers, ada):
    a = assign(answers, ada, "A.1")
    stale = Assignment.objects.get(pk=a.pk)          # read before the close, without a lock
    services.topic_close(topic=a.topic)
    item = PoolItem.objects.filter(topic=a.topic).first()
    with pytest.raises(RuntimeError), transaction.atomic():
        services.judgment_submit(assignment=stale, item=item, user=ada, grades=grade3(), locked=True)
    assert not Judgment.objects.exists()


@pytest.mark.django_db
def test_a_lock_read_for_one_assignment_object_is_not_taken_for_another(answers, ada):
    a = assign(answers, ada, "A.1")
    item = PoolItem.objects.filter(topic=a.topic).first()
    with transaction.atomic():
        locked, _item = selectors.judging_assignment_item(user=ada, pk=a.pk, position=item.position, page=False,
                                                          lock=True)
        with pytest.raises(RuntimeError):
            services.judgment_submit(assignment=a, item=item, user=ada, grades=grade3(), locked=locked.lock)
        result = services.judgment_submit(assignment=locked, item=item, user=ada, grades=grade3(),
                                          locked=locked.lock)
    assert result.created == 1 and Judgment.objects.filter(assignment=a).count() == 1


def test_nobody_but_the_locked_read_makes_a_lock():
    with pytest.raises(TypeError):
        selectors.LockedAssignment(Assignment(), token=object())


@pytest.mark.django_db(transaction=True)
def test_a_lock_from_a_transaction_that_ended_is_refused(answers, ada):
    a = assign(answers, ada, "A.1")
    item = PoolItem.objects.filter(topic=a.topic).first()
    with transaction.atomic():
        locked, _item = selectors.judging_assignment_item(user=ada, pk=a.pk, position=item.position, page=False,
                                                          lock=True)
    services.topic_close(topic=a.topic)
    with pytest.raises(RuntimeError), transaction.atomic():
        services.judgment_submit(assignment=locked, item=item, user=ada, grades=grade3(), locked=locked.lock)
    assert not Judgment.objects.exists()

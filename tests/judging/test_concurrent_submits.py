"""Simultaneous identical submits on PostgreSQL: the unique constraint, not a check in Python, keeps one judgment."""
import threading

import pytest
from django.db import connection

from judging import services
from judging.models import Judgment, JudgmentRevision
from pooling.models import PoolItem
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]


def test_simultaneous_double_submits_make_one_judgment_and_one_revision(answers, ada):
    if connection.vendor != "postgresql":
        pytest.skip("SKIPPED: concurrent writes need PostgreSQL")
    a = assign(answers, ada, "A.1")
    item = PoolItem.objects.get(topic=a.topic, item_id="10")
    start = threading.Barrier(8)
    results, errors = [], []

    def submit():
        try:
            start.wait()
            results.append(services.judgment_submit(assignment_pk=a.pk, item_id=item.item_id,
                                                    grades=[services.GradeInput("2")], user=ada))
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sum(r.created for r in results) == 1 and sum(r.unchanged for r in results) == 7
    assert Judgment.objects.count() == 1 and JudgmentRevision.objects.count() == 1

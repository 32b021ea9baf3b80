"""A campaign delete racing a judgment submit on PostgreSQL: the submit's judgment is kept and the delete is refused
with its message (400), never a 500, whichever commits first."""
import threading
import time

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from assessor import services
from assessor.models import Assignment, Judgment
from pooling.models import Campaign
from pooling.services import undo

from .fixtures import assign

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]


def _waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND wait_event_type = 'Lock'")
        return cursor.fetchone()[0] > 0


def test_a_delete_that_meets_a_submit_in_progress_waits_for_it_and_refuses(answers, ada, organizer, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("SKIPPED: concurrent writes need PostgreSQL")
    a = assign(answers, ada, "A.1")
    locked, go = threading.Event(), threading.Event()
    graded_kind = services.judgments.rules.graded_kind

    def hold(kind):  # the submit stops here, holding its assignment's lock, with nothing judged yet
        locked.set()
        go.wait(30)
        return graded_kind(kind)

    monkeypatch.setattr(services.judgments.rules, "graded_kind", hold)
    errors, responses = [], []

    def run(target):
        try:
            target()
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            connection.close()

    def submit():
        services.judgment_submit(assignment_pk=a.pk, item_id="10", grades=[services.GradeInput("2")], user=ada)

    def delete():
        client = Client()
        client.force_login(organizer)
        responses.append(client.post(reverse("pooling:campaign_delete", args=[answers.pk])))

    submitter = threading.Thread(target=run, args=(submit,))
    submitter.start()
    assert locked.wait(30)
    deleter = threading.Thread(target=run, args=(delete,))
    deleter.start()
    for _ in range(300):  # the delete reaches the submit's lock and waits there
        if _waiting_on_a_lock():
            break
        time.sleep(0.05)
    go.set()
    submitter.join(30)
    deleter.join(30)
    assert errors == []
    assert responses[0].status_code == 400
    assert "has judgments" in responses[0].content.decode()
    assert Campaign.objects.filter(pk=answers.pk).exists() and Judgment.objects.filter(assignment=a).count() == 1


def test_a_submit_that_meets_a_delete_in_progress_waits_for_it_and_finds_no_assignment(answers, ada, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("SKIPPED: concurrent writes need PostgreSQL")
    a = assign(answers, ada, "A.1")
    paused, go = threading.Event(), threading.Event()
    contents = undo.campaign_contents

    def hold(**kwargs):  # the delete stops here: the assignments deleted, not yet committed
        paused.set()
        go.wait(30)
        return contents(**kwargs)

    monkeypatch.setattr(undo, "campaign_contents", hold)
    errors: list[Exception] = []

    def run(target):
        try:
            target()
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            connection.close()

    deleter = threading.Thread(target=run, args=(lambda: services.campaign_delete(campaign=answers),))
    deleter.start()
    assert paused.wait(30)
    submitter = threading.Thread(target=run, args=(lambda: services.judgment_submit(
        assignment_pk=a.pk, item_id="10", grades=[services.GradeInput("2")], user=ada),))
    submitter.start()
    for _ in range(300):  # the submit reaches the delete's lock and waits there
        if _waiting_on_a_lock():
            break
        time.sleep(0.05)
    go.set()
    deleter.join(30)
    submitter.join(30)
    assert [type(e) for e in errors] == [Assignment.DoesNotExist]   # a 404 to the page and the API
    assert not Campaign.objects.exists() and not Judgment.objects.exists()

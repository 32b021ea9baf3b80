"""A campaign delete racing a judgment submit on PostgreSQL: the submit's judgment is kept and the delete is refused
with its message (400), never a 500, whichever commits first."""
import threading
import time

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from judging import services
from judging.models import Assignment, Judgment
from pooling.models import Campaign
from pooling.services import undo
from tests.judging.fixtures import assign

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]


def _waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND wait_event_type = 'Lock'")
        return cursor.fetchone()[0] > 0


def _race(first, second, paused: threading.Event, go: threading.Event) -> list[Exception]:
    """Runs `first` in a thread until it sets `paused`, then `second` in another until it waits on a lock (the
    first's), then lets the first go on; returns what either raised. Each thread closes its own connection."""
    errors: list[Exception] = []

    def run(target):
        try:
            target()
        except Exception as exc:  # noqa: BLE001 (returned)
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(first,))]
    threads[0].start()
    assert paused.wait(30)
    threads.append(threading.Thread(target=run, args=(second,)))
    threads[1].start()
    for _ in range(300):  # the second reaches the first's lock and waits there
        if _waiting_on_a_lock():
            break
        time.sleep(0.05)
    go.set()
    for thread in threads:
        thread.join(30)
    return errors


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
    responses = []

    def submit():
        services.judgment_submit(assignment_pk=a.pk, item_id="10", grades=[services.GradeInput("2")], user=ada)

    def delete():
        client = Client()
        client.force_login(organizer)
        responses.append(client.post(reverse("workflow:campaign_delete", args=[answers.pk])))

    errors = _race(submit, delete, locked, go)  # the delete waits for the submit's lock
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
    # The submit waits for the delete's lock.
    errors = _race(lambda: services.campaign_delete(campaign=answers),
                   lambda: services.judgment_submit(assignment_pk=a.pk, item_id="10",
                                                    grades=[services.GradeInput("2")], user=ada),
                   paused, go)
    assert [type(e) for e in errors] == [Assignment.DoesNotExist]   # a 404 to the page and the API
    assert not Campaign.objects.exists() and not Judgment.objects.exists()

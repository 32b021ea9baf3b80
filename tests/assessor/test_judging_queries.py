"""The judging requests' written-out queries: the same answers as the rules they replace (SPEC 5.3, 8)."""
import datetime

import pytest
from django.db import transaction
from django.utils import timezone

from assessor import selectors, services
from assessor.models import ItemVisit
from pooling.models import PoolItem

from .fixtures import assign

pytestmark = pytest.mark.django_db


def order(assignment):
    return list(PoolItem.objects.filter(topic=assignment.topic).order_by("position").values_list("item_id", flat=True))


def test_next_item_goes_on_after_a_position_wraps_around_and_offers_the_longest_skipped_first(answers, ada):
    a = assign(answers, ada, "A.1")
    ids = order(a)
    pos = {i: p for i, p in PoolItem.objects.filter(topic=a.topic).values_list("item_id", "position")}
    assert selectors.next_item(assignment=a, after=pos[ids[0]]).item_id == ids[1]
    assert selectors.next_item(assignment=a, after=pos[ids[2]]).item_id == ids[0]        # wraps around
    now = timezone.now()
    for item_id, minutes in ((ids[1], 5), (ids[0], 1)):   # ids[1] skipped longer ago than ids[0]
        ItemVisit.objects.create(assignment=a, item_id=item_id, first_shown_at=now,
                                 skipped_at=now - datetime.timedelta(minutes=minutes))
    assert selectors.next_item(assignment=a, after=pos[ids[2]]).item_id == ids[2]        # unskipped ones first
    ItemVisit.objects.create(assignment=a, item_id=ids[2], first_shown_at=now, completed_at=now)
    assert selectors.next_item(assignment=a).item_id == ids[1]
    assert selectors.next_item(assignment=a, after=pos[ids[0]]).item_id == ids[1]
    ItemVisit.objects.filter(assignment=a, item_id=ids[1]).update(completed_at=now)
    assert selectors.next_item(assignment=a).item_id == ids[0]


def test_the_judging_read_gives_the_own_assignment_its_item_progress_and_previous(answers, ada, bob):
    a = assign(answers, ada, "A.1")
    ids = order(a)
    second = PoolItem.objects.get(topic=a.topic, item_id=ids[1])
    ItemVisit.objects.create(assignment=a, item_id=ids[0], first_shown_at=timezone.now(), completed_at=timezone.now())
    assignment, item = selectors.judging_assignment_item(user=ada, pk=a.pk, position=second.position)
    assert assignment.pk == a.pk and assignment.topic.topic_id == "A.1" and assignment.campaign.pk == answers.pk
    assert (assignment.done, assignment.total) == (1, 3)
    assert item.item_id == ids[1] and item.previous == PoolItem.objects.get(topic=a.topic, item_id=ids[0]).position
    first = selectors.judging_assignment_item(user=ada, pk=a.pk, position=item.previous)[1]
    assert first.previous is None
    assert selectors.judging_assignment_item(user=bob, pk=a.pk, position=second.position) == (None, None)
    assignment, missing = selectors.judging_assignment_item(user=ada, pk=a.pk, position=999)
    assert assignment.pk == a.pk and missing is None
    with transaction.atomic():
        assert selectors.judging_assignment_item(user=ada, pk=a.pk, position=999, page=False, lock=True) == (
            None, None)
        locked, item = selectors.judging_assignment_item(user=ada, pk=a.pk, position=second.position, page=False,
                                                         lock=True)
        assert locked.pk == a.pk and item.item_id == ids[1] and not hasattr(locked, "done")


def test_a_submit_said_to_be_locked_must_run_in_a_transaction(answers, ada):
    a = assign(answers, ada, "A.1")
    item = PoolItem.objects.filter(topic=a.topic).first()
    connection = transaction.get_connection()
    connection.in_atomic_block = False     # as outside any transaction (the test's own is still open)
    try:
        with pytest.raises(RuntimeError):
            services.judgment_submit(assignment=a, item=item, user=ada, locked=True,
                                     grades=[services.GradeInput(grade="3")])
    finally:
        connection.in_atomic_block = True
    assert not a.judgments.exists()


def test_a_closed_topic_refuses_a_post_read_under_the_lock(client, answers, ada):
    a = assign(answers, ada, "A.1")
    services.topic_close(topic=a.topic)
    item = PoolItem.objects.filter(topic=a.topic).first()
    client.force_login(ada)
    response = client.post(f"/assess/assignments/{a.pk}/items/{item.position}/", {"item_id": item.item_id,
                                                                                   "grade": "3"})
    assert response.status_code == 400 and "this topic is closed" in response.content.decode()
    assert not a.judgments.exists()


def test_the_signed_in_user_is_read_each_request_and_a_deactivated_one_is_signed_out(client, ada):
    client.post("/login/", {"username": "ada", "password": "assessor-pass-1"})
    assert client.session["_auth_user_backend"] == "assessor.auth.UserBackend"
    response = client.get("/assess/session/")
    assert response.status_code == 200 and response.wsgi_request.user.username == "ada"
    ada.is_active = False
    ada.save()
    assert client.get("/assess/session/").status_code == 302        # to the login page


def test_a_session_signed_in_through_django_s_own_backend_keeps_working(client, ada):
    client.force_login(ada, backend="django.contrib.auth.backends.ModelBackend")
    assert client.get("/assess/session/").status_code == 200

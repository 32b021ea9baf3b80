"""The judging page's reads: the next item (SPEC 5.3) and the page of one item of an assessor's own assignment."""
import datetime

import pytest
from django.utils import timezone

from assessor import selectors, services
from assessor.models import ItemVisit
from pooling.models import PoolItem
from tests.factories import ItemVisitFactory

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
        ItemVisitFactory(assignment=a, item_id=item_id, skipped_at=now - datetime.timedelta(minutes=minutes))
    assert selectors.next_item(assignment=a, after=pos[ids[2]]).item_id == ids[2]        # unskipped ones first
    ItemVisitFactory(assignment=a, item_id=ids[2], completed_at=now)
    assert selectors.next_item(assignment=a).item_id == ids[1]
    assert selectors.next_item(assignment=a, after=pos[ids[0]]).item_id == ids[1]
    ItemVisit.objects.filter(assignment=a, item_id=ids[1]).update(completed_at=now)
    assert selectors.next_item(assignment=a).item_id == ids[0]


def test_the_judging_page_gives_the_own_assignment_its_item_progress_and_previous(answers, ada, bob):
    a = assign(answers, ada, "A.1")
    ids = order(a)
    second = PoolItem.objects.get(topic=a.topic, item_id=ids[1])
    ItemVisitFactory(assignment=a, item_id=ids[0], completed_at=timezone.now())
    page = selectors.judging_page(user=ada, assignment_pk=a.pk, position=second.position)
    assert page.assignment.pk == a.pk and page.assignment.topic.topic_id == "A.1"
    assert page.assignment.campaign.pk == answers.pk
    assert page.progress == selectors.Progress(done=1, total=3)
    assert page.item.item_id == ids[1] and page.shown.post.post_id == ids[1]
    assert page.previous == PoolItem.objects.get(topic=a.topic, item_id=ids[0]).position
    assert selectors.judging_page(user=ada, assignment_pk=a.pk, position=page.previous).previous is None
    assert selectors.judging_page(user=bob, assignment_pk=a.pk, position=second.position) is None
    assert selectors.judging_page(user=ada, assignment_pk=a.pk, position=999) is None


def test_a_closed_topic_refuses_a_post(client, answers, ada):
    a = assign(answers, ada, "A.1")
    services.topic_close(topic=a.topic)
    item = PoolItem.objects.filter(topic=a.topic).first()
    client.force_login(ada)
    response = client.post(f"/assess/assignments/{a.pk}/items/{item.position}/", {"item_id": item.item_id,
                                                                                   "grade": "3"})
    assert response.status_code == 400 and "this topic is closed" in response.content.decode()
    assert not a.judgments.exists()


def test_a_deactivated_user_is_signed_out(client, ada):
    client.post("/login/", {"username": "ada", "password": "assessor-pass-1"})
    response = client.get("/assess/")
    assert response.status_code == 200 and response.wsgi_request.user.username == "ada"
    ada.is_active = False
    ada.save()
    assert client.get("/assess/").status_code == 302        # to the login page

"""The judging page's reads: the next item (SPEC 5.3) and the page of one item of an assessor's own assignment."""
import datetime

import pytest
from django.utils import timezone

from judging import selectors, services
from judging.models import ItemVisit
from pooling.models import PoolItem
from tests.factories import ItemVisitFactory, PoolItemFactory, PostFactory
from tests.judging.fixtures import assign

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


def judging_queries(client, a, position: int) -> dict[str, list[str]]:
    """The SQL of the judging page of the item at `position`, of its submit (redirected to the next item) and of the
    continue URL, as an assessor signed in sends them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    item = PoolItem.objects.get(topic=a.topic, position=position)
    url = f"/assess/assignments/{a.pk}/items/{position}/"
    sql = {}
    for kind, send in (("page", lambda: client.get(url)),
                       ("submit", lambda: client.post(url, {"item_id": item.item_id, "grade": "2"})),
                       ("continue", lambda: client.get(f"/assess/assignments/{a.pk}/?after={position}"))):
        with CaptureQueriesContext(connection) as captured:
            response = send()
        assert response.status_code == (200 if kind == "page" else 302), kind
        sql[kind] = [q["sql"] for q in captured.captured_queries]
    return sql


def test_the_judging_page_and_its_submit_ask_as_few_queries_for_a_long_pool_half_judged(client, answers, ada):
    # docs/benchmarks.md ("Judging"): what each judging request asks PostgreSQL is bounded by a constant, and no
    # query joins tables only to sort the one row it reads (the models' orderings join campaign, topic and assessor).
    a = assign(answers, ada, "A.1")
    client.force_login(ada)
    client.get(f"/assess/assignments/{a.pk}/items/0/")  # the session's first page writes it and its roles
    short = judging_queries(client, a, 0)
    for n in range(40):
        PostFactory(collection=answers.collection, post_id=str(500 + n), thread_id="1", body=f"<p>answer {n}</p>")
        PoolItemFactory(topic=a.topic, item_id=str(500 + n), position=3 + n)
    for position in range(1, 21):
        judging_queries(client, a, position)
    long = judging_queries(client, a, 21)
    counts = {kind: len(sql) for kind, sql in long.items()}
    assert counts == {kind: len(sql) for kind, sql in short.items()}
    # Each request reads its session (sessions live in the database: docs/deploy.md, "Redis down"); the page also
    # asks whether the item's runs are all suspect (docs/pooling.md, "Suspect matches").
    assert counts == {"page": 10, "submit": 16, "continue": 4}
    for kind, sql in long.items():
        joined = [s for s in sql if 'JOIN "auth_user"' in s or 'ORDER BY "pooling_campaign"' in s]
        assert joined == [], kind

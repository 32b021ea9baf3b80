"""What the judging page's script asks of the server (issue 16): the items after the one shown (the server's order,
not recorded as shown), its reports of the items it showed (first-shown when shown, from a signed stamp), and
submits under a key that a resend finds (no second judgment, revision or active time)."""
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from ir.problems import InputError
from judging import selectors, services
from judging.models import ItemVisit, Judgment, JudgmentRevision, SubmitReceipt
from judging.services import GradeInput
from judging.stamps import Stamp, item_stamp, shown_at, stamp_read
from pooling.models import PoolItem
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db
KEY = "0123456789abcdef0123456789abcdef"


def url(a, position, tail=""):
    return f"/assess/assignments/{a.pk}/items/{position}/{tail}"


def pool(a) -> list[str]:
    """The item ids of the assignment's topic in pool order (position 0, 1, ...)."""
    return list(PoolItem.objects.filter(topic=a.topic).order_by("position").values_list("item_id", flat=True))


def stamp_of(html: str) -> str:
    return re.search(r'data-stamp="([^"]+)"', html).group(1)


def test_the_items_ahead_are_those_next_item_gives_in_turn_skipped_last(answers, ada):
    a = assign(answers, ada, "A.1")
    first, second, third = pool(a)

    def ahead(position, count=3):
        return [i.item_id for i in selectors.items_ahead(assignment=a, position=position, count=count)]

    assert ahead(0) == [second, third]
    services.item_skip(assignment=a, item_id=second)
    assert ahead(0) == [third, second] and ahead(0, count=1) == [third]
    services.judgment_submit(assignment_pk=a.pk, item_id=third, grades=[GradeInput("2")], user=ada)
    assert ahead(2) == [first, second]                   # wrapping around, the skipped one last
    # The first item ahead is where a plain submit of the item sends the browser.
    services.judgment_submit(assignment_pk=a.pk, item_id=first, grades=[GradeInput("2")], user=ada)
    assert selectors.next_item(assignment=a, after=0).item_id == ahead(0)[0] == second


def test_fetching_ahead_gives_the_next_items_pages_and_records_nobody_as_shown(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    first, second, third = pool(a)
    ada_client.get(url(a, 0))
    body = ada_client.get(url(a, 0, "ahead/")).json()
    assert [(e["position"], e["url"]) for e in body["items"]] == [(1, url(a, 1)), (2, url(a, 2))]
    assert f'data-item-id="{second}"' in body["items"][0]["html"] and 'name="grade"' in body["items"][0]["html"]
    assert f'data-item-id="{third}"' in body["items"][1]["html"]
    assert list(ItemVisit.objects.values_list("item_id", flat=True)) == [first]   # only the page shown
    # What the page holds already comes without its HTML.
    held = body["items"][0]["pool_item"]
    again = ada_client.get(url(a, 0, f"ahead/?have={held},x,{'9' * 40}")).json()["items"]
    assert ["html" in e for e in again] == [False, True]


def test_a_closed_topic_fetches_nothing_ahead_and_another_assessor_nothing_at_all(client, answers, ada, bob):
    a = assign(answers, ada, "A.1")
    services.topic_close(topic=a.topic, closed=True)
    client.force_login(ada)
    assert client.get(url(a, 0, "ahead/")).json() == {"items": []}
    client.force_login(bob)
    assert client.get(url(a, 0, "ahead/")).status_code == 404
    assert client.post(url(a, 1, "shown/"), {"stamp": "x", "elapsed_ms": "1"}).status_code == 404


def test_an_item_shown_is_recorded_when_shown_not_when_fetched(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    second = pool(a)[1]
    stamp = stamp_of(ada_client.get(url(a, 0, "ahead/")).json()["items"][0]["html"])
    fetched = timezone.now()
    assert not ItemVisit.objects.filter(item_id=second).exists()
    # The page measured from receiving the item to showing it (its own clock): the server adds it to the render time.
    rendered = stamp_read(stamp).rendered_at
    elapsed = int((timezone.now().timestamp() - rendered) * 1000)
    answer = ada_client.post(url(a, 1, "shown/"), {"stamp": stamp, "elapsed_ms": str(elapsed)}).json()
    assert answer == {"recorded": True, "current": True}
    shown = ItemVisit.objects.get(assignment=a, item_id=second).first_shown_at
    assert shown.timestamp() == pytest.approx(rendered + elapsed / 1000, abs=0.002)
    assert fetched <= shown + timedelta(milliseconds=2)                  # not when it was fetched: after
    # Reported again later (the page showed it again): the first time stays.
    ada_client.post(url(a, 1, "shown/"), {"stamp": stamp, "elapsed_ms": "9000"})
    assert ItemVisit.objects.get(assignment=a, item_id=second).first_shown_at <= shown
    # The judgment takes the visit's first-shown time.
    ada_client.post(url(a, 1), {"item_id": second, "grade": "2"})
    assert Judgment.objects.get(item_id=second).first_shown_at == shown


def test_a_late_report_moves_first_shown_back_and_never_into_the_future(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    first, second, third = pool(a)
    stamp = stamp_of(ada_client.get(url(a, 0, "ahead/")).json()["items"][0]["html"])
    ada_client.get(url(a, 1))                                  # a reload recorded the item first, later
    reloaded = ItemVisit.objects.get(assignment=a, item_id=second).first_shown_at
    ada_client.post(url(a, 1, "shown/"), {"stamp": stamp, "elapsed_ms": "0"})   # shown offline, reported now
    assert ItemVisit.objects.get(assignment=a, item_id=second).first_shown_at < reloaded
    ada_client.post(url(a, 2, "shown/"), {"stamp": stamp_of(ada_client.get(url(a, 1, "ahead/")).json()["items"][0]
                                                            ["html"]), "elapsed_ms": str(10**11)})
    assert ItemVisit.objects.get(assignment=a, item_id=third).first_shown_at <= timezone.now()


def test_shown_times_stay_between_the_render_and_now():
    stamp = Stamp(assignment_pk=1, position=0, pool_item_pk=1, rendered_at=timezone.now().timestamp() - 10)
    assert shown_at(stamp, 4000).timestamp() == pytest.approx(stamp.rendered_at + 4, abs=0.001)
    assert shown_at(stamp, 10**9).timestamp() == pytest.approx(timezone.now().timestamp(), abs=1)


def test_a_report_with_a_bad_stamp_is_refused_and_records_nothing(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    stamp = item_stamp(assignment_pk=a.pk, position=1, pool_item_pk=PoolItem.objects.get(position=1,
                                                                                         topic=a.topic).pk)
    for position, data in [(1, {"stamp": stamp[:-2] + "xx", "elapsed_ms": "5"}), (2, {"stamp": stamp,
                                                                                      "elapsed_ms": "5"}),
                           (1, {"stamp": stamp, "elapsed_ms": "-5"}), (1, {"stamp": stamp, "elapsed_ms": "٣"}),
                           (1, {})]:
        response = ada_client.post(url(a, position, "shown/"), data)
        assert response.status_code == 400 and response.json()["errors"], data
    assert not ItemVisit.objects.exists()


def test_an_item_the_pools_no_longer_hold_is_not_current_and_not_recorded(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    first, second, _ = pool(a)
    stamp = stamp_of(ada_client.get(url(a, 0, "ahead/")).json()["items"][0]["html"])
    services.judgment_submit(assignment_pk=a.pk, item_id=first, grades=[GradeInput("2")], user=ada)
    services.pools_rebuild(campaign=answers, force=True)   # new pool rows, same items
    assert ada_client.post(url(a, 1, "shown/"), {"stamp": stamp, "elapsed_ms": "5"}).json() == {
        "recorded": False, "current": False}
    assert not ItemVisit.objects.filter(item_id=second).exists()


def test_a_submit_sent_again_under_its_key_changes_nothing(answers, ada):
    a = assign(answers, ada, "A.1")

    def submit(grade, key, active=6.0):
        return services.judgment_submit(assignment_pk=a.pk, item_id="10", grades=[GradeInput(grade)], user=ada,
                                        active_seconds=active, key=key)

    first = submit("3", KEY)
    assert (first.created, first.repeated) == (1, False)
    submit("1", "b" * 32)                                # revised since, under another key
    again = submit("3", KEY, active=50)                  # the first one's answer was lost: sent again
    assert (again.created, again.complete, again.repeated) == (1, True, True)
    judgment = Judgment.objects.get(assignment=a)
    assert (judgment.grade, judgment.revision) == ("1", 2)
    assert JudgmentRevision.objects.count() == 2
    assert ItemVisit.objects.get(assignment=a).active_seconds == 12
    assert SubmitReceipt.objects.filter(assignment=a).count() == 2


def test_a_key_used_for_another_item_or_not_a_key_is_refused(answers, ada):
    a = assign(answers, ada, "A.1")
    services.judgment_submit(assignment_pk=a.pk, item_id="10", grades=[GradeInput("3")], user=ada, key=KEY)
    for item_id, key, message in [("11", KEY, "this submit key was used for item 10"),
                                  ("11", "short", "the submit key is not valid"),
                                  ("11", "x" * 65, "the submit key is not valid"),
                                  ("11", "k\x00" * 8, "the submit key is not valid")]:
        with pytest.raises(InputError, match=message):
            services.judgment_submit(assignment_pk=a.pk, item_id=item_id, grades=[GradeInput("3")], user=ada,
                                     key=key)
    assert list(Judgment.objects.values_list("item_id", flat=True)) == ["10"]


def test_the_pages_script_gets_json_answers_and_its_resend_is_taken_once(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    first, second, _ = pool(a)
    data = {"item_id": first, "grade": "2", "active_seconds": "3", "submit_key": KEY}
    for _ in range(2):
        response = ada_client.post(url(a, 0), data, HTTP_ACCEPT="application/json")
        assert response.status_code == 200
    assert response.json() == {"saved": True, "complete": True, "repeated": True, "revision": 1,
                               "progress": {"done": 1, "total": 3}}
    assert JudgmentRevision.objects.count() == 1
    refused = ada_client.post(url(a, 1), {"item_id": second, "grade": "DK", "submit_key": "c" * 32},
                              HTTP_ACCEPT="application/json")
    assert refused.status_code == 400 and refused.json() == {
        "saved": False, "errors": ["a comment is required with Do not know (DK): say what went wrong"]}

"""Defects a new user found while judging (docs/judging.md): Back opens the item shown before (ItemVisit first-shown
order), in any judging order; a check assignment shows no LLM grade (page, items fetched ahead, API) and counts its
place among its own items; a budget's counter says "of" the budget."""
import re
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from agreement.checks import check_items_send
from judging import services
from judging.models import Assignment
from pooling.models import PoolItem
from tests.judging.fixtures import assign
from tests.judging.test_llm_suggestions import graded  # noqa: F401  (a fixture: suggest mode, item 10 graded)

pytestmark = pytest.mark.django_db


def positions(assignment) -> dict[str, int]:
    return dict(PoolItem.objects.filter(topic=assignment.topic).values_list("item_id", "position"))


def back_of(client, assignment, position: int) -> int | None:
    page = client.get(f"/assess/assignments/{assignment.pk}/items/{position}/").content.decode()
    found = re.search(rf'id="back" href="/assess/assignments/{assignment.pk}/items/(\d+)/"', page)
    return int(found.group(1)) if found else None


def shown_in_turn(assignment, item_ids: list[str]) -> None:
    """Records the items as shown, in this order, a minute apart (an adaptive order shows them so)."""
    start = timezone.now() - timedelta(hours=1)
    for n, item_id in enumerate(item_ids):
        services.item_visit(assignment=assignment, item_id=item_id, at=start + timedelta(minutes=n))


def test_back_opens_the_item_shown_before_not_the_one_before_in_the_pool(answers, ada, ada_client):
    a = assign(answers, ada, "A.1")
    at = positions(a)
    by_position = sorted(at, key=at.get)            # the pool's items, first position first
    last, first, middle = by_position[2], by_position[0], by_position[1]
    shown_in_turn(a, [last, first])                 # shown: the pool's last item, then its first
    assert back_of(ada_client, a, at[first]) == at[last]
    assert back_of(ada_client, a, at[last]) is None  # the first item shown has nothing before it
    # An item shown for the first time now goes back to the item shown last, whatever its place in the pool.
    assert back_of(ada_client, a, at[middle]) == at[first]
    # Shown again (opened by Back), an item keeps its place in what was shown.
    assert back_of(ada_client, a, at[first]) == at[last]


def test_a_check_assignment_shows_no_llm_grade_in_suggest_mode(answers, graded, ada, ada_client):  # noqa: F811
    official = assign(answers, ada, "A.1")
    at = positions(official)
    page = ada_client.get(f"/assess/assignments/{official.pk}/items/{at['10']}/").content.decode()
    assert "llm-suggestion" in page                 # the official assignment is shown the LLM's grade
    check_items_send(campaign=answers, assessor=ada, items=[("A.1", "10"), ("A.1", "11"), ("A.1", "12")])
    check = Assignment.objects.get(assessor=ada, kind=Assignment.Kind.CHECK)
    for item_id in ("10", "11", "12"):
        page = ada_client.get(f"/assess/assignments/{check.pk}/items/{at[item_id]}/").content.decode()
        assert "llm-suggestion" not in page and 'name="suggestion"' not in page, item_id
    first = min(at.values())
    ahead = ada_client.get(f"/assess/assignments/{check.pk}/items/{first}/ahead/").json()["items"]
    assert ahead and all('name="suggestion"' not in held["html"] for held in ahead)
    ada_client.defaults["HTTP_AUTHORIZATION"] = f"Token {Token.objects.create(user=ada).key}"
    served = []
    while (answer := ada_client.get(f"/api/assignments/{check.pk}/next/")).status_code == 200:
        assert answer.json()["suggestions"] == []
        served.append(answer.json()["item_id"])
        assert ada_client.post("/api/judgments/", {"assignment": check.pk, "item_id": served[-1],
                                                   "grades": [{"grade": "1"}]},
                               content_type="application/json").status_code in (200, 201)
    assert sorted(served) == ["10", "11", "12"]


def label(client, assignment, position: int) -> str:
    page = client.get(f"/assess/assignments/{assignment.pk}/items/{position}/").content.decode()
    return re.search(r'id="item-label">([^<]*)<', page).group(1)


def test_a_check_assignment_counts_its_place_among_its_own_items(answers, ada, ada_client):
    at = positions(assign(answers, ada, "A.1"))
    two_last = sorted(at, key=at.get)[1:]           # the pool's second and third items
    check_items_send(campaign=answers, assessor=ada, items=[("A.1", item) for item in two_last])
    check = Assignment.objects.get(assessor=ada, kind=Assignment.Kind.CHECK)
    assert label(ada_client, check, at[two_last[0]]) == "item 1 of 2"
    assert label(ada_client, check, at[two_last[1]]) == "item 2 of 2"
    ahead = ada_client.get(f"/assess/assignments/{check.pk}/items/{at[two_last[0]]}/ahead/").json()["items"]
    assert [re.search(r'data-label="([^"]*)"', held["html"]).group(1) for held in ahead] == ["item 2 of 2"]


def test_a_topic_budget_is_what_the_counter_counts_to(answers, ada, ada_client):
    answers.topic_budget = 2                        # A.1 pools 3 items
    answers.save()
    a = assign(answers, ada, "A.1")
    at = positions(a)
    page = ada_client.get(f"/assess/assignments/{a.pk}/items/{at['10']}/").content.decode()
    assert "0 of 2 judged" in page and 'max="2"' in page
    assert re.findall(r"\d+ of \d+ judged", ada_client.get("/assess/").content.decode()) == ["0 of 2 judged"] * 2
    answer = ada_client.post(f"/assess/assignments/{a.pk}/items/{at['10']}/", {"item_id": "10", "grade": "2"},
                             HTTP_ACCEPT="application/json").json()
    assert answer["progress"] == {"done": 1, "total": 2}
    answers.topic_budget = 5                        # above the pool: the pool's items
    answers.save()
    page = ada_client.get(f"/assess/assignments/{a.pk}/items/{at['11']}/").content.decode()
    assert "1 of 3 judged" in page

"""Positions and keys from the judging URLs: numbers past the database's integers find nothing, never fail."""
import pytest

from judging.models import Judgment
from pooling.models import PoolItem
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db
HUGE = "99999999999999999999"   # past 64 bits


@pytest.fixture
def ada_client(client, ada):
    client.force_login(ada)
    client.raise_request_exception = False
    return client


def test_a_judging_page_past_the_last_possible_position_is_not_found(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    assert ada_client.get(f"/assess/assignments/{a.pk}/items/{HUGE}/").status_code == 404
    assert ada_client.get(f"/assess/assignments/{HUGE}/items/0/").status_code == 404


def test_grades_posted_past_the_last_possible_position_are_not_found_and_not_saved(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    response = ada_client.post(f"/assess/assignments/{a.pk}/items/{HUGE}/", {"item_id": "10", "grade": "3"})
    assert response.status_code == 404
    assert ada_client.post(f"/assess/assignments/{HUGE}/items/0/", {"item_id": "10", "grade": "3"}).status_code == 404
    assert not Judgment.objects.exists()


def test_continue_after_a_huge_position_opens_the_first_item(ada_client, answers, ada):
    a = assign(answers, ada, "A.1")
    first = PoolItem.objects.filter(topic=a.topic).order_by("position").first()
    response = ada_client.get(f"/assess/assignments/{a.pk}/?after={HUGE}")
    assert response.status_code == 302
    assert response["Location"] == f"/assess/assignments/{a.pk}/items/{first.position}/"

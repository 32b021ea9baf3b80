"""A GET writes no row (docs/architecture.md): a spent judging budget is read by Continue and the API's next, the
submit that spends it closes the assignment; the training rounds page and API only read."""
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agreement import rounds
from judging import services
from judging.models import Assignment
from tests.factories import AssignmentFactory
from tests.judging.test_live_order import first, hand_made, judge

pytestmark = pytest.mark.django_db


def writes(client, url: str) -> tuple[int, list[str]]:
    """The status of a GET of `url` and the statements it sent that write a row (the session's aside)."""
    with CaptureQueriesContext(connection) as queries:
        status = client.get(url).status_code
    return status, [q["sql"] for q in queries.captured_queries
                    if q["sql"].split()[0] in ("INSERT", "UPDATE", "DELETE") and "django_session" not in q["sql"]]


def test_the_submit_that_spends_the_budget_closes_the_assignment(client):
    campaign, topic, _ = hand_made("random", topic_budget=2)
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    judge(client, a, judge(client, a, first(client, a), "3"), "0")
    a.refresh_from_db()
    assert a.closed_at is not None and a.read_only


def test_continue_and_the_api_s_next_on_a_spent_budget_write_nothing(client):
    campaign, topic, _ = hand_made("random")
    a = AssignmentFactory(topic=topic)
    client.force_login(a.assessor)
    judge(client, a, first(client, a), "3")
    campaign.topic_budget = 1  # lowered by the organizer below what is judged: spent, not yet closed
    campaign.save()
    assert writes(client, f"/assess/assignments/{a.pk}/") == (302, [])
    page = client.get(f"/assess/assignments/{a.pk}/", follow=True).content.decode()
    assert "judging budget (1 item) is spent" in page
    assert writes(client, f"/api/assignments/{a.pk}/next/") == (204, [])
    assert Assignment.objects.get(pk=a.pk).closed_at is None


def test_the_training_rounds_page_and_api_write_nothing(client, answers, ada, bob, organizer):
    rounds.training_round_create(campaign=answers, topic_ids=["A.1"], assessors=[ada, bob],
                                 gold=io.BytesIO(b"A.1\t0\t10\t3\n"), gold_name="gold")
    services.judgments_import(campaign=answers, lines=["ada\tA.1\t10\t3\t\ttraining\t1"])
    client.force_login(organizer)
    for url in (f"/campaigns/{answers.pk}/training/", f"/api/campaigns/{answers.pk}/training-rounds/",
                f"/campaigns/{answers.pk}/progress/", f"/api/campaigns/{answers.pk}/progress/",
                f"/campaigns/{answers.pk}/agreement/"):
        assert writes(client, url) == (200, []), url
    assert [r["number"] for r in client.get(f"/api/campaigns/{answers.pk}/training-rounds/").json()] == [1]

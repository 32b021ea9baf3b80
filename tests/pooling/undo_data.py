"""Shared by the undo tests: a pooled and a judged campaign, what their judgments and pools hold, an API client."""
import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from judging.models import Judgment, JudgmentRevision
from judging.services import GradeInput, judgment_submit
from pooling import services
from pooling.models import PoolItem
from tests.judging.fixtures import assign
from tests.pooling.run_files import answers_campaign


def pooled_campaign(tmp_path):
    """answers_campaign with its pools built, nothing judged."""
    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    return campaign


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def pooled(campaign, topic="A.1") -> set[str]:
    return set(PoolItem.objects.filter(campaign=campaign, topic__topic_id=topic).values_list("item_id", flat=True))


def judge(assignment, topic, item_id, grade="2"):
    item = PoolItem.objects.get(campaign=assignment.campaign, topic__topic_id=topic, item_id=item_id)
    return judgment_submit(assignment_pk=assignment.pk, item_id=item.item_id, grades=[GradeInput(grade)],
                           user=assignment.assessor)


@pytest.fixture
def judged(tmp_path, django_user_model):
    """answers_campaign with pools built, and a judgment of 15 (pooled by r3 alone) revised once."""
    campaign = pooled_campaign(tmp_path)
    ada = django_user_model.objects.create_user("ada")
    a = assign(campaign, ada, "A.1")
    judge(a, "A.1", "15", "2")
    judge(a, "A.1", "15", "3")
    judge(a, "A.1", "10", "1")
    return campaign


def judgment_rows():
    return (sorted(Judgment.objects.values_list("item_id", "grade", "revision")),
            sorted(JudgmentRevision.objects.values_list("judgment__item_id", "number", "old_grade", "grade")))

"""A judging cache warm-up that fails on one topic warms the others."""
import logging

import pytest
from django.core.cache import cache

from judging import rendering, selectors, services

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


def test_a_topic_whose_warm_up_fails_is_logged_and_the_others_are_still_warmed(answers, ada, monkeypatch, caplog):
    created = services.assignments_create(campaign=answers, assessors=[ada], topic_ids=["A.1", "A.2"]).created
    real = selectors.judging_texts

    def texts(*, topic):
        if topic.topic_id == "A.1":
            raise ValueError("a fragment the sanitizer chokes on")
        return real(topic=topic)

    monkeypatch.setattr(selectors, "judging_texts", texts)
    with caplog.at_level(logging.ERROR, logger="judging.services"):
        made = services.judging_cache_warm(assignment_pks=[a.pk for a in created])
    assert made > 0
    body = answers.collection.posts.get(post_id="20").body
    assert cache.get(rendering._cache_key(body, f"collection-{answers.collection_id}", True)) is not None
    assert "topic A.1" in caplog.text and "a fragment the sanitizer chokes on" in caplog.text

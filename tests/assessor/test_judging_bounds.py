"""What the judging pages keep per process stays bounded, and a warm-up that fails on one topic warms the others."""
import logging

import pytest
from django.core.cache import cache

from assessor import rendering, selectors, services, views

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


def test_page_fragments_kept_per_process_are_bounded(monkeypatch):
    monkeypatch.setattr(views, "_RENDERED", type(views._RENDERED)())
    monkeypatch.setattr(views, "_RENDERED_MAX", 5)
    for n in range(12):
        html = views._grade_buttons("answers", unit=n, legend="Grade", grade_name=f"grade-{n}", current=None,
                                    read_only=False)
        assert f'name="grade-{n}"' in html
    assert len(views._RENDERED) == 5
    assert all(f"grade-{n}" in str(key) for key, n in zip(views._RENDERED, range(7, 12), strict=True))  # the newest


def test_a_topic_whose_warm_up_fails_is_logged_and_the_others_are_still_warmed(answers, ada, monkeypatch, caplog):
    created = services.assignments_create(campaign=answers, assessors=[ada], topic_ids=["A.1", "A.2"]).created
    real = selectors.judging_texts

    def texts(*, topic):
        if topic.topic_id == "A.1":
            raise ValueError("a fragment the sanitizer chokes on")
        return real(topic=topic)

    monkeypatch.setattr(selectors, "judging_texts", texts)
    with caplog.at_level(logging.ERROR, logger="assessor.services"):
        made = services.judging_cache_warm(assignment_pks=[a.pk for a in created])
    assert made > 0
    body = answers.collection.posts.get(post_id="20").body
    assert cache.get(rendering._cache_key(body, f"collection-{answers.collection_id}", True)) is not None
    assert "topic A.1" in caplog.text and "a fragment the sanitizer chokes on" in caplog.text

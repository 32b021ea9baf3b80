"""The judging cache warm-up: the pages of newly assigned topics sanitized ahead of their assessor (run by
judging_cache_warm_task below, sent by assignments_create)."""
from __future__ import annotations

import logging
from collections.abc import Sequence

from celery import shared_task

from judging import rendering, selectors
from pooling.models import Topic

log = logging.getLogger(__name__)


def judging_cache_warm(*, assignment_pks: Sequence[int]) -> int:
    """Sanitizes, into the cache the judging page reads, every fragment of collection and topic HTML that the
    pages of these assignments' topics show, so that bleach does not run while an assessor waits. Fragments already
    cached are left alone. Returns how many were sanitized."""
    topics = (Topic.objects.filter(assignments__pk__in=list(assignment_pks)).distinct()
              .select_related("campaign").order_by("pk"))
    made = 0
    for topic in topics:
        # One topic that fails (a fragment the sanitizer chokes on, a cache hiccup) leaves the others warmed.
        try:
            made += rendering.judging_safe_warm(selectors.judging_texts(topic=topic),
                                                collection_pk=topic.campaign.collection_id)
        except Exception:
            log.exception("the judging cache warm-up of topic %s (pk %s) failed", topic.topic_id, topic.pk)
    return made


# Its name from when it lived in judging/tasks.py: messages already queued, and workers of the version before, find it.
@shared_task(name="judging.tasks.judging_cache_warm_task", acks_late=True)
def judging_cache_warm_task(assignment_pks: list[int]) -> int:
    return judging_cache_warm(assignment_pks=assignment_pks)

"""The stamp a judging page's item carries (docs/judging.md): which pool row the server rendered, for which assignment
and position, and when. Signed, so that the page can report later when it showed the item (the first-shown time stays
a server fact: at or after the server rendered the item, never in the future) and the server can tell whether the
pool row shown is still the one at that position (a forced rebuild replaces the rows)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.core import signing

SALT = "assessor.item-stamp"
# Longest a page may take to report that it showed an item: an assessor judging offline for a day still reports
# within this; older stamps are refused (the item is then recorded when its judgment is submitted).
MAX_AGE_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class Stamp:
    assignment_pk: int
    position: int
    pool_item_pk: int
    rendered_at: float   # epoch seconds, the server's clock


def item_stamp(*, assignment_pk: int, position: int, pool_item_pk: int, at: float | None = None) -> str:
    """The stamp of the pool item rendered now (or at `at`, epoch seconds)."""
    return signing.dumps([assignment_pk, position, pool_item_pk, round(time.time() if at is None else at, 3)],
                         salt=SALT)


def stamp_read(token: str) -> Stamp | None:
    """The stamp, or None when it is not one of ours (altered, or from another secret key) or too old."""
    try:
        values = signing.loads(token, salt=SALT, max_age=MAX_AGE_SECONDS)
        assignment_pk, position, pool_item_pk, rendered_at = values
        return Stamp(int(assignment_pk), int(position), int(pool_item_pk), float(rendered_at))
    except (signing.BadSignature, ValueError, TypeError):
        return None


def shown_at(stamp: Stamp, elapsed_ms: int) -> datetime:
    """When the page showed the item: the render time plus what the page measured from asking for the item to showing
    it (a difference on its own clock, so no clock needs to agree with the server's). The render came after the
    asking, so the time is never before the true moment (at most the request's duration after it); and never before
    the render nor after now, whatever the page says."""
    now = time.time()
    at = min(max(stamp.rendered_at + elapsed_ms / 1000, stamp.rendered_at), now)
    return datetime.fromtimestamp(at, tz=UTC)

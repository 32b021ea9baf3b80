"""What the server heard of the judging pages' outboxes: each submit by the browser that made it and its number there
(docs/judging.md, "Nothing lost")."""
from __future__ import annotations

from django.contrib.auth.models import User
from django.utils import timezone

from judging.models import BrowserSubmit


def browser_submit_heard(*, user: User, browser: str, number: int) -> None:
    """Records that submit `number` of `browser` reached the server (saved, refused or answered with a conflict: the
    browser no longer holds it). A resend is recorded once (INSERT ... ON CONFLICT DO NOTHING)."""
    BrowserSubmit.objects.bulk_create([BrowserSubmit(user=user, browser=browser, number=number, at=timezone.now())],
                                      ignore_conflicts=True)

"""Template context: whether the signed-in user is an organizer (for the navigation)."""
import time

from django.utils.functional import SimpleLazyObject

from core.permissions import is_organizer

# The navigation's organizer flag is kept in the session for this long: one auth_group query per user every few
# minutes instead of one on every page. It only picks the links shown; every organizer page and endpoint checks
# the role itself on each request (core.permissions: organizer_required, IsOrganizer).
ROLE_SECONDS = 300
SESSION_KEY = "_nav_is_organizer"


def _is_organizer(request) -> bool:
    user = request.user
    session = getattr(request, "session", None)
    if session is None:
        return is_organizer(user)
    saved = session.get(SESSION_KEY)
    now = time.time()
    # The user's pk is part of the saved value: a session is one user's, but a value saved for anyone else is
    # never reused.
    if isinstance(saved, list) and len(saved) == 3 and saved[0] == user.pk and now - saved[2] < ROLE_SECONDS:
        return bool(saved[1])
    value = is_organizer(user)
    session[SESSION_KEY] = [user.pk, value, now]
    return value


def roles(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_organizer": False}
    # Lazy: a page that does not show the navigation does not ask.
    return {"is_organizer": SimpleLazyObject(lambda: _is_organizer(request))}

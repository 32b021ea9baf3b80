"""Template context: whether the signed-in user is an organizer (for the navigation)."""
from .permissions import is_organizer


def roles(request) -> dict:
    user = getattr(request, "user", None)
    return {"is_organizer": bool(user) and is_organizer(user)}

"""Who is an organizer (superusers and members of the `organizers` group), and the checks of every organizer page
and API: the one place any app takes them from."""
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import BasePermission

ORGANIZERS = "organizers"


def is_organizer(user: User | AnonymousUser) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    # Remembered on the account object for the rest of its request (as Django's ModelBackend keeps _perm_cache).
    cached: bool | None = getattr(user, "_is_organizer", None)
    if cached is None:
        cached = user.groups.filter(name=ORGANIZERS).exists()
        setattr(user, "_is_organizer", cached)  # noqa: B010 (a private memo the User model does not declare)
    return cached


class IsOrganizer(BasePermission):
    message = "Only organizers may do this."

    def has_permission(self, request, view) -> bool:
        return is_organizer(request.user)


def organizer_required(view):
    """Anonymous users go to the login page; signed-in non-organizers get 403."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not is_organizer(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper

"""Who is an organizer: superusers and members of the `organizers` group."""
from django.contrib.auth.models import AnonymousUser, User
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

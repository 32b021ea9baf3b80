"""Who is an organizer: superusers and members of the `organizers` group."""
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from rest_framework.permissions import BasePermission

ORGANIZERS = "organizers"


def is_organizer(user: AbstractBaseUser | AnonymousUser) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    cached = getattr(user, "_is_organizer", None)
    if cached is None:
        cached = user.groups.filter(name=ORGANIZERS).exists()
        user._is_organizer = cached
    return cached


class IsOrganizer(BasePermission):
    message = "Only organizers may do this."

    def has_permission(self, request, view) -> bool:
        return is_organizer(request.user)

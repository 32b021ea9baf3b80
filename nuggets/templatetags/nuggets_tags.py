"""Template tags for other apps' pages that point at the nugget pages: the assessor's home page links "My support
assignments" when there are any (docs/nuggets.md, "Support judging"), without a line of Python in judging."""
from __future__ import annotations

from django import template

from nuggets.models import SupportAssignment

register = template.Library()


@register.simple_tag
def has_support_assignments(user) -> bool:
    """Whether `user` holds a support assignment not withdrawn."""
    if user is None or not user.is_authenticated:
        return False
    return SupportAssignment.objects.filter(assessor=user, withdrawn_at__isnull=True).exists()

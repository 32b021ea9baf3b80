"""`{% help_url %}`: the help page of the page being shown (core.help.HELP_FOR_VIEW), else the help index."""
from django import template
from django.urls import reverse

from core.help import help_page_for

register = template.Library()


@register.simple_tag(takes_context=True)
def help_url(context) -> str:
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    page = help_page_for(match.view_name if match else None)
    return reverse("help:page", args=[page]) if page else reverse("help:index")

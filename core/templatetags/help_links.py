"""`{% help_url %}`: the help page of the page being shown (core.help.HELP_FOR_VIEW), else the help index;
`{{ text|help_links }}`: pointers into docs/ in a text as links to the help pages."""
from django import template
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from core.help import help_page_for, help_pointers

register = template.Library()


@register.simple_tag(takes_context=True)
def help_url(context) -> str:
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    page = help_page_for(match.view_name if match else None)
    return reverse("help:page", args=[page]) if page else reverse("help:index")


@register.filter
def help_links(text: object) -> SafeString:
    """A help text with its pointers into docs/ as links to the site's help pages (core.help.help_pointers, which
    escapes everything it does not link)."""
    return mark_safe(help_pointers(str(text)))

"""Command lines the pages show for copying into a shell: a value quoted so that the shell reads it as one word
(a campaign named "ARQMath-3 Task 1 demo" pasted bare would be three)."""
import shlex

from django import template

register = template.Library()


@register.filter
def shell_word(value: object) -> str:
    """`value` as one shell word: as it is when it needs no quoting, else in single quotes (shlex.quote)."""
    return shlex.quote(str(value))

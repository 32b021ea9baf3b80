"""Topic titles and formulas on the organizer's pages: shortened without cutting a formula (docs/decisions.md, "The
front end"), to be typeset by the pages' MathJax (only inside an element of class tex2jax_process)."""
import html
import re

from django import template
from django.utils.html import strip_tags

register = template.Library()

# A formula as MathJax finds it (mathjax-config.js): $$...$$, $...$, \[...\], \(...\); \$ is a dollar sign. An
# opening delimiter that is never closed runs to the end of the text (MathJax would not typeset it, but cutting
# there would still cut a command in half).
MATH = re.compile(r"\$\$.*?(?:\$\$|\Z)|(?<!\\)\$(?:\\.|[^$\\])*?(?:\$|\Z)|\\\[.*?(?:\\\]|\Z)|\\\(.*?(?:\\\)|\Z)",
                  re.DOTALL)
ELLIPSIS = "…"


def truncate_math(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters (the ellipsis included), at a space where one is near, and never
    inside a formula: a formula the cut would split is left out whole, or kept whole if nothing comes before it."""
    if len(text) <= limit:
        return text
    cut = max(limit - len(ELLIPSIS), 0)
    formulas = [(m.start(), m.end()) for m in MATH.finditer(text)]
    split = next(((start, end) for start, end in formulas if start < cut < end), None)
    if split:
        cut = split[0] if split[0] > 0 else split[1]
    else:
        spaces = [i for i in range(cut, cut // 2, -1) if text[i] == " "
                  and not any(start < i < end for start, end in formulas)]
        if spaces:
            cut = spaces[0]
    return text[:cut].rstrip() + ELLIPSIS


@register.filter
def math_title(value: str, limit: int = 120) -> str:
    """A topic title (HTML from the topics file) as plain text with its formulas whole, shortened to `limit`."""
    return truncate_math(" ".join(html.unescape(strip_tags(value or "")).split()), int(limit))

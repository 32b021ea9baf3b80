"""Help in the site (docs/deploy.md, "Help in the site"): the user-facing pages of docs/ rendered from their Markdown at
/help/<page>/, their screenshots at /help/img/<name>, and which page helps with which view (the Help link of every
page).

Only the pages of HELP_PAGES are served, and an image only when its name is one of the files docs/img holds: the
address picks an entry of a fixed list, never a path. The HTML goes through one bleach allow-list, like collection
HTML (judging/rendering.py). Links between help pages and to docs/img are rewritten to the site's addresses; a link
to a page that is not served here (the code, the benchmarks) is shown as plain text.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from bleach.sanitizer import Cleaner
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

if TYPE_CHECKING:
    from markdown_it.token import Token

# The pages an organizer or an assessor reads, in the order of the help index: name -> title.
HELP_PAGES: dict[str, str] = {
    "judging": "Judging",
    "pooling": "Pooling",
    "formats": "Input formats",
    "evaluation": "Qrels and evaluation",
    "analysis": "Analysis",
    "agreement": "Agreement and progress",
    "llm": "LLM co-assessor",
    "accounts": "Accounts and API tokens",
    "deploy": "Deployment and operations",
}

# The help page of each view (url namespace:name, or the namespace alone), for the Help link in the top bar.
HELP_FOR_VIEW: dict[str, str] = {
    "workflow:run_upload": "formats", "workflow:topics_upload": "formats", "workflow:run_fuse": "evaluation",
    "workflow:judgments_upload": "formats", "workflow:collections": "formats",
    "workflow": "pooling",
    "agreement": "agreement",
    "judging": "judging", "characterisation": "judging",
    "evaluation:reusability": "analysis", "evaluation:topic_info": "analysis",
    "evaluation": "evaluation",
    "llm": "llm",
    "people": "accounts", "api-docs": "accounts", "password_change": "accounts", "password_change_done": "accounts",
}

_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "p", "a", "img", "ul", "ol", "li", "code", "pre", "em",
                   "strong", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "hr", "br", "span", "del"})
_ATTRIBUTES = {"a": ["href", "title"], "img": ["src", "alt", "title"], "code": ["class"],
               **{f"h{n}": ["id"] for n in range(1, 7)}}
_CLEANER = Cleaner(tags=_TAGS, attributes=_ATTRIBUTES, protocols=frozenset({"http", "https"}), strip=True)
_IMAGE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\.png")
_MD_LINK = re.compile(r"(?:\./)?([a-z]+)\.md(#[A-Za-z0-9_-]*)?")


def docs_dir() -> Path:
    return Path(settings.BASE_DIR) / "docs"


def help_page_for(view_name: str | None) -> str | None:
    """The help page of a view, by its full url name ("workflow:pools") or its namespace; None when none helps."""
    if not view_name:
        return None
    return HELP_FOR_VIEW.get(view_name) or HELP_FOR_VIEW.get(view_name.split(":", 1)[0])


def _slug(text: str) -> str:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _href(target: str) -> str | None:
    """The site's address for a link of a docs page, or None to show the link as plain text."""
    if target.startswith(("http://", "https://", "#")):
        return target
    if target.startswith("img/") and _IMAGE_NAME.fullmatch(target[4:]):
        return reverse("help:image", args=[target[4:]])
    match = _MD_LINK.fullmatch(target)
    if match and match.group(1) in HELP_PAGES:
        return reverse("help:page", args=[match.group(1)]) + (match.group(2) or "")
    return None


# A pointer into the docs in a page's text: `docs/pooling.md`, optionally followed by its section, as help texts write
# it ("docs/pooling.md, Live order and budgets" or 'docs/pooling.md "Live order and budgets"').
_POINTER = re.compile(r'docs/([a-z]+)\.md(?:(, )([A-Z][^;,()"]*[^;,()" ])|( ")([^"]+)")?')


def help_pointers(text: str) -> str:
    """`text`, escaped, with each pointer into a served help page made a link to it (its section's anchor where the
    pointer names one); a pointer to a page that is not served stays plain text."""
    from django.utils.html import escape

    out, last = [], 0
    for match in _POINTER.finditer(text):
        page = match.group(1)
        if page not in HELP_PAGES:
            continue
        section = match.group(3) or match.group(5)
        href = reverse("help:page", args=[page]) + (f"#{_slug(section)}" if section else "")
        out += [escape(text[last:match.start()]), f'<a href="{escape(href)}">{escape(match.group(0))}</a>']
        last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _rewrite(tokens: list[Token]) -> None:
    """Links and images to the site's addresses; heading ids for the anchors the pages link to."""
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            token.attrSet("id", _slug(tokens[i + 1].content))
        dead: list[bool] = []
        for child in token.children or []:
            if child.type == "link_open":
                href = _href(str(child.attrGet("href") or ""))
                dead.append(href is None)
                if href is None:
                    child.tag, child.attrs = "span", {}
                else:
                    child.attrSet("href", href)
            elif child.type == "link_close" and dead and dead.pop():
                child.tag = "span"
            elif child.type == "image":
                src = _href(str(child.attrGet("src") or ""))
                child.attrSet("src", src or "")


@functools.lru_cache(maxsize=32)
def _rendered(name: str, mtime: float) -> str:
    from markdown_it import MarkdownIt  # only when a help page is shown: commands and other pages start without it
    text = (docs_dir() / f"{name}.md").read_text(encoding="utf-8")
    md = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    tokens = md.parse(text)
    _rewrite(tokens)
    return _CLEANER.clean(md.renderer.render(tokens, md.options, {}))


def help_html(name: str) -> str:
    """The sanitized HTML of help page `name` (a key of HELP_PAGES)."""
    path = docs_dir() / f"{name}.md"
    return _rendered(name, path.stat().st_mtime)


@login_required
@require_safe
def help_index(request: HttpRequest) -> HttpResponse:
    return render(request, "help/index.html", {"pages": HELP_PAGES.items()})


@login_required
@require_safe
def help_page(request: HttpRequest, page: str) -> HttpResponse:
    if page not in HELP_PAGES:
        raise Http404("No such help page")
    return render(request, "help/page.html", {"page": page, "title": HELP_PAGES[page], "pages": HELP_PAGES.items(),
                                              "html": help_html(page)})


@login_required
@require_safe
def help_image(request: HttpRequest, name: str) -> FileResponse:
    """A screenshot of docs/img, by a name found among that folder's files (never joined from the address)."""
    images = {path.name: path for path in (docs_dir() / "img").glob("*.png")}
    if name not in images:
        raise Http404("No such image")
    return FileResponse(images[name].open("rb"), content_type="image/png")

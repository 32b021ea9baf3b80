"""The one sanitizer for collection and topic HTML (docs/judging.md, "Rendering and the link policy"): bleach with an
allow-list, then the link policy.

- A link to a post of the collection (math.stackexchange.com `/questions/<id>`, `/q/<id>`, `/a/<id>`, absolute
  or relative) points to that post's local thread view.
- Every other link becomes plain text marked external: not followable.
- Images are never loaded (the collection's live on other hosts): their alt text is shown instead.
- Formula spans keep their formula id as `data-formula-id` (ids may repeat across posts on one page), and the
  instances asked for are highlighted.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape  # what html5lib's serializer escapes attribute values with

from bleach import html5lib_shim
from bleach.sanitizer import Cleaner
from django.core.cache import cache
from django.urls import reverse

ALLOWED_TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "s", "span", "strike", "strong", "sub", "sup",
    "table", "tbody", "td", "th", "thead", "tr", "ul",
})
ALLOWED_ATTRIBUTES = {
    "a": ["href", "title"],
    "abbr": ["title"],
    "img": ["alt", "title", "src"],
    "span": ["class", "id"],
    "td": ["colspan", "rowspan"],
    "th": ["colspan", "rowspan"],
}
_SITE = r"(?:(?:https?:)?//(?:www\.)?math\.stackexchange\.com)?"
_INTERNAL = [
    # /questions/<q>/<slug>/<a>#<a> is how Stack Exchange links to an answer inside its question's page.
    re.compile(_SITE + r"/questions/\d+/[^/?#]*/(?P<id>\d+)(?:[/?#].*)?$", re.I),
    re.compile(_SITE + r"/(?:questions|q|a)/(?P<id>\d+)(?:[/?#].*)?$", re.I),
]
# Bleach drops these tags but keeps their text; their text is code, not content, so it goes first. (Safety does
# not depend on this: whatever is left still goes through bleach.)
_CODE_ELEMENTS = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.I | re.S)
MATH_CLASS = "math-container"
HIGHLIGHT_CLASS = "math-container hl"

PostUrl = Callable[[str], str]

if TYPE_CHECKING:
    # bleach's vendored html5lib, which its stubs type as html5lib itself without re-exporting Filter.
    from html5lib.filters.base import Filter
else:
    Filter = html5lib_shim.Filter


def internal_post_id(href: str) -> str | None:
    """The post id a link points to when it is a link into the collection's site, else None."""
    href = href.strip()
    for pattern in _INTERNAL:
        match = pattern.match(href)
        if match:
            return match.group("id")
    return None


class _LinkPolicy(Filter):
    """Rewrites the sanitized token stream: internal links to `post_url(post id)` (in a new tab with `new_tab`)."""

    def __init__(self, source, *, post_url: PostUrl, new_tab: bool) -> None:
        super().__init__(source)
        self.post_url = post_url
        self.new_tab = new_tab

    def __iter__(self):
        # For each open <a>: whether it was turned into a <span>, so its end tag follows.
        anchors: list[bool] = []
        for token in super().__iter__():
            kind, name = token["type"], token.get("name")
            if name == "a" and kind == "StartTag":
                token, external = self._anchor(token)
                anchors.append(external)
            elif name == "a" and kind == "EndTag":
                if anchors and anchors.pop():
                    token = {"type": "EndTag", "name": "span", "data": {}}
            elif name == "img" and kind in ("StartTag", "EmptyTag"):
                yield from self._image(token)
                continue
            elif name == "span" and kind == "StartTag":
                token = self._span(token)
            yield token

    def _anchor(self, token):
        href = token["data"].get((None, "href"), "")
        post_id = internal_post_id(href) if href else None
        if post_id is not None:
            data = {(None, "href"): self.post_url(post_id), (None, "class"): "internal-link"}
            if self.new_tab:
                data[(None, "target")] = "_blank"
                data[(None, "rel")] = "noopener"
            return {"type": "StartTag", "name": "a", "data": data}, False
        title = f"External link, not followed: {href}" if href else "Link without a target"
        return {"type": "StartTag", "name": "span",
                "data": {(None, "class"): "external-link", (None, "title"): title}}, True

    @staticmethod
    def _image(token):
        alt = token["data"].get((None, "alt"), "").strip() or "image"
        yield {"type": "StartTag", "name": "span", "data": {(None, "class"): "image-alt",
                                                           (None, "title"): "Images from other sites are not loaded"}}
        yield {"type": "Characters", "data": f"[{alt}]"}
        yield {"type": "EndTag", "name": "span", "data": {}}

    @staticmethod
    def _span(token):
        attrs = token["data"]
        classes = attrs.get((None, "class"), "").split()
        data = {}
        if MATH_CLASS in classes:
            data[(None, "class")] = MATH_CLASS
            formula_id = attrs.get((None, "id"), "")
            if formula_id:
                data[(None, "data-formula-id")] = formula_id
        return {"type": "StartTag", "name": "span", "data": data}


def _cleaner(post_url: PostUrl, new_tab: bool) -> Cleaner:
    policy = partial(_LinkPolicy, post_url=post_url, new_tab=new_tab)
    return Cleaner(tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, protocols=frozenset({"http", "https"}),
                   strip=True, strip_comments=True, filters=[policy])


def sanitize(html: str, *, post_url: PostUrl, new_tab: bool = False) -> str:
    """Collection or topic HTML made safe to show; see the module docstring for what it keeps."""
    return _cleaner(post_url, new_tab).clean(_CODE_ELEMENTS.sub("", html or ""))


def highlight(safe_html: str, formula_ids: Iterable[str]) -> str:
    """Marks the formula spans of the given ids in sanitized HTML (the sanitizer writes their markup)."""
    for formula_id in formula_ids:
        attr = escape(formula_id, {'"': "&quot;"})
        safe_html = safe_html.replace(f'class="{MATH_CLASS}" data-formula-id="{attr}"',
                                      f'class="{HIGHLIGHT_CLASS}" data-formula-id="{attr}"')
    return safe_html


# Posts do not change, and a campaign's judging runs for weeks: the judging pages' fragments are sanitized ahead
# of the assessor when topics are assigned (judging_safe_warm) and must still be there when the items come up.
SAFE_HTML_SECONDS = 60 * 24 * 3600
# Fragments per cache round trip when warming: bounds the memory and the size of one Redis command.
WARM_BATCH = 500


def _cache_key(html: str, scope: str, new_tab: bool) -> str:
    return f"safe-html:v1:{scope}:{int(new_tab)}:{hashlib.blake2b((html or '').encode(), digest_size=16).hexdigest()}"


def sanitize_cached(html: str, *, scope: str, post_url: PostUrl, new_tab: bool = False) -> str:
    """sanitize() through the cache: posts do not change, and assessors see the same question again and again.

    `scope` names what post_url depends on (the collection); the key includes a digest of the HTML itself.
    """
    return sanitize_cached_many([html], scope=scope, post_url=post_url, new_tab=new_tab)[0]


def sanitize_cached_many(htmls: Sequence[str], *, scope: str, post_url: PostUrl, new_tab: bool = False) -> list[str]:
    """sanitize_cached() of several fragments with one cache round trip to read them and at most one to write."""
    return _through_cache(htmls, scope=scope, post_url=post_url, new_tab=new_tab)[0]


def _through_cache(htmls: Sequence[str], *, scope: str, post_url: PostUrl, new_tab: bool) -> tuple[list[str], int]:
    """The fragments sanitized, read from the cache where they are and sanitized and stored where they are not;
    and how many were sanitized."""
    keys = [_cache_key(html, scope, new_tab) for html in htmls]
    found = cache.get_many(list(dict.fromkeys(keys)))
    made: dict[str, str] = {}
    safe = []
    for html, key in zip(htmls, keys, strict=True):
        value = found.get(key)
        if value is None:
            value = made.get(key)
            if value is None:
                value = made[key] = sanitize(html, post_url=post_url, new_tab=new_tab)
        safe.append(value)
    if made:
        cache.set_many(made, timeout=SAFE_HTML_SECONDS)
    return safe, len(made)


# -- the judging page's fragments: one scope, link target and tab policy for the page and for the warm-up


def thread_url(collection_pk: int) -> PostUrl:
    """The post-url function of a collection: a post's local thread view, scrolled to the post."""
    def url(post_id: str) -> str:
        return reverse("judging:thread", args=[collection_pk, post_id]) + f"#post-{post_id}"
    return url


def collection_safe(html: str, collection_pk: int | None, *, new_tab: bool, marks=()) -> str:
    """A fragment of a collection's posts or topics, sanitized through the cache, its links to the collection's
    thread view, and `marks` (formula ids) highlighted: the thread, topic and disagreement pages."""
    return collection_safe_many([(html, marks)], collection_pk, new_tab=new_tab)[0]


def collection_safe_many(fragments: Sequence[tuple[str, Iterable[str]]], collection_pk: int | None, *,
                         new_tab: bool) -> list[str]:
    """collection_safe() of several (html, marks) fragments, with one cache round trip to read them."""
    safe = sanitize_cached_many([html for html, _marks in fragments], scope=f"collection-{collection_pk}",
                                post_url=thread_url(collection_pk or 0), new_tab=new_tab)
    return [highlight(html, marks) if marks else html for html, (_html, marks) in zip(safe, fragments, strict=True)]


def _judging_options(collection_pk: int | None) -> dict:
    # A campaign without a collection: its links go where the topic page's do (collection_safe), not to a
    # NoReverseMatch.
    return {"scope": f"collection-{collection_pk}", "post_url": thread_url(collection_pk or 0), "new_tab": True}


def judging_safe_many(htmls: Sequence[str], *, collection_pk: int | None) -> list[str]:
    """The judging page's fragments of a collection, sanitized through the cache (links open in a new tab)."""
    return _through_cache(htmls, **_judging_options(collection_pk))[0]


def judging_safe_fragments(fragments: dict[str, tuple[str, list[str]]], *, collection_pk: int | None
                           ) -> dict[str, str]:
    """Every fragment of a judging page (selectors.judging_fragments: name -> (html, formula ids to highlight)),
    sanitized together (one cache round trip) with its formulas highlighted; empty ones stay empty."""
    wanted = [name for name, (html, _marks) in fragments.items() if html]
    safe = dict.fromkeys(fragments, "")
    for name, html in zip(wanted, judging_safe_many([fragments[name][0] for name in wanted],
                                                    collection_pk=collection_pk), strict=True):
        marks = fragments[name][1]
        safe[name] = highlight(html, marks) if marks else html
    return safe


def judging_safe_warm(htmls: Iterable[str], *, collection_pk: int | None) -> int:
    """Puts the judging page's sanitized form of each fragment in the cache, under the key the page reads, unless it
    is there already, WARM_BATCH fragments per cache round trip. Returns how many were sanitized."""
    options = _judging_options(collection_pk)
    fragments = (html for html in htmls if html)
    made = 0
    while batch := list(islice(fragments, WARM_BATCH)):
        made += _through_cache(batch, **options)[1]
    return made

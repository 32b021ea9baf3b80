"""Collection and topic HTML as plain text with its LaTeX, for a language model's prompt (docs/llm.md): the text of
every element, block elements on lines of their own, a formula span as its `$...$` source, an image as its alt
text; script and style dropped. Nothing of it reaches a browser, so nothing needs escaping: the entities are
decoded. No Django."""
from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = frozenset({"address", "article", "blockquote", "br", "dd", "div", "dl", "dt", "h1", "h2", "h3", "h4",
                     "h5", "h6", "hr", "li", "ol", "p", "pre", "section", "table", "tbody", "td", "th", "thead",
                     "tr", "ul"})
_DROPPED = frozenset({"script", "style", "template"})
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.dropping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DROPPED:
            self.dropping += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self.parts.append(f"[image: {alt}]")

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED:
            self.dropping = max(self.dropping - 1, 0)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.dropping:
            self.parts.append(data)


def html_text(html: str) -> str:
    """`html` as plain text: paragraphs on lines of their own (one blank line between), spaces collapsed, formulas
    as the LaTeX they were written in."""
    if not html:
        return ""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parser.parts).split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()

"""Streaming, defused readers of the Stack Exchange dump (Posts.xml, Comments.xml).

Also holds the safe SAX feeding shared with the topic reader, and the tag normalizer.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import Locator

import defusedxml.sax
from defusedxml.common import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden

from ir.formats.textio import FIELD_MAX, field_problem, no_rows, shown
from ir.problems import Problems

# Small enough that the rows collected between two yields stay few, large enough to be fast.
XML_CHUNK = 1 << 18
_INTEGER = re.compile(r"[+-]?[0-9]+")
# The most digits (after leading zeros) of an integer a reader converts: past every integer column's range, and far
# below the 4,300 digits beyond which int() raises ValueError instead of converting.
INT_DIGITS_MAX = 18
_ANGLE_TAGS = re.compile(r"<([^<>]*)>")
_TAG_SEPARATORS = re.compile(r"[|,\s]+")
_KINDS = {1: "question", 2: "answer"}


class PostRecord(NamedTuple):
    line: int
    post_id: str
    kind: str  # 'question' or 'answer' ('document' from JSONL)
    thread_id: str
    title: str
    body: str  # HTML, as the attribute holds it
    tags: str  # space-separated
    score: int | None
    created_at: str
    owner_user_id: str
    accepted_answer_id: str


class CommentRecord(NamedTuple):
    line: int
    comment_id: str
    post_id: str
    score: int | None
    text: str
    user_id: str
    created_at: str


class StopParsing(Exception):
    """Raised by a handler that has seen enough (a wrong root element, or only the root wanted)."""


def parse_int(text: str) -> int | None:
    """Integer in plain ASCII digits, or None: int() alone would also take '1_000' and other scripts' digits. An
    integer of more than INT_DIGITS_MAX digits is None too (see too_long_integer for the message)."""
    text = text.strip()
    if text.isdigit() and text.isascii() and len(text) <= INT_DIGITS_MAX:  # the common case, without the regex
        return int(text)
    if not _INTEGER.fullmatch(text) or len(text.lstrip("+-").lstrip("0")) > INT_DIGITS_MAX:
        return None
    return int(text)


def too_long_integer(text: str) -> bool:
    """Whether a field parse_int refused is an integer after all, of more than INT_DIGITS_MAX digits."""
    return _INTEGER.fullmatch(text.strip()) is not None


def int_refusal(text: str) -> str:
    """How a message says why parse_int refused a field: 'is out of range' or 'is not an integer'."""
    return "is out of range" if too_long_integer(text) else "is not an integer"


def normalize_tags(value: str) -> str:
    """'<a><b>', '|a|b|', 'a,b' or 'a b' -> 'a b'."""
    value = value.strip()
    names = _ANGLE_TAGS.findall(value) if value.startswith("<") else _TAG_SEPARATORS.split(value)
    return " ".join(name.strip() for name in names if name.strip())


def feed_xml(stream: BinaryIO, handler: ContentHandler, problems: Problems) -> Iterator[None]:
    """Feeds the stream to a defused SAX parser chunk by chunk, yielding after each chunk.

    The caller drains what the handler collected at each yield. Any XML-level problem is added
    once with its line number and ends the parsing.
    """
    parser = defusedxml.sax.make_parser()
    parser.setContentHandler(handler)
    handler.setDocumentLocator(parser)
    try:
        chunk = stream.read(XML_CHUNK)
        if not chunk:
            problems.add(1, "empty file")
            return
        while chunk:
            parser.feed(chunk)
            yield
            chunk = stream.read(XML_CHUNK)
        parser.close()
    except (EntitiesForbidden, DTDForbidden):
        problems.add(parser.getLineNumber(), "entity declarations are not allowed")
    except ExternalReferenceForbidden:
        problems.add(parser.getLineNumber(), "external entities are not allowed")
    except SAXParseException as exc:
        problems.add(exc.getLineNumber(), f"malformed XML: {exc.getMessage()}")
    except StopParsing:
        pass
    yield


class _RowHandler(ContentHandler):
    """Collects (line, attributes) of every <row> directly under the expected root element.

    A row with an attribute longer than FIELD_MAX bytes is reported and left out; `count` counts every row.
    """

    _locator: Locator  # set by the parser (ContentHandler.setDocumentLocator) before the first element

    def __init__(self, root: str, problems: Problems) -> None:
        super().__init__()
        self.root = root
        self.problems = problems
        self.depth = 0
        self.count = 0
        self.rows: list[tuple[int, dict[str, str]]] = []

    def startElement(self, name, attrs):
        self.depth += 1
        line = self._locator.getLineNumber()
        assert line is not None  # expat always knows its line
        if self.depth == 1 and name != self.root:
            self.problems.add(line, f"root element is <{name}>, expected <{self.root}>")
            raise StopParsing
        if self.depth == 2 and name == "row":
            self.count += 1
            values = dict(attrs.items())
            # One C-level pass over the lengths; each value measured in bytes only when it could be too long.
            if values and max(map(len, values.values())) > FIELD_MAX // 4:
                too_long = [problem for key, value in values.items() if (problem := field_problem(key, value))]
                if too_long:
                    self.problems.add_all(line, too_long)
                    return
            self.rows.append((line, values))

    def endElement(self, name):
        self.depth -= 1

    def drain(self) -> list[tuple[int, dict[str, str]]]:
        rows, self.rows = self.rows, []
        return rows


def iter_rows(stream: BinaryIO, problems: Problems, root: str) -> Iterator[tuple[int, dict[str, str]]]:
    """Yields (line, attributes) of each <row> under <root>, as the file is read; a file without rows is a problem."""
    handler = _RowHandler(root, problems)
    for _ in feed_xml(stream, handler, problems):
        yield from handler.drain()
    no_rows(handler.count, problems)


def read_posts(stream: BinaryIO, problems: Problems, warnings: Problems) -> Iterator[PostRecord]:
    """Questions and answers of a Posts.xml; other post types are counted in one warning. A file of other post
    types only is a problem: it would make an empty collection."""
    skipped = taken = 0
    for line, attrs in iter_rows(stream, problems, "posts"):
        type_id = parse_int(attrs.get("PostTypeId", ""))
        if type_id is not None and type_id not in _KINDS:
            skipped += 1
            continue
        errors: list[str] = []
        record = _post_record(line, attrs, errors)
        problems.add_all(line, errors)
        if record is not None:
            taken += 1
            yield record
    if skipped:
        rows = "row" if skipped == 1 else "rows"
        warnings.add(None, f"skipped {skipped} {rows} of other post types")
        if not taken and not problems:
            problems.add(None, f"the file has no questions or answers ({skipped} {rows} of other post types)")


def _post_record(line: int, attrs: dict[str, str], errors: list[str]) -> PostRecord | None:
    post_id = _required(attrs, "Id", errors)
    kind = _post_kind(attrs, errors)
    parent_id = attrs.get("ParentId", "").strip()
    if kind == "answer" and not parent_id:
        errors.append("answer without ParentId")
    score = _score(attrs, errors)
    if errors:
        return None
    # tuple.__new__ skips the namedtuple's Python-level constructor: this runs once per post.
    return tuple.__new__(PostRecord, (
        line,
        post_id,
        kind,
        post_id if kind == "question" else parent_id,
        attrs.get("Title", ""),
        attrs.get("Body", ""),
        normalize_tags(attrs.get("Tags", "")),
        score,
        attrs.get("CreationDate", "").strip(),
        attrs.get("OwnerUserId", "").strip(),
        attrs.get("AcceptedAnswerId", "").strip(),
    ))


def _post_kind(attrs: dict[str, str], errors: list[str]) -> str:
    raw = attrs.get("PostTypeId", "").strip()
    if not raw:
        errors.append("missing attribute PostTypeId")
        return ""
    type_id = parse_int(raw)
    if type_id is None:
        errors.append(f"PostTypeId '{shown(raw)}' {'is out of range' if too_long_integer(raw) else 'is not a number'}")
        return ""
    return _KINDS[type_id]


def read_comments(stream: BinaryIO, problems: Problems) -> Iterator[CommentRecord]:
    """Comments of a Comments.xml."""
    for line, attrs in iter_rows(stream, problems, "comments"):
        errors: list[str] = []
        comment_id = _required(attrs, "Id", errors)
        post_id = _required(attrs, "PostId", errors)
        score = _score(attrs, errors)
        problems.add_all(line, errors)
        if errors:
            continue
        yield CommentRecord(
            line=line,
            comment_id=comment_id,
            post_id=post_id,
            score=score,
            text=attrs.get("Text", ""),
            user_id=attrs.get("UserId", "").strip(),
            created_at=attrs.get("CreationDate", "").strip(),
        )


def _required(attrs: dict[str, str], name: str, errors: list[str]) -> str:
    value = attrs.get(name, "").strip()
    if not value:
        errors.append(f"missing attribute {name}")
    return value


def _score(attrs: dict[str, str], errors: list[str]) -> int | None:
    raw = attrs.get("Score", "").strip()
    if not raw:
        return None
    score = parse_int(raw)
    if score is None:
        errors.append(f"Score '{shown(raw)}' {int_refusal(raw)}")
    return score


class _RootHandler(ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.root: str | None = None

    def startElement(self, name, attrs):
        self.root = name
        raise StopParsing


def xml_root_name(source: str | os.PathLike | BinaryIO, problems: Problems | None = None) -> str | None:
    """Name of the root element, reading only up to it; None if the start is not well-formed XML (then `problems`
    gets the parser's problem with its line)."""
    problems = problems if problems is not None else Problems()
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as stream:
            return _root_name(stream, problems)
    start = source.tell() if source.seekable() else None
    try:
        return _root_name(source, problems)
    finally:
        if start is not None:
            source.seek(start)


def _root_name(stream: BinaryIO, problems: Problems) -> str | None:
    handler = _RootHandler()
    for _ in feed_xml(stream, handler, problems):
        if handler.root is not None:
            break
    return handler.root

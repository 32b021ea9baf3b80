"""Line reading shared by the text readers: UTF-8 with or without BOM, LF or CRLF, streamed.

A line that is not valid UTF-8, or holds a NUL, is reported as a problem with its number and skipped.
"""
from __future__ import annotations

import html
import os
import re
from collections.abc import Iterator
from typing import BinaryIO, Protocol

from ir.problems import Problems

BOM = b"\xef\xbb\xbf"
ID_MAX = 64  # the longest external id (post, formula, visual, topic id) the database keeps
# The longest line a text reader takes: far above any real run, qrels, JSONL or formula-index line, and a bound
# on memory for a file without line ends (a binary file, or one with CR-only line ends).
LINE_MAX = 16 << 20
CHUNK = 1 << 20
# The longest field a reader takes (a post's body, a topic's question, a judgment's comment, a line of judgments):
# 30 times the longest Stack Exchange post, and a bound on what one value costs the database and the pages.
FIELD_MAX = 1 << 20
# What a decoded text cannot hold and still be stored: PostgreSQL's text has no NUL, and UTF-8 has no lone surrogate
# (JSON's "\ud800" decodes to one). One rule for every reader: refused with the line, never dropped.
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


class TextSink(Protocol):
    """Where a writer of text puts it: anything with a `write(str)` method (a text file, a management command's
    stdout, an HttpResponse)."""

    def write(self, text: str, /) -> object: ...


def open_binary(path: str | os.PathLike) -> BinaryIO:
    return open(path, "rb", buffering=CHUNK)


def iter_lines(stream: BinaryIO, problems: Problems, *, line_max: int = LINE_MAX, start: int = 0
               ) -> Iterator[tuple[int, str]]:
    """Yields (line number, text without line end) for every line of a binary stream; `start` lines come before
    it (a block of a longer file: its lines numbered as in the file, a BOM taken off line 1 only)."""
    lineno = start
    readline = stream.readline
    while raw := readline(line_max + 2):  # room for the line end: the limit is on the text
        lineno += 1
        if len(raw) > line_max and len(raw.rstrip(b"\r\n")) > line_max:
            problems.add(lineno, f"the line is longer than {line_max:,} bytes")
            while raw and not raw.endswith(b"\n"):  # skip the rest of it without holding it
                raw = readline(line_max)
            continue
        if lineno == 1 and raw.startswith(BOM):
            raw = raw[3:]
        if 0 in raw:  # a NUL byte; an int is found by one memchr, a bytes needle costs six times as much
            problems.add(lineno, f"a NUL character (byte {raw.index(0) + 1} of the line)")
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.add(lineno, f"not UTF-8 (byte {exc.start + 1} of the line)")
            continue
        yield lineno, text.rstrip("\r\n")


def csv_lines(stream: BinaryIO, problems: Problems) -> Iterator[str]:
    """Text lines for csv.reader, one per physical line (an empty one for a line iter_lines refused), so that the
    reader's line numbers stay the file's."""
    expected = 1
    for lineno, text in iter_lines(stream, problems):
        while expected < lineno:
            yield "\n"
            expected += 1
        yield text + "\n"
        expected += 1


def text_problem(name: str, value: str) -> str | None:
    """Why a decoded string cannot be stored as text, or None: a NUL, a lone surrogate, more than FIELD_MAX bytes."""
    found = _UNSTORABLE.search(value)
    if found is not None:
        char = found.group()
        if char == "\x00":
            return f"{name} holds a NUL character"
        return f"{name} holds a lone surrogate (\\u{ord(char):04x}), which is not a character"
    return field_problem(name, value)


def field_problem(name: str, value: str) -> str | None:
    """'... is longer than FIELD_MAX bytes', or None; measured in UTF-8 only when the characters could exceed it."""
    if len(value) > FIELD_MAX // 4 and len(value.encode("utf-8", "surrogatepass")) > FIELD_MAX:
        return f"{name} is longer than {FIELD_MAX:,} bytes"
    return None


def no_rows(rows: int, problems: Problems) -> None:
    """The one empty-file rule of the readers: a file without rows (empty, blank, or a header alone) would load
    nothing, or replace what is stored with nothing, and say it went well."""
    if not rows and not problems:
        problems.add(None, "the file has no rows")


def shown(value: str, limit: int = 40) -> str:
    """A field as quoted in a message: a field of megabytes must not make a message of megabytes."""
    return value if len(value) <= limit else value[:limit] + "..."


def file_size(path: str | os.PathLike) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


_PARAGRAPHS = re.compile(r"\n\s*\n")


def text_html(text: str) -> str:
    """Plain text as the HTML a post's body is (posts are stored as HTML and sanitized when shown): escaped, its
    blank-line-separated paragraphs as <p> elements. For corpus documents and JSONL lines whose text is not `body`."""
    return "".join(f"<p>{html.escape(part.strip(), quote=False)}</p>" for part in _PARAGRAPHS.split(text)
                   if part.strip())

"""Line reading shared by the text readers: UTF-8 with or without BOM, LF or CRLF, streamed.

A line that is not valid UTF-8 is reported as a problem with its number and skipped.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import BinaryIO

from pooling.errors import Problems

BOM = b"\xef\xbb\xbf"
ID_MAX = 64  # the longest external id (post, formula, visual, topic id) the database keeps
# The longest line a text reader takes: far above any real run, qrels, JSONL or formula-index line, and a bound
# on memory for a file without line ends (a binary file, or one with CR-only line ends).
LINE_MAX = 16 << 20
CHUNK = 1 << 20


def open_binary(path: str | os.PathLike) -> BinaryIO:
    return open(path, "rb", buffering=CHUNK)


def iter_lines(stream: BinaryIO, problems: Problems, *, line_max: int = LINE_MAX) -> Iterator[tuple[int, str]]:
    """Yields (line number, text without line end) for every line of a binary stream."""
    lineno = 0
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
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.add(lineno, f"not UTF-8 (byte {exc.start + 1} of the line)")
            continue
        yield lineno, text.rstrip("\r\n")


def file_size(path: str | os.PathLike) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0

"""Streaming readers of document corpora (docs/formats.md, "Corpus files"): JSONL (MS MARCO v2.1 segmented, BEIR,
Pyserini) or TREC `<DOC>` files, plain or gzip, one file or a folder of them, read for a set of wanted ids only.

A collection declared from a corpus stores only the documents its pools hold; the corpus is read in one pass after a
pool build, and a line is parsed only when its id is wanted.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ir.formats.jsonl import TEXT_KEYS_SAID, TITLE_KEY, text_key
from ir.formats.textio import BOM, CHUNK, LINE_MAX, text_problem
from ir.problems import InputError, Problem, Problems

ID_KEYS = ("id", "docid", "_id")
GZIP_MAGIC = b"\x1f\x8b"
PROGRESS_LINES = 1 << 16

# A JSONL line's id when it is the line's first key, read without parsing the line: a string without escapes, or an
# integer. Lines whose id is elsewhere (or escaped) are parsed whole.
_FIRST_ID = re.compile(rb'\s*\{\s*"(?:id|docid|_id)"\s*:\s*(?:"([^"\\]*)"|(-?\d+)\s*[,}])')
_DOCNO = re.compile(rb"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S)
_TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S | re.I)
_TAG = re.compile(r"<[^>\n]*>")


@dataclass(frozen=True, slots=True)
class CorpusDoc:
    file: str  # the file's name within the corpus
    line: int  # where the document starts
    doc_id: str
    title: str
    text: str


def corpus_files(path: str | os.PathLike) -> list[Path]:
    """The corpus's files: the file itself, or a folder's files (not hidden, not in subfolders) in name order; an
    InputError when there is none or the path cannot be read."""
    where = Path(path)
    if where.is_dir():
        files = sorted(p for p in where.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise InputError(f"the corpus folder {where} holds no file")
        return files
    if where.is_file():
        return [where]
    raise InputError(f"the corpus {where} is neither a file nor a folder that can be read")


def corpus_format(stream: io.BufferedReader[Any], name: str) -> str:
    """'jsonl' or 'trec' by the stream's first bytes (the stream is left where it was); InputError otherwise."""
    start = stream.peek(1 << 12)[: 1 << 12].removeprefix(BOM).lstrip()
    if start.startswith(b"{"):
        return "jsonl"
    if start.startswith(b"<"):
        return "trec"
    what = "the file is empty" if not start else "expected JSONL (one JSON object a line) or TREC <DOC> documents"
    raise InputError(Problem(None, f"not a corpus file: {what}", name))


def _opened(path: Path) -> tuple[io.BufferedReader[Any], io.BufferedReader[Any]]:
    """The file, and its bytes decompressed when it is gzip (told by its first bytes, not its name)."""
    raw = io.BufferedReader(io.FileIO(path), CHUNK)
    if raw.peek(2)[:2] == GZIP_MAGIC:
        return raw, io.BufferedReader(gzip.GzipFile(fileobj=raw, mode="rb"), CHUNK)
    return raw, raw


def corpus_check(path: str | os.PathLike) -> list[Path]:
    """The corpus's files, each opened and told apart as JSONL or TREC: an InputError now rather than at the first
    pool build."""
    files = corpus_files(path)
    problems: list[Problem] = []
    for file in files:
        try:
            raw, stream = _opened(file)
            with raw, stream:
                corpus_format(stream, file.name)
        except InputError as exc:
            problems.extend(exc.problems)
        except (OSError, EOFError) as exc:  # unreadable, or a .gz that is not gzip past its magic
            problems.append(Problem(None, f"cannot be read: {exc}", file.name))
    if problems:
        raise InputError(problems)
    return files


def read_corpus(path: str | os.PathLike, wanted: Iterable[str], collectors: list[Problems], *,
                progress: Callable[[float], None] | None = None) -> Iterator[CorpusDoc]:
    """The documents of the corpus whose id is wanted, each the first time it is met, as the files are read in name
    order; the pass stops once every wanted id is found. Problems go to one Problems per file, appended to
    `collectors`. `progress` is told the fraction of the corpus's bytes read."""
    remaining = set(wanted)
    files = corpus_files(path)
    sizes = [p.stat().st_size for p in files]
    total = sum(sizes) or 1
    done = 0
    for file, size in zip(files, sizes, strict=True):
        if not remaining:
            break
        problems = Problems(file=file.name)
        collectors.append(problems)
        raw, stream = _opened(file)
        with raw, stream:
            reader = _jsonl if corpus_format(stream, file.name) == "jsonl" else _trec
            try:
                yield from reader(stream, file.name, remaining, problems, _ticker(progress, raw, done, total))
            except (OSError, EOFError) as exc:  # a truncated or corrupt gzip file
                problems.add(None, f"cannot be read to its end: {exc}")
        done += size
    if progress is not None:
        progress(1.0)


def _ticker(progress, raw: BinaryIO, done: int, total: int) -> Callable[[], None] | None:
    """Progress by the bytes read of the (compressed) files."""
    if progress is None:
        return None
    return lambda: progress((done + raw.tell()) / total)


def _lines(stream: BinaryIO, problems: Problems, tick) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of every line; a line longer than LINE_MAX is a problem and skipped without being held."""
    lineno = 0
    readline = stream.readline
    while raw := readline(LINE_MAX + 2):
        lineno += 1
        if tick is not None and lineno % PROGRESS_LINES == 0:
            tick()
        if len(raw) > LINE_MAX and len(raw.rstrip(b"\r\n")) > LINE_MAX:
            problems.add(lineno, f"the line is longer than {LINE_MAX:,} bytes")
            while raw and not raw.endswith(b"\n"):
                raw = readline(LINE_MAX)
            continue
        yield lineno, raw


def _decoded(raw: bytes, line: int, problems: Problems) -> str | None:
    if 0 in raw:
        problems.add(line, f"a NUL character (byte {raw.index(0) + 1} of the line)")
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.add(line, f"not UTF-8 (byte {exc.start + 1} of the line)")
        return None


def _jsonl(stream: BinaryIO, name: str, remaining: set[str], problems: Problems, tick) -> Iterator[CorpusDoc]:
    wanted_bytes = {doc_id.encode("utf-8") for doc_id in remaining}
    match = _FIRST_ID.match
    for line, raw in _lines(stream, problems, tick):
        found = match(raw)
        if found is not None and (found.group(1) or found.group(2)) not in wanted_bytes:
            continue  # the common case: a document no pool holds, never parsed
        if line == 1:
            raw = raw.removeprefix(BOM)
        text = _decoded(raw.rstrip(b"\r\n"), line, problems)
        if text is None or not text.strip():
            continue
        doc = _json_doc(name, line, text, problems)
        if doc is not None and doc.doc_id in remaining:
            remaining.discard(doc.doc_id)
            wanted_bytes.discard(doc.doc_id.encode("utf-8"))
            yield doc
            if not remaining:
                return


def _json_doc(name: str, line: int, text: str, problems: Problems) -> CorpusDoc | None:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.add(line, f"invalid JSON: {exc.msg} (column {exc.colno})")
        return None
    except (RecursionError, ValueError):  # nesting past the decoder's bound, an integer of thousands of digits
        problems.add(line, "invalid JSON: nested too deeply or a number too long")
        return None
    if not isinstance(obj, dict):
        problems.add(line, "not a JSON object")
        return None
    doc_id = _first(obj, ID_KEYS)
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)
    if not isinstance(doc_id, str) or not doc_id.strip():
        problems.add(line, "no document id (a string under id, docid or _id)")
        return None
    key = text_key(obj)
    body: Any = obj[key] if key is not None else None
    title = obj.get(TITLE_KEY) or ""
    errors = []
    if not isinstance(body, str):
        errors.append(f"no text (a string under {TEXT_KEYS_SAID})")
    if not isinstance(title, str):
        errors.append("title is not a string")
    errors += [p for key, value in (("id", doc_id), ("text", body), ("title", title))
               if isinstance(value, str) and (p := text_problem(key, value))]
    if errors:
        problems.add_all(line, errors)
        return None
    return CorpusDoc(file=name, line=line, doc_id=doc_id.strip(), title=title, text=body)


def _first(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in obj:
            return obj[key]
    return None


def _trec(stream: BinaryIO, name: str, remaining: set[str], problems: Problems, tick) -> Iterator[CorpusDoc]:
    """`<DOC>`, `<DOCNO>id</DOCNO>`, text, `</DOC>`, over any number of lines; the text is what lies between the
    DOCNO and the end, tags removed, and a `<TITLE>` in it is the title."""
    parts: list[bytes] | None = None  # the current document's bytes after <DOC>; None between documents
    start, doc_id, keep = 0, None, True
    for line, raw in _lines(stream, problems, tick):
        rest = raw
        while rest:
            if parts is None:
                i = rest.find(b"<DOC>")
                if i < 0:
                    if rest.strip() and not (line == 1 and not rest.removeprefix(BOM).strip()):
                        problems.add(line, "text outside <DOC> ... </DOC>")
                    break
                if rest[:i].removeprefix(BOM).strip():
                    problems.add(line, "text outside <DOC> ... </DOC>")
                parts, start, doc_id, keep = [], line, None, True
                rest = rest[i + 5:]
            end = rest.find(b"</DOC>")
            chunk = rest if end < 0 else rest[:end]
            if b"<DOC>" in chunk:
                problems.add(line, f"a <DOC> inside the document that starts on line {start}")
            if keep:
                parts.append(chunk)
                if doc_id is None:
                    held = b"".join(parts)
                    found = _DOCNO.search(held)
                    if found is not None:
                        doc_id = found.group(1).decode("utf-8", "replace")
                        keep = doc_id in remaining
                        parts = [held[found.end():]] if keep else []
            if end < 0:
                break
            if doc_id is None:
                problems.add(start, "a <DOC> without <DOCNO>...</DOCNO>")
            elif keep:
                doc = _trec_doc(name, start, doc_id, b"".join(parts), problems)
                if doc is not None:
                    remaining.discard(doc_id)
                    yield doc
                    if not remaining:
                        return
            parts = None
            rest = rest[end + 6:]
    if parts is not None:
        problems.add(start, "a <DOC> without its </DOC>")


def _trec_doc(name: str, line: int, doc_id: str, data: bytes, problems: Problems) -> CorpusDoc | None:
    text = _decoded(data, line, problems)
    if text is None:
        return None
    title = ""
    found = _TITLE.search(text)
    if found is not None:
        title = _TAG.sub("", found.group(1)).strip()
        text = text[:found.start()] + text[found.end():]
    text = _TAG.sub("", text).strip()
    errors = [p for key, value in (("DOCNO", doc_id), ("text", text), ("title", title))
              if (p := text_problem(key, value))]
    if errors:
        problems.add_all(line, errors)
        return None
    return CorpusDoc(file=name, line=line, doc_id=doc_id, title=title, text=text)


"""Tells which known kind a file is from its first bytes (docs/formats.md), so that a reader whose own parse fails
at the first lines names the kind first ("this looks like a qrels file") instead of a parser's error on every line."""
from __future__ import annotations

import json
import re
from typing import BinaryIO

from ir.formats.formula_tsv import is_formula_index_header
from ir.formats.judgments_tsv import HEADER as JUDGMENTS_HEADER
from ir.formats.se_xml import parse_int
from ir.formats.task3_answers import is_answer_row
from ir.formats.textio import BOM

PEEK = 1 << 16  # enough for an XML declaration, comments and a whole first topic

TOPICS_TASK1 = "topics-task1"
TOPICS_TASK2 = "topics-task2"
TOPICS_TREC = "topics-trec"
TOPICS_TSV = "topics-tsv"
TOPICS_JSONL = "topics-jsonl"
TOPICS_RAG = "topics-rag"  # TREC RAG 2025: {"id", "narrative"} a line (ir/formats/nuggets.py read_rag_topics)
RUN_RAG = "run-rag"  # TREC RAG answers (ir/formats/rag_answers.py): JSON lines with an answer
# A TSV topic file's header: an id column, a text column, and for micro-topics a parent column (and a prelude).
TSV_ID_COLUMNS = frozenset({"id", "qid", "topic", "topic_id", "query_id"})
TSV_TEXT_COLUMNS = frozenset({"title", "query", "text"})
TSV_MICRO_COLUMNS = ("parent", "prelude")
DOCUMENTS_JSONL = "documents-jsonl"
BINARY = "binary"
# A file whose first bytes hold a NUL, or more than this share of bytes that are not UTF-8, is not text.
BINARY_SHARE = 0.1
RUN_KINDS = ("run-task1", "run-task2", "run-trec", "run-task3")
NAMES = {
    TOPICS_TASK1: "an ARQMath Task 1 (or Task 3) topic file",
    TOPICS_TASK2: "an ARQMath Task 2 topic file (its topics have a Formula_Id)",
    TOPICS_TREC: "a TREC topic file (<top> <num> <title> <desc> <narr>)",
    TOPICS_TSV: "a TSV topic file (topic_id query [parent prelude])",
    TOPICS_JSONL: "a JSONL topic file (id title ...)",
    TOPICS_RAG: "a TREC RAG topic file (JSON lines of id and narrative)",
    RUN_RAG: "a TREC RAG answer file (JSON lines of run_id, topic_id and answer sentences; answers campaigns take it)",
    "run-task1": "an ARQMath Task 1 run file (topic post_id rank score run_tag)",
    "run-task2": "an ARQMath Task 2 run file (topic formula_id post_id rank score run_tag)",
    "run-trec": "a TREC run file (topic Q0 doc_id rank score run_tag)",
    "run-task3": "an ARQMath-3 Task 3 answers file (topic rank score run_id sources answer)",
    "qrels": "a qrels file (topic iteration doc_id grade)",
    "formula-index": "a formula index TSV",
    "topic-info": "a topic-information CSV (a Topic column)",
    "judgments": "a judgments TSV (assessor topic item_id grade comment)",
    "se-xml": "a Stack Exchange XML dump (Posts.xml or Comments.xml)",
    DOCUMENTS_JSONL: "a JSONL collection (one document a line, with its body, text or contents)",
    BINARY: "a binary file (not text: a spreadsheet, an archive or an image?)",
}
_ROOT = re.compile(r"<([A-Za-z_][\w.:-]*)")


def head_kind(head: bytes) -> str | None:
    """The kind (a key of NAMES) of a file that starts with `head`, or None when it is none of them."""
    text = head.removeprefix(BOM).decode("utf-8", "replace").lstrip()
    if b"\x00" in head or text.count("\ufffd") > BINARY_SHARE * max(len(text), 1):
        return BINARY
    if text.startswith("<"):
        return _xml_kind(text)
    lines = text.splitlines()
    if len(lines) > 1 and not head.endswith((b"\n", b"\r")):
        lines.pop()  # cut by the peek
    first = next((line for line in lines if line.strip()), "")
    if not first:
        return None
    if first.startswith("{"):
        return _json_kind(first)
    columns = [name.strip().lower() for name in first.split("\t")]
    if is_formula_index_header(columns):
        return "formula-index"
    if columns[:3] == JUDGMENTS_HEADER:
        return "judgments"
    if "\t" not in first and "topic" in [name.strip().strip('"').lower() for name in first.split(",")]:
        return "topic-info"
    fields = first.split("\t") if "\t" in first else first.split()
    fields = [field.strip() for field in fields]
    if len(fields) == 2 and "\t" in first or is_tsv_topics_header(columns):
        return TOPICS_TSV
    if len(fields) == 4 and parse_int(fields[1]) is not None and parse_int(fields[3]) is not None:
        return "qrels"
    if len(fields) == 5 and parse_int(fields[2]) is not None and _number(fields[3]):
        return "run-task1"
    if len(fields) == 6:
        if fields[1] == "Q0":
            return "run-trec"
        if is_answer_row(fields):
            return "run-task3"
        if parse_int(fields[3]) is not None and _number(fields[4]):
            return "run-task2"
    return None


def is_tsv_topics_header(columns: list[str]) -> bool:
    """Whether a TSV line's lowered, stripped fields are a topic file's header: id, text, then parent and prelude
    (each optional, in that order)."""
    return (len(columns) >= 2 and columns[0] in TSV_ID_COLUMNS and columns[1] in TSV_TEXT_COLUMNS
            and tuple(columns[2:]) == TSV_MICRO_COLUMNS[:len(columns) - 2])


def stream_kind(stream: BinaryIO) -> str | None:
    """head_kind of a seekable stream's first bytes; the stream is left where it was. None if it cannot seek."""
    if not stream.seekable():
        return None
    where = stream.tell()
    stream.seek(0)
    try:
        return head_kind(stream.read(PEEK))
    finally:
        stream.seek(where)


def looks_like(kind: str, expected: str) -> str:
    """The message of a reader given a file of another kind."""
    return f"this looks like {NAMES[kind]}, not {expected}"


def _xml_kind(text: str) -> str | None:
    text = re.sub(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", "", text, flags=re.S)
    root = _ROOT.search(text)
    if root is None:
        return None
    name = root.group(1)
    if name == "Topics":
        return TOPICS_TASK2 if "<Formula_Id" in text else TOPICS_TASK1
    if name == "top":
        return TOPICS_TREC
    if name in ("posts", "comments"):
        return "se-xml"
    return None


def _json_kind(line: str) -> str | None:
    """A JSONL topic file's first line is an object with a title and no post's body or kind (a TREC RAG topic file's,
    an id and a narrative without a title); a collection's is a document with its text (the fields the corpus readers
    take); a TREC RAG answer file's, an answer with its run id (2024) or its metadata (2025)."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    if "title" in obj and not {"body", "kind", "text", "contents"} & set(obj):
        return TOPICS_JSONL
    if "answer" in obj and ("run_id" in obj or "metadata" in obj):
        return RUN_RAG
    if "id" in obj and "narrative" in obj and not {"body", "kind", "text", "contents"} & set(obj):
        return TOPICS_RAG
    if {"body", "text", "contents"} & set(obj):
        return DOCUMENTS_JSONL
    return None


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True

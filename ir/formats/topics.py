"""Topic files in the field's formats beside ARQMath's XML (topics_xml.py): classic TREC topics (`<top>`, `<num>`,
`<title>`, `<desc>`, `<narr>`, the field tags left unclosed as TREC's own files leave them; micro-topics as TREC Web's
`<subtopic>`s), TSV queries (`id<TAB>text`; micro-topics by a `parent` column), JSONL (one topic a line, with
optional micro-topics) and TREC RAG's JSON lines (`id`, `narrative`). `read_topic_file` tells the format by the file's
shape
(kinds.py). Every reader reports problems with their line and returns only the topics without any; the caller writes
nothing while there is a problem."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO, NamedTuple

from ir.formats.jsonl import json_objects
from ir.formats.kinds import (
    TOPICS_JSONL,
    TOPICS_RAG,
    TOPICS_TREC,
    TOPICS_TSV,
    TSV_ID_COLUMNS,
    TSV_TEXT_COLUMNS,
    is_tsv_topics_header,
    looks_like,
    stream_kind,
)
from ir.formats.nuggets import read_rag_topics
from ir.formats.textio import field_problem, iter_lines, shown, text_problem
from ir.formats.topics_xml import EXPECTED, TopicRecord, read_topics
from ir.problems import Problems

_TAG = re.compile(r"""<(/?)([A-Za-z]+)((?:\s+[\w-]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>]+))*)\s*>""")
_NUMBER = re.compile(r"""\bnumber\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
# TREC field tag -> TopicRecord field, and the label TREC's files put before the field's text.
_TREC_FIELDS = {"num": ("topic_id", "number:"), "title": ("title", "topic:"), "desc": ("description", "description:"),
                "narr": ("narrative", "narrative:"), "prelude": ("prelude", "prelude:")}
_JSON_KEYS = {"id", "title", "description", "narrative", "prelude", "micro_topics"}
_MICRO_KEYS = {"id", "text", "description", "narrative"}


class _Micro(NamedTuple):
    """A micro-topic as a file gives it: its id ('' for the parent's id and its place), text and texts of its own."""
    topic_id: str
    text: str
    description: str = ""
    narrative: str = ""


def read_topic_file(stream: BinaryIO, problems: Problems, *, task: str, words: str | None = None
                    ) -> list[TopicRecord]:
    """The topics of a topic file of any known format. TREC, TSV and JSONL topics have no query formula: for Task 2
    (task 'formulas') they are refused whole. `words`: what a refusal says was expected (topics_xml.EXPECTED)."""
    kind = stream_kind(stream)
    reader = READERS.get(kind or "")
    if reader is None:
        return read_topics(stream, problems, task=task, words=words)
    assert kind is not None
    if task == "formulas":
        problems.add(1, looks_like(kind, EXPECTED[task]))
        return []
    return _checked(reader(stream, problems), problems)


def read_trec_topics(stream: BinaryIO, problems: Problems) -> Iterator[TopicRecord]:
    """Classic TREC topics; a `<top>` may split into micro-topics with TREC Web's `<subtopic number="N">` (closed by
    `</subtopic>` or the next tag) and give their shared context in a `<prelude>` field."""
    topic: dict[str, Any] | None = None  # the open <top>'s line, field texts and subtopics
    field: str | list[str] | None = None  # where the lines' text goes: a field, a subtopic's pieces, None for a tag
    last = 0                               # of no field (<dom>, <con>, ...)
    for line, text in iter_lines(stream, problems):
        last, start, stray = line, 0, False
        for tag in [*_TAG.finditer(text), None]:
            piece = text[start:tag.start()] if tag else text[start:] + "\n"
            if topic is not None and field is not None:
                (field if isinstance(field, list) else topic[field]).append(piece)
            elif topic is None and piece.strip():
                stray = True
            if tag is None:
                break
            start = tag.end()
            closing, name = tag.group(1) == "/", tag.group(2).lower()
            if name == "top" and not closing:
                if topic is not None:
                    problems.add(line, f"<top> inside the <top> of line {topic['line']} (its </top> is missing)")
                topic, field = {"line": line, "subtopics": [], **{f: [] for f, _ in _TREC_FIELDS.values()}}, None
            elif name == "top":
                if topic is None:
                    problems.add(line, "</top> without a <top>")
                else:
                    yield from _trec_records(topic, problems)
                topic = field = None
            elif topic is None:
                problems.add(line, f"<{tag.group(1)}{tag.group(2)}> outside <top> ... </top>")
            elif name == "subtopic" and not closing:
                number = _NUMBER.search(tag.group(3))
                field = []
                topic["subtopics"].append((line, "".join(number.groups("")).strip() if number else "", field))
            else:
                field = None if closing else _TREC_FIELDS.get(name, (None,))[0]
        if stray:
            problems.add(line, "text outside <top> ... </top>")
    if topic is not None:
        problems.add(last, f"the <top> of line {topic['line']} has no </top>")


def _trec_records(topic: dict[str, Any], problems: Problems) -> list[TopicRecord]:
    texts = {}
    for name, label in _TREC_FIELDS.values():
        text = _prose(topic[name])
        if text.lower().startswith(label):
            text = text[len(label):].lstrip()
        texts[name] = text
    line = topic["line"]
    if not texts["topic_id"]:
        problems.add(line, "topic without <num>")
        return []
    if " " in texts["topic_id"]:
        problems.add(line, f"topic number {shown(texts['topic_id'])!r} has a space")
        return []
    errors: list[str] = []
    micro = []
    for sub_line, number, pieces in topic["subtopics"]:
        if " " in number:
            errors.append(f"<subtopic> of line {sub_line}: number {shown(number)!r} has a space")
        micro.append(_Micro(f"{texts['topic_id']}.{number}" if number else "", _prose(pieces)))
    records = _topic_records(line, micro, errors, what="<subtopic>", **texts)
    problems.add_all(line, errors)
    return [] if errors else records


def _prose(pieces: list[str]) -> str:
    return " ".join("".join(pieces).split())  # TREC's lines are wrapped prose


def read_tsv_topics(stream: BinaryIO, problems: Problems) -> Iterator[TopicRecord]:
    """`id<TAB>text`, with an optional header; a header `id text parent [prelude]` adds micro-topics: a line whose
    parent names another line's id is a micro-topic of it, and that line is the parent (its text the parent's title,
    its prelude the micro-topics' context), no topic of its own."""
    columns = 2
    rows: list[tuple[int, list[str]]] = []
    first = True
    for line, text in iter_lines(stream, problems):
        if not text.strip():
            continue
        fields = [field.strip() for field in text.split("\t")]
        if first and (len(fields) == 2 and fields[0].lower() in TSV_ID_COLUMNS
                      and fields[1].lower() in TSV_TEXT_COLUMNS or is_tsv_topics_header([f.lower() for f in fields])):
            first, columns = False, len(fields)
            continue
        first = False
        if len(fields) < columns and columns > 2:
            fields += [""] * (columns - len(fields))  # a line of no parent may end after its text
        if len(fields) != columns:
            what = "topic id, query text" + (", parent" if columns > 2 else "") + (", prelude" if columns > 3 else "")
            problems.add(line, f"{len(fields)} tab-separated fields, expected {columns} ({what})")
        elif not fields[0] or not fields[1]:
            problems.add(line, "empty topic id" if not fields[0] else f"topic '{shown(fields[0])}' has no text")
        else:
            rows.append((line, fields + [""] * (4 - columns)))
    yield from _tsv_records(rows, problems)


def _tsv_records(rows: list[tuple[int, list[str]]], problems: Problems) -> Iterator[TopicRecord]:
    parent_rows = {fields[0]: (line, fields) for line, fields in rows if fields[0] in {f[2] for _, f in rows}}
    for line, (topic_id, text, parent, prelude) in rows:
        if topic_id in parent_rows:
            if parent:
                problems.add(line, f"topic '{shown(topic_id)}' is a micro-topic of '{shown(parent)}' and has "
                                   f"micro-topics of its own")
            continue
        if prelude:
            problems.add(line, f"a prelude without micro-topics (no line names '{shown(topic_id)}' as its parent)")
        elif parent and parent not in parent_rows:
            problems.add(line, f"parent '{shown(parent)}' has no line of its own (with its title)")
        elif parent:
            _, (_, parent_title, _, parent_prelude) = parent_rows[parent]
            yield _record(line, topic_id=topic_id, title=text, prelude=parent_prelude, parent=parent,
                          parent_title=parent_title)
        else:
            yield _record(line, topic_id=topic_id, title=text)


def read_jsonl_topics(stream: BinaryIO, problems: Problems) -> Iterator[TopicRecord]:
    """One topic a line: {"id", "title", "description"?, "narrative"?, "prelude"?, "micro_topics"?}; a topic with
    micro-topics ([{"id"?, "text", "description"?, "narrative"?}]) gives one topic per micro-topic (ids `301.1`,
    `301.2`, ... unless given), each with its parent's id, title and prelude, and none for the parent itself."""
    for line, obj in json_objects(stream, problems):
        errors: list[str] = []
        records = _json_topic(line, obj, errors)
        problems.add_all(line, errors)
        if not errors:
            yield from records


def read_rag_topic_records(stream: BinaryIO, problems: Problems) -> Iterator[TopicRecord]:
    """TREC RAG topics (`read_rag_topics`: 2025's `{"id", "narrative"}` lines): each topic's text is its title, the
    text assessors judge against and systems answer (docs/formats.md, "Topics")."""
    for topic in read_rag_topics(stream, problems):
        yield _record(topic.line, topic_id=topic.topic_id, title=topic.text.strip())


def _json_topic(line: int, obj: dict[str, Any], errors: list[str]) -> list[TopicRecord]:
    _unknown(obj, _JSON_KEYS, "", errors)
    topic_id, title = _json_text(obj, "id", errors, required=True), _json_text(obj, "title", errors, required=True)
    texts = {key: _json_text(obj, key, errors) for key in ("description", "narrative", "prelude")}
    micro = obj.get("micro_topics")
    if micro is not None and (not isinstance(micro, list) or not micro
                              or not all(isinstance(m, dict) for m in micro)):
        errors.append("micro_topics is not a non-empty list of objects")
        return []
    subs = []
    for n, sub in enumerate(micro or [], 1):
        where = f"micro_topics[{n - 1}]"
        _unknown(sub, _MICRO_KEYS, where + ".", errors)
        subs.append(_Micro(_json_text(sub, "id", errors, where=where),
                           _json_text(sub, "text", errors, required=True, where=where),
                           _json_text(sub, "description", errors, where=where),
                           _json_text(sub, "narrative", errors, where=where)))
    return _topic_records(line, subs, errors, what="micro_topics", topic_id=topic_id, title=title, **texts)


def _topic_records(line: int, micro: list[_Micro], errors: list[str], *, what: str, topic_id: str, title: str,
                   description: str, narrative: str, prelude: str) -> list[TopicRecord]:
    """A topic, or its micro-topics (the one rule of every format): each micro-topic a topic of its own with the
    parent's id, title and prelude, its id `<parent>.<n>` unless given, its description and narrative the parent's
    unless it has its own; a prelude needs micro-topics, a micro-topic needs a text."""
    if not micro:
        if prelude:
            errors.append(f"a prelude without {what}")
        return [_record(line, topic_id=topic_id, title=title, description=description, narrative=narrative)]
    records = []
    for n, sub in enumerate(micro, 1):
        if not sub.text:
            if what != "micro_topics":  # JSONL has said "missing micro_topics[n].text"
                errors.append(f"{what} {n} has no text")
            continue
        records.append(_record(line, topic_id=sub.topic_id or f"{topic_id}.{n}", title=sub.text,
                               description=sub.description or description, narrative=sub.narrative or narrative,
                               prelude=prelude, parent=topic_id, parent_title=title))
    return records


def _json_text(obj: dict[str, Any], key: str, errors: list[str], *, required: bool = False, where: str = "") -> str:
    value = obj.get(key)
    name = f"{where}.{key}" if where else key
    if isinstance(value, int) and not isinstance(value, bool) and key == "id":
        value = str(value)
    if value is None or value == "":
        if required:
            errors.append(f"missing {name}")
        return ""
    if not isinstance(value, str):
        errors.append(f"{name} is not a string")
        return ""
    problem = text_problem(name, value)
    if problem:
        errors.append(problem)
        return ""
    return value.strip()


def _unknown(obj: dict[str, Any], known: set[str], where: str, errors: list[str]) -> None:
    unknown = sorted(set(obj) - known)
    if unknown:
        errors.append(f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(where + k for k in unknown)} "
                      f"(known: {', '.join(sorted(known))})")


def _record(line: int, *, topic_id: str, title: str, **texts: str) -> TopicRecord:
    return TopicRecord(line=line, topic_id=topic_id, title=title, question="", tags="", formula_id="", latex="",
                       **texts)


def _checked(records: Iterator[TopicRecord], problems: Problems) -> list[TopicRecord]:
    """The records, each topic id once and each text within FIELD_MAX (an id's length is the caller's rule, as
    for every id); a file of none is a problem."""
    first_line: dict[str, int] = {}
    kept = []
    for record in records:
        errors = [problem for name in ("title", "description", "narrative", "prelude")
                  if (problem := field_problem(name, getattr(record, name)))]
        earlier = first_line.get(record.topic_id)
        if earlier is not None:
            lines = f"lines {earlier} and {record.line}" if earlier != record.line else f"line {earlier}"
            errors.insert(0, f"duplicate topic id '{shown(record.topic_id)}' ({lines})")
        first_line.setdefault(record.topic_id, record.line)
        problems.add_all(record.line, errors)
        if not errors:
            kept.append(record)
    if not kept and not problems:
        problems.add(None, "the file has no topics")
    return kept


READERS: dict[str, Callable[[BinaryIO, Problems], Iterator[TopicRecord]]] = {
    TOPICS_TREC: read_trec_topics, TOPICS_TSV: read_tsv_topics, TOPICS_JSONL: read_jsonl_topics,
    TOPICS_RAG: read_rag_topic_records}

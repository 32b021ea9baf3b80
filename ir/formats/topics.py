"""Topic files in the field's formats beside ARQMath's XML (topics_xml.py): classic TREC topics (`<top>`, `<num>`,
`<title>`, `<desc>`, `<narr>`, the field tags left unclosed as TREC's own files leave them), TSV queries (`id<TAB>text`)
and JSONL (one topic a line, with optional micro-topics). `read_topic_file` tells the format by the file's shape
(kinds.py). Every reader reports problems with their line and returns only the topics without any; the caller writes
nothing while there is a problem."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from ir.formats.jsonl import json_objects
from ir.formats.kinds import TOPICS_JSONL, TOPICS_TREC, TOPICS_TSV, looks_like, stream_kind
from ir.formats.textio import field_problem, iter_lines, shown, text_problem
from ir.formats.topics_xml import EXPECTED, TopicRecord, read_topics
from ir.problems import Problems

_TAG = re.compile(r"<(/?)([A-Za-z]+)>")
# TREC field tag -> TopicRecord field, and the label TREC's files put before the field's text.
_TREC_FIELDS = {"num": ("topic_id", "number:"), "title": ("title", "topic:"), "desc": ("description", "description:"),
                "narr": ("narrative", "narrative:")}
_TSV_HEADER = ({"id", "qid", "topic", "topic_id", "query_id"}, {"title", "query", "text"})
_JSON_KEYS = {"id", "title", "description", "narrative", "prelude", "micro_topics"}
_MICRO_KEYS = {"id", "text", "description", "narrative"}


def read_topic_file(stream: BinaryIO, problems: Problems, *, task: str) -> list[TopicRecord]:
    """The topics of a topic file of any known format. TREC, TSV and JSONL topics have no query formula: for Task 2
    (task 'formulas') they are refused whole."""
    kind = stream_kind(stream)
    reader = READERS.get(kind or "")
    if reader is None:
        return read_topics(stream, problems, task=task)
    assert kind is not None
    if task == "formulas":
        problems.add(1, looks_like(kind, EXPECTED[task]))
        return []
    return _checked(reader(stream, problems), problems)


def read_trec_topics(stream: BinaryIO, problems: Problems) -> Iterator[TopicRecord]:
    topic: dict[str, Any] | None = None  # the open <top>'s line and field texts
    field: str | None = None  # the field whose text the lines are, None for a tag of no field (<dom>, <con>, ...)
    last = 0
    for line, text in iter_lines(stream, problems):
        last, start, stray = line, 0, False
        for tag in [*_TAG.finditer(text), None]:
            piece = text[start:tag.start()] if tag else text[start:] + "\n"
            if topic is not None and field is not None:
                topic[field].append(piece)
            elif topic is None and piece.strip():
                stray = True
            if tag is None:
                break
            start = tag.end()
            closing, name = tag.group(1) == "/", tag.group(2).lower()
            if name == "top" and not closing:
                if topic is not None:
                    problems.add(line, f"<top> inside the <top> of line {topic['line']} (its </top> is missing)")
                topic, field = {"line": line, **{f: [] for f, _ in _TREC_FIELDS.values()}}, None
            elif name == "top":
                if topic is None:
                    problems.add(line, "</top> without a <top>")
                else:
                    record = _trec_record(topic, problems)
                    if record is not None:
                        yield record
                topic = field = None
            elif topic is None:
                problems.add(line, f"<{tag.group(1)}{tag.group(2)}> outside <top> ... </top>")
            else:
                field = None if closing else _TREC_FIELDS.get(name, (None,))[0]
        if stray:
            problems.add(line, "text outside <top> ... </top>")
    if topic is not None:
        problems.add(last, f"the <top> of line {topic['line']} has no </top>")


def _trec_record(topic: dict[str, Any], problems: Problems) -> TopicRecord | None:
    texts = {}
    for name, label in _TREC_FIELDS.values():
        text = " ".join("".join(topic[name]).split())  # TREC's lines are wrapped prose
        if text.lower().startswith(label):
            text = text[len(label):].lstrip()
        texts[name] = text
    line = topic["line"]
    if not texts["topic_id"]:
        problems.add(line, "topic without <num>")
        return None
    if " " in texts["topic_id"]:
        problems.add(line, f"topic number {shown(texts['topic_id'])!r} has a space")
        return None
    return _record(line, **texts)


def read_tsv_topics(stream: BinaryIO, problems: Problems) -> Iterator[TopicRecord]:
    first = True
    for line, text in iter_lines(stream, problems):
        if not text.strip():
            continue
        fields = [field.strip() for field in text.split("\t")]
        if first and fields[0].lower() in _TSV_HEADER[0] and len(fields) == 2 and fields[1].lower() in _TSV_HEADER[1]:
            first = False
            continue
        first = False
        if len(fields) != 2:
            problems.add(line, f"{len(fields)} tab-separated fields, expected 2 (topic id, query text)")
        elif not fields[0] or not fields[1]:
            problems.add(line, "empty topic id" if not fields[0] else f"topic '{shown(fields[0])}' has no text")
        else:
            yield _record(line, topic_id=fields[0], title=fields[1])


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


def _json_topic(line: int, obj: dict[str, Any], errors: list[str]) -> list[TopicRecord]:
    _unknown(obj, _JSON_KEYS, "", errors)
    topic_id, title = _json_text(obj, "id", errors, required=True), _json_text(obj, "title", errors, required=True)
    texts = {key: _json_text(obj, key, errors) for key in ("description", "narrative", "prelude")}
    micro = obj.get("micro_topics")
    if micro is None:
        if texts["prelude"]:
            errors.append("a prelude without micro_topics")
        return [_record(line, topic_id=topic_id, title=title, description=texts["description"],
                        narrative=texts["narrative"])]
    if not isinstance(micro, list) or not micro or not all(isinstance(m, dict) for m in micro):
        errors.append("micro_topics is not a non-empty list of objects")
        return []
    records = []
    for n, sub in enumerate(micro, 1):
        where = f"micro_topics[{n - 1}]"
        _unknown(sub, _MICRO_KEYS, where + ".", errors)
        sub_id = _json_text(sub, "id", errors, where=where) or f"{topic_id}.{n}"
        records.append(_record(
            line, topic_id=sub_id, title=_json_text(sub, "text", errors, required=True, where=where),
            description=_json_text(sub, "description", errors, where=where),
            narrative=_json_text(sub, "narrative", errors, where=where),
            prelude=texts["prelude"], parent=topic_id, parent_title=title))
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
    TOPICS_TREC: read_trec_topics, TOPICS_TSV: read_tsv_topics, TOPICS_JSONL: read_jsonl_topics}

"""Nugget banks and nugget assignments in castorini/nuggetizer's JSON lines, and the TREC RAG topic lines
(docs/nuggets.md).

A bank (nuggetizer's `create` output) is a line per topic: `qid`, `query` and `nuggets`, each `{text, importance}`
with importance vital or okay. An assignment (its `assign` output over answers) is a line per topic of one run:
`qid`, `query`, `answer_text`, `response_length`, `run_id` and `nuggets`, each `{text, importance, assignment}` with
assignment support, partial_support or not_support. nuggetizer also writes `failed` when its model gave no usable
label (importance or assignment): read here as it counts in nuggetizer's scores, neither vital nor support. The
readers take every field nuggetizer writes (its reasoning and trace ones are read past) and refuse any other;
the writers write exactly the fields, in the order, that nuggetizer writes and reads.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from typing import Any, BinaryIO, TypeVar

from ir.formats.jsonl import json_objects, text_field
from ir.formats.rag_answers import id_field
from ir.formats.textio import ID_MAX, TextSink, no_rows, open_binary, shown, text_problem
from ir.problems import Problems

IMPORTANCES = ("vital", "okay", "failed")
ASSIGNMENTS = ("support", "partial_support", "not_support", "failed")
# Fields nuggetizer writes with --include-reasoning or --include-trace: read past, never kept.
_TRACE_KEYS = frozenset({"trace", "reasoning_traces", "creator_reasoning_traces", "scoring_reasoning_traces"})
BANK_KEYS = frozenset({"qid", "query", "nuggets"}) | _TRACE_KEYS
ASSIGNMENT_KEYS = frozenset({"qid", "query", "answer_text", "response_length", "run_id", "nuggets"}) | _TRACE_KEYS
NUGGET_KEYS = frozenset({"text", "importance", "reasoning", "trace"})
ASSIGNED_NUGGET_KEYS = NUGGET_KEYS | {"assignment"}
TOPIC_TEXT_KEYS = ("narrative", "title")  # the 2025 topics file says narrative; the guidelines' example says title
RUN_ID_MAX = 200

T = TypeVar("T")


@dataclass(frozen=True)
class Nugget:
    text: str
    importance: str  # vital, okay (or failed)


@dataclass(frozen=True)
class NuggetBank:
    line: int
    topic_id: str
    query: str
    nuggets: tuple[Nugget, ...]


@dataclass(frozen=True)
class AssignedNugget:
    text: str
    importance: str
    assignment: str  # support, partial_support, not_support (or failed)


@dataclass(frozen=True)
class NuggetAssignment:
    """The support of one run's answer to one topic by each of the topic's nuggets."""

    line: int
    topic_id: str
    run_id: str
    query: str
    answer_text: str
    response_length: int
    nuggets: tuple[AssignedNugget, ...]


@dataclass(frozen=True)
class RagTopic:
    line: int
    topic_id: str
    text: str


def read_nugget_banks(stream: BinaryIO, problems: Problems, *,
                      topics: Container[str] | None = None) -> list[NuggetBank]:
    """Every topic's nuggets in file order, or [] when there is any problem; one line per topic."""
    return _read(stream, problems, _bank, key=lambda b: (b.topic_id,), what="line of nuggets for topic", topics=topics)


def read_nugget_assignments(stream: BinaryIO, problems: Problems, *,
                            topics: Container[str] | None = None) -> list[NuggetAssignment]:
    """Every (topic, run) assignment in file order, or [] when there is any problem; one line per topic and run."""
    return _read(stream, problems, _assignment, key=lambda a: (a.topic_id, a.run_id),
                 what="assignment for topic and run", topics=topics)


def read_rag_topics(stream: BinaryIO, problems: Problems) -> list[RagTopic]:
    """The topics of a TREC RAG topics file (2025's JSON lines, `id` and `narrative`; the guidelines' example's
    `title` is read too), or [] when there is any problem."""
    return _read(stream, problems, _topic, key=lambda t: (t.topic_id,), what="line for topic", topics=None)


def read_file(path: str | os.PathLike, reader: Callable[..., list[T]], *, filename: str | None = None,
              **options: Any) -> list[T]:
    """One of this module's readers over a file; InputError with every problem if it has any. The messages name
    the file `filename` (an upload's own name), else the path's."""
    problems = Problems(file=filename or os.path.basename(path))
    with open_binary(path) as stream:
        records = reader(stream, problems, **options)
    problems.raise_if_any()
    return records


def write_nugget_banks(banks: Iterable[NuggetBank], sink: TextSink) -> None:
    """Lines as nuggetizer's `create` writes them, the input its `assign` reads."""
    for bank in banks:
        record = {"query": bank.query, "qid": bank.topic_id,
                  "nuggets": [{"text": n.text, "importance": n.importance} for n in bank.nuggets]}
        sink.write(json.dumps(record) + "\n")


def write_nugget_assignments(assignments: Iterable[NuggetAssignment], sink: TextSink) -> None:
    """Lines as nuggetizer's `assign` writes them over answers, the input its `metrics` reads."""
    for a in assignments:
        record = {"query": a.query, "qid": a.topic_id, "answer_text": a.answer_text,
                  "response_length": a.response_length, "run_id": a.run_id,
                  "nuggets": [{"text": n.text, "importance": n.importance, "assignment": n.assignment}
                              for n in a.nuggets]}
        sink.write(json.dumps(record) + "\n")


def _read(stream: BinaryIO, problems: Problems, parse: Callable[[int, dict[str, Any], list[str]], T | None], *,
          key: Callable[[T], tuple[str, ...]], what: str, topics: Container[str] | None) -> list[T]:
    records: list[T] = []
    first_line: dict[tuple[str, ...], int] = {}
    rows = 0
    for line, obj in json_objects(stream, problems):
        rows += 1
        errors: list[str] = []
        record = parse(line, obj, errors)
        if record is not None and not errors:
            k = key(record)
            if topics is not None and k[0] not in topics:
                errors.append(f"topic '{shown(k[0])}' is not a topic of this campaign")
            elif k in first_line:
                named = " ".join(f"'{shown(part)}'" for part in k)
                errors.append(f"a second {what} {named} (the first is on line {first_line[k]})")
            else:
                first_line[k] = line
        problems.add_all(line, errors)
        if record is not None and not errors:
            records.append(record)
    no_rows(rows, problems)
    return [] if problems else records


def _bank(line: int, obj: dict[str, Any], errors: list[str]) -> NuggetBank | None:
    if not _known(obj, BANK_KEYS, "a nugget line", errors):
        return None
    topic_id = id_field(obj, "qid", errors, ID_MAX)
    query = text_field(obj, "query", errors)
    if "query" not in obj:  # nuggetizer's assign copies it into every assignment
        errors.append("missing query")
    nuggets = _nuggets(obj.get("nuggets"), errors, assigned=False)
    if errors:
        return None
    return NuggetBank(line, topic_id, query, tuple(Nugget(n.text, n.importance) for n in nuggets))


def _assignment(line: int, obj: dict[str, Any], errors: list[str]) -> NuggetAssignment | None:
    if not _known(obj, ASSIGNMENT_KEYS, "an assignment line", errors):
        return None
    topic_id = id_field(obj, "qid", errors, ID_MAX)
    run_id = id_field(obj, "run_id", errors, RUN_ID_MAX)
    query = text_field(obj, "query", errors)
    answer_text = text_field(obj, "answer_text", errors)
    length = obj.get("response_length", 0)
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        errors.append(f"response_length {json.dumps(length)[:40]} is not a whole number of words")
    nuggets = _nuggets(obj.get("nuggets"), errors, assigned=True)
    if errors:
        return None
    return NuggetAssignment(line, topic_id, run_id, query, answer_text, length, nuggets)


def _topic(line: int, obj: dict[str, Any], errors: list[str]) -> RagTopic | None:
    if not _known(obj, frozenset({"id", *TOPIC_TEXT_KEYS}), "a topic line", errors):
        return None
    topic_id = id_field(obj, "id", errors, ID_MAX)
    keys = [k for k in TOPIC_TEXT_KEYS if k in obj]
    if len(keys) != 1:
        errors.append("a topic has its text in narrative (or title)" if not keys
                      else "a topic has both narrative and title: which is its text?")
        return None
    text = text_field(obj, keys[0], errors)
    if not errors and not text.strip():
        errors.append(f"topic '{shown(topic_id)}' has an empty {keys[0]}")
    return None if errors else RagTopic(line, topic_id, text)


def _known(obj: dict[str, Any], keys: frozenset[str], what: str, errors: list[str]) -> bool:
    unknown = sorted(set(obj) - keys)
    if unknown:
        shown_keys = ", ".join(sorted(keys - _TRACE_KEYS))
        errors.append(f"unknown field '{shown(unknown[0])}' ({what} has {shown_keys})")
    return not unknown


def _nuggets(value: Any, errors: list[str], *, assigned: bool) -> tuple[AssignedNugget, ...]:
    if value is None:
        errors.append("missing nuggets")
        return ()
    if not isinstance(value, list):
        errors.append("nuggets is not a list")
        return ()
    keys = ASSIGNED_NUGGET_KEYS if assigned else NUGGET_KEYS
    nuggets = []
    for n, item in enumerate(value):
        where = f"nuggets[{n}]"
        if not isinstance(item, dict):
            errors.append(f"{where} is not an object")
            return ()
        unknown = sorted(set(item) - keys)
        if unknown:
            errors.append(f"unknown field '{shown(unknown[0])}' in {where}")
            return ()
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            errors.append(f"{where} has no text" if text is None else f"{where}.text is not a non-empty string")
            return ()
        if problem := text_problem(f"{where}.text", text):
            errors.append(problem)
            return ()
        importance = item.get("importance", "vital")  # nuggetizer's default when a nugget has none
        if importance not in IMPORTANCES:
            errors.append(f"{where} has importance {json.dumps(importance)[:40]}, not vital or okay")
            return ()
        assignment = item.get("assignment") if assigned else ""
        if assigned and assignment not in ASSIGNMENTS:
            errors.append(f"{where} has no assignment" if assignment is None else
                          f"{where} has assignment {json.dumps(assignment)[:40]}, not support, "
                          "partial_support or not_support")
            return ()
        nuggets.append(AssignedNugget(text, str(importance), str(assignment)))  # both checked above
    return tuple(nuggets)

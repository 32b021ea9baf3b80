"""Streaming reader of the generic JSONL collection: one post or document per line."""
from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from typing import Any, BinaryIO

from ir.formats.se_xml import PostRecord, int_refusal, normalize_tags, parse_int
from ir.formats.textio import ID_MAX, iter_lines, no_rows, shown, text_html, text_problem
from ir.problems import Problems

KINDS = ("question", "answer", "document")
# The one rule of where a JSON line's text is, for the collection reader and the corpus reader (ir/formats/corpus.py):
# the first of these keys a line has. `body` is HTML (the generic collection's field); the others are plain text
# (BEIR, Pyserini, MS MARCO segments). docs/formats.md, "Generic JSONL".
TEXT_KEYS = ("body", "text", "contents", "segment")
TITLE_KEY = "title"
TEXT_KEYS_SAID = f"{', '.join(TEXT_KEYS[:-1])} or {TEXT_KEYS[-1]}"
_POST_KEYS = frozenset({"id", "kind", "thread_id", TITLE_KEY, "tags", "score", "created_at", "owner_user_id",
                        "accepted_answer_id", *TEXT_KEYS})


def text_key(obj: dict[str, Any]) -> str | None:
    """The key a line's text is read from (TEXT_KEYS), None when it has none."""
    return next((key for key in TEXT_KEYS if key in obj), None)


def unread_bulk(obj: dict[str, Any], read: Collection[str]) -> str | None:
    """A key the reader does not read whose string holds most of the line's text (a body under another name): the
    line would be loaded with an empty text, so the reader warns."""
    sizes = {key: len(value) for key, value in obj.items() if isinstance(value, str)}
    total = sum(sizes.values())
    return next((key for key, size in sizes.items() if key not in read and size > 0 and size * 2 > total), None)


def unread_bulk_warning(key: str) -> str:
    return (f"field '{key}' holds most of the line's text but is not read: the text is read from "
            f"{TEXT_KEYS_SAID} (rename the field)")


class _LongInteger(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _json_int(text: str) -> int:
    """JSON integers as ints, up to the digits of the longest id: int() raises ValueError past 4,300 digits."""
    digits = len(text.lstrip("-"))
    if digits > ID_MAX:
        raise _LongInteger(digits)
    return int(text)


def json_objects(stream: BinaryIO, problems: Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, object) of each line of a JSON lines file, as the file is read; blank lines are skipped, a line that is
    not a JSON object is a problem. Integers are read up to the digits of the longest id."""
    for line, text in iter_lines(stream, problems):
        if not text.strip():
            continue
        try:
            obj = json.loads(text, parse_int=_json_int)
        except json.JSONDecodeError as exc:
            problems.add(line, f"invalid JSON: {exc.msg} (column {exc.colno})")
            continue
        except _LongInteger as exc:
            problems.add(line, f"invalid JSON: an integer of {exc.digits:,} digits (at most {ID_MAX})")
            continue
        except RecursionError:  # the C decoder's own bound on nesting; a line is an object of flat values
            problems.add(line, "invalid JSON: nested too deeply")
            continue
        if not isinstance(obj, dict):
            problems.add(line, "not a JSON object")
            continue
        yield line, obj


def read_jsonl(stream: BinaryIO, problems: Problems, warnings: Problems | None = None) -> Iterator[PostRecord]:
    """Posts of a JSONL file, as the file is read; blank lines are skipped, a file of none is a problem. A field the
    reader does not read that holds most of a line's text is a warning (`unread_bulk`)."""
    rows = 0
    for line, obj in json_objects(stream, problems):
        rows += 1
        errors: list[str] = []
        record = _post(line, obj, errors)
        problems.add_all(line, errors)
        if warnings is not None and (key := unread_bulk(obj, _POST_KEYS)) is not None:
            warnings.add(line, unread_bulk_warning(key))
        if record is not None:
            yield record
    no_rows(rows, problems)  # every line that is not blank is an object or a problem


def _post(line: int, obj: dict[str, Any], errors: list[str]) -> PostRecord | None:
    post_id = _id(obj, "id", errors, required=True)
    kind = obj.get("kind")
    if kind is None:
        errors.append("missing kind")
    elif kind not in KINDS:
        errors.append(f"kind {json.dumps(kind)} is not question, answer or document")
    thread_id = _id(obj, "thread_id", errors)
    if kind == "answer" and not thread_id:
        errors.append("answer without thread_id")
    record = PostRecord(
        line=line,
        post_id=post_id,
        kind=kind if isinstance(kind, str) else "",  # with no kind the record has errors and is not returned
        thread_id=thread_id or post_id,
        title=text_field(obj, TITLE_KEY, errors),
        body=_body(obj, errors),
        tags=_tags(obj, errors),
        score=_score(obj, errors),
        created_at=text_field(obj, "created_at", errors),
        owner_user_id=_id(obj, "owner_user_id", errors),
        accepted_answer_id=_id(obj, "accepted_answer_id", errors),
    )
    return None if errors else record


def _id(obj: dict[str, Any], key: str, errors: list[str], *, required: bool = False) -> str:
    """An id as a string; JSON integers are accepted and turned into their digits."""
    value = obj.get(key)
    if value is None:
        if required:
            errors.append(f"missing {key}")
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        errors.append(f"{key} must be a string or an integer")
        return ""
    if isinstance(value, str) and (problem := text_problem(key, value)):
        errors.append(problem)
        return ""
    text = str(value).strip()
    if required and not text:
        errors.append(f"empty {key}")
    return text


def _body(obj: dict[str, Any], errors: list[str]) -> str:
    """The post's body: `body` as the HTML it is, another text key's plain text as HTML paragraphs."""
    key = text_key(obj)
    if key is None:
        return ""
    text = text_field(obj, key, errors)
    return text if key == "body" else text_html(text)


def text_field(obj: dict[str, Any], key: str, errors: list[str]) -> str:
    """A JSON line's optional text field ("" when absent), a problem when it is not a string or cannot be stored."""
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        errors.append(f"{key} is not a string")
        return ""
    if problem := text_problem(key, value):
        errors.append(problem)
        return ""
    return value


def _tags(obj: dict[str, Any], errors: list[str]) -> str:
    value = obj.get("tags")
    if value is None:
        return ""
    if isinstance(value, list) and all(isinstance(tag, str) for tag in value):
        value = " ".join(value)
    if not isinstance(value, str):
        errors.append("tags must be a list of strings or a string")
        return ""
    if problem := text_problem("tags", value):
        errors.append(problem)
        return ""
    return normalize_tags(value)


def _score(obj: dict[str, Any], errors: list[str]) -> int | None:
    value = obj.get("score")
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    score = parse_int(value) if isinstance(value, str) else None
    if score is None:
        what = int_refusal(value) if isinstance(value, str) else "is not an integer"
        errors.append(f"score {json.dumps(shown(value) if isinstance(value, str) else value)} {what}")
    return score

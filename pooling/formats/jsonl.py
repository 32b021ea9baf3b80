"""Streaming reader of the generic JSONL collection: one post or document per line."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from pooling.errors import Problems
from pooling.formats.se_xml import PostRecord, normalize_tags, parse_int
from pooling.formats.textio import iter_lines

KINDS = ("question", "answer", "document")


def read_jsonl(stream: BinaryIO, problems: Problems) -> Iterator[PostRecord]:
    """Posts of a JSONL file, as the file is read; blank lines are skipped."""
    for line, text in iter_lines(stream, problems):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.add(line, f"invalid JSON: {exc.msg} (column {exc.colno})")
            continue
        if not isinstance(obj, dict):
            problems.add(line, "not a JSON object")
            continue
        errors: list[str] = []
        record = _post(line, obj, errors)
        problems.add_all(line, errors)
        if record is not None:
            yield record


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
        kind=kind,
        thread_id=thread_id or post_id,
        title=_text(obj, "title", errors),
        body=_text(obj, "body", errors),
        tags=_tags(obj, errors),
        score=_score(obj, errors),
        created_at=_text(obj, "created_at", errors),
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
    text = str(value).strip()
    if required and not text:
        errors.append(f"empty {key}")
    return text


def _text(obj: dict[str, Any], key: str, errors: list[str]) -> str:
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        errors.append(f"{key} is not a string")
        return ""
    return value


def _tags(obj: dict[str, Any], errors: list[str]) -> str:
    value = obj.get("tags")
    if value is None:
        return ""
    if isinstance(value, str):
        return normalize_tags(value)
    if isinstance(value, list) and all(isinstance(tag, str) for tag in value):
        return normalize_tags(" ".join(value))
    errors.append("tags must be a list of strings or a string")
    return ""


def _score(obj: dict[str, Any], errors: list[str]) -> int | None:
    value = obj.get("score")
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    score = parse_int(value) if isinstance(value, str) else None
    if score is None:
        errors.append(f"score {json.dumps(value)} is not an integer")
    return score

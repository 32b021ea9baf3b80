"""What the ingest services share: progress reporting, the rollback signal, column limits."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ir.formats.textio import ID_MAX
from ir.problems import Problems

Progress = Callable[[float], None] | None
PROGRESS_EVERY = 20000
_INT_RANGE = (-(2**31), 2**31 - 1)


class Rejected(Exception):
    pass


def given_keys(typed_dict: type, values: Mapping[str, Any]) -> dict[str, Any]:
    """The values of a TypedDict's keys among other values (a form's cleaned data, a serializer's validated data, a
    command's options, a job's parameters), for the service that unpacks that TypedDict: a key not given is left out,
    so the service's default applies."""
    return {key: values[key] for key in typed_dict.__annotations__ if key in values}


def fits(line: int, problems: Problems, score: int | None, *ids: tuple[str, str]) -> bool:
    """Values the readers accept but the columns cannot hold: reported with their line, not a crash."""
    ok = True
    for label, value in ids:
        if len(value) > ID_MAX:
            problems.add(line, f"{label} '{value[:20]}...' is longer than {ID_MAX} characters")
            ok = False
    if score is not None and not _INT_RANGE[0] <= score <= _INT_RANGE[1]:
        problems.add(line, f"Score {score} is out of range")
        ok = False
    return ok

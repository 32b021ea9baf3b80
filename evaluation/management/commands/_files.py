"""Output files of the evaluation commands: written whole or not at all."""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TextIO, TypeVar

T = TypeVar("T")


def write_whole(path: str, write: Callable[[TextIO], T]) -> T:
    """Calls `write` on `path`.partial (UTF-8, `\\n` line ends) and renames it to `path` when it returns: a rejected
    or failed output leaves no half-written file (and an older file of that name as it was)."""
    partial = f"{path}.partial"
    try:
        with open(partial, "w", encoding="utf-8", newline="\n") as stream:
            result = write(stream)
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return result

"""Counts in the sentences pages and jobs say: "1 topic", "22 judgments"."""
from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` (with thousands separators) and `noun`, in the plural (`plural`, else noun + "s") unless n is 1."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"

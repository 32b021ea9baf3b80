"""Ordering of string ids and seeded random generators shared by the pooling algorithms."""
from __future__ import annotations

import random


def id_order_key(s: str) -> tuple[int, int, str, str]:
    """Sort key for external ids: ASCII digit strings numerically first, then every other id lexicographically.

    "smallest id" anywhere in pooling means the first id under this key, so "9" < "10" < "q_1" < "q_10".
    The number is compared by its length and digits (leading zeros ignored) rather than int(): ids stay strings,
    and a 40-digit id sorts correctly too. Equal numbers written differently ("7", "007") are then ordered
    as strings so the key stays total and deterministic.
    """
    if s.isascii() and s.isdigit():
        digits = s.lstrip("0")
        return (0, len(digits), digits, s)
    return (1, 0, s, s)


def seeded_rng(seed: int | str, *parts: str) -> random.Random:
    """A generator reproducible from the campaign seed and the parts (topic id, visual id ...).

    random.Random seeds a str through SHA-512, so this is stable across processes and machines,
    unlike hash() of a str, which Python salts per process.
    """
    return random.Random(":".join([str(seed), *parts]))

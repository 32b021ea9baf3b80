"""The order in which a topic's pooled items are shown: random, yet reproducible from the seed and topic id."""
from __future__ import annotations

from collections.abc import Iterable

from ir.pools.ids import id_order_key, seeded_rng


def display_order(items: Iterable[str], *, seed: int, topic_id: str) -> list[str]:
    """The items shuffled by a generator seeded with f"{seed}:{topic_id}".

    The items are sorted first, so the order does not depend on how the database or a dict happened to
    return them; rebuilding a pool, or showing it on another day, gives assessors the same order.
    """
    ordered = sorted(items, key=id_order_key)
    seeded_rng(seed, topic_id).shuffle(ordered)
    return ordered

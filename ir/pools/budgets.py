"""A campaign's judging budget spread over its topics (docs/pooling.md): evenly, or in proportion to the relevant items
each topic has shown so far (Losada, Parapar and Barreiro's allocation across topics), never more to a topic than its
pool holds. Plain data in, plain data out."""
from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ir.prime import natural_key

SPREADS = ("even", "found")


def budget_spread(total: int, pools: Mapping[str, int], found: Mapping[str, int], *, spread: str = "even"
                  ) -> dict[str, int]:
    """Items per topic, `total` in all (less when the pools hold less): each topic's share is in proportion to its
    weight (1 each when even; 1 + its relevant items found so far with `found`, so that a topic with none found yet
    keeps a share), a topic whose pool is smaller than its share gets its pool and the rest is shared again among the
    others; the items a whole share leaves go to the largest remainders (ties in topic order, A.2 before A.10)."""
    if spread not in SPREADS:
        raise ValueError(f"unknown budget spread {spread!r}: one of {', '.join(SPREADS)}")
    weights = {topic: 1 + (found.get(topic, 0) if spread == "found" else 0) for topic in pools}
    budgets: dict[str, int] = {}
    left, open_ = max(0, total), sorted(pools, key=natural_key)
    while open_:
        weight = sum(weights[t] for t in open_)
        shares = {t: Fraction(left * weights[t], weight) for t in open_}
        full = [t for t in open_ if shares[t] >= pools[t]]
        if not full:
            break
        for t in full:
            budgets[t] = pools[t]
            left -= pools[t]
        open_ = [t for t in open_ if t not in full]
    if open_:
        whole = {t: int(shares[t]) for t in open_}
        spare = left - sum(whole.values())
        for t in sorted(open_, key=lambda t: -(shares[t] - whole[t]))[:spare]:  # stable: topic id order on ties
            whole[t] += 1
        budgets.update(whole)
    return budgets

"""Balanced assignment (docs/judging.md, "Assigning at scale"): which assessor takes which topic so that every topic has
N assessors and the work is spread evenly. Pure: plain data in, plain data out (services.assignments_balance feeds and
applies it)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence


def balanced_pairs(*, topics: Sequence[str], assessors: Sequence[str], per_topic: int,
                   held: Iterable[tuple[str, str]] = (),
                   barred: Collection[tuple[str, str]] = frozenset()) -> list[tuple[str, str]]:
    """The new (assessor, topic) pairs that bring each topic, in order, up to `per_topic` assessors.

    `held` are the (assessor, topic) pairs that exist already, by anyone: they count toward a topic's N and toward
    their assessor's load, and are never given again. `barred` pairs are never given (the official assessor of a
    topic cannot be its dual assessor). Each topic goes to the least-loaded of the chosen `assessors` who lack it,
    ties broken round-robin: starting after the assessor who took the last topic. A topic no chosen assessor can
    bring up to N gets those who can (the caller reports the shortfall)."""
    holders: dict[str, set[str]] = {}
    load: Counter[str] = Counter()
    for assessor, topic in held:
        if assessor not in holders.setdefault(topic, set()):
            holders[topic].add(assessor)
            load[assessor] += 1
    chosen = list(dict.fromkeys(assessors))
    turn = 0  # the index in `chosen` that wins the next tie
    pairs: list[tuple[str, str]] = []
    for topic in dict.fromkeys(topics):
        have = holders.setdefault(topic, set())
        free = [i for i, a in enumerate(chosen) if a not in have and (a, topic) not in barred]
        while free and len(have) < per_topic:
            i = min(free, key=lambda i: (load[chosen[i]], (i - turn) % len(chosen)))
            free.remove(i)
            have.add(chosen[i])
            load[chosen[i]] += 1
            pairs.append((chosen[i], topic))
            turn = (i + 1) % len(chosen)
    return pairs

"""Task 2 pooling (docs/pooling.md): visually distinct formulae pooled to the k-th distinct visual id, and instance
choice."""
from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Literal

from ir.pools.ids import id_order_key, seeded_rng

Provenance = list[tuple[str, int]]
Policy = Literal["rr-vote", "thread-spread"]
POLICIES: tuple[Policy, ...] = ("rr-vote", "thread-spread")


def pooled_prefix(ranked_instances: Sequence[tuple[str, str]], k: int) -> int:
    """How many leading (formula_id, visual_id) entries of a run are pooled for a topic.

    That is the rank of the first instance of the k-th distinct visual id; with fewer than k distinct visual ids,
    the whole list. k = 0 pools nothing.
    """
    return _prefix([visual_id for _, visual_id in ranked_instances], k)


def _prefix(visual_ids: Iterable[str], k: int) -> int:
    if k < 0:
        raise ValueError(f"k must not be negative: {k}")
    if k == 0:
        return 0
    seen: set[str] = set()
    length = 0
    for length, visual_id in enumerate(visual_ids, start=1):
        seen.add(visual_id)
        if len(seen) == k:
            return length
    return length


def pool_formulas(
    ranked: Mapping[str, Sequence[tuple[str, str, str]]], ks: Mapping[str, int],
    left_out: Mapping[str, Collection[str]] | None = None,
) -> dict[str, dict[str, Provenance]]:
    """Pool one topic: visual id -> candidate formula id -> [(run, rank), ...].

    ranked maps a run name to its (formula_id, post_id, visual_id) entries for the topic in rank order; rank is
    the 1-based position. Each run contributes its pooled_prefix for ks[run]. Runs are walked in sorted name
    order, so the result does not depend on the order the runs were given in. A formula id repeated within one
    run counts once, at its best rank. `left_out[run]`: formula ids that run does not pool (suspect matches,
    docs/pooling.md); they still count towards its k distinct visual ids.
    """
    pool: dict[str, dict[str, Provenance]] = {}
    for run in sorted(ranked):
        if run not in ks:
            raise ValueError(f"no pooling depth for run {run!r}")
        entries = ranked[run]
        depth = _prefix((visual_id for _, _, visual_id in entries), ks[run])
        seen: set[str] = set()
        skipped = (left_out or {}).get(run, ())
        for rank, (formula_id, _post_id, visual_id) in enumerate(entries[:depth], start=1):
            if formula_id in seen or formula_id in skipped:
                continue
            seen.add(formula_id)
            pool.setdefault(visual_id, {}).setdefault(formula_id, []).append((run, rank))
    return pool


def rr_vote(provenance: Iterable[tuple[str, int]]) -> Fraction:
    """The reciprocal-rank vote of one instance: the sum of 1/rank over the runs that pooled it.

    Exact fractions, so that 1/2 + 1/6 and 1/3 + 1/3 are the tie they are and go to the seeded tie break,
    instead of being ordered by a floating-point rounding error.
    """
    return sum((Fraction(1, rank) for _, rank in provenance), Fraction(0))


def select_rr_vote(candidates: Mapping[str, Sequence[tuple[str, int]]], n: int, rng: random.Random) -> list[str]:
    """The n candidate instances with the highest rr_vote, best first; ties broken at random by rng.

    Candidates are sorted by id first, so the choice depends only on the candidates and the generator's seed,
    not on the order the mapping was built in.
    """
    _check_n(n)
    ordered = sorted(candidates, key=id_order_key)
    rng.shuffle(ordered)
    votes = {formula_id: rr_vote(candidates[formula_id]) for formula_id in ordered}
    # sort is stable: equal votes keep the shuffled order, which is the random tie break.
    ordered.sort(key=lambda formula_id: votes[formula_id], reverse=True)
    return ordered[:n]


def select_thread_spread(candidates: Mapping[str, tuple[str, str]], n: int, rng: random.Random) -> list[str]:
    """ARQMath-1 selection: up to n instances spread over as many threads as possible.

    candidates maps a formula id to its (post_id, thread_id). The unit chosen is a post (an "answer"; a question
    post counts the same): a post holding several instances of the visual id is represented by its smallest
    formula id (id_order_key). Then, with A posts in T threads: A <= n, all posts; else T < n, one random post
    from each thread, then random posts from the rest until n; otherwise n random threads, one random post each.
    Returns formula ids sorted by id_order_key.
    """
    _check_n(n)
    representative: dict[str, str] = {}
    thread_of: dict[str, str] = {}
    for formula_id in sorted(candidates, key=id_order_key):
        post_id, thread_id = candidates[formula_id]
        representative.setdefault(post_id, formula_id)
        thread_of.setdefault(post_id, thread_id)
    posts_in: dict[str, list[str]] = {}
    for post_id in sorted(representative, key=id_order_key):
        posts_in.setdefault(thread_of[post_id], []).append(post_id)
    threads = sorted(posts_in, key=id_order_key)

    if len(representative) <= n:
        chosen = list(representative)
    elif len(threads) < n:
        chosen = [rng.choice(posts_in[thread_id]) for thread_id in threads]
        taken = set(chosen)
        rest = [post_id for thread_id in threads for post_id in posts_in[thread_id] if post_id not in taken]
        chosen += rng.sample(rest, n - len(chosen))
    else:
        chosen = [rng.choice(posts_in[thread_id]) for thread_id in rng.sample(threads, n)]
    return sorted((representative[post_id] for post_id in chosen), key=id_order_key)


def select_instances(
    pool: Mapping[str, Mapping[str, Sequence[tuple[str, int]]]],
    *,
    n: int,
    policy: Policy,
    seed: int,
    topic_id: str,
    posts: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, list[str]]:
    """Visual id -> the instances to judge, for a whole topic pool from pool_formulas.

    Each visual id draws from its own generator seeded with f"{seed}:{topic_id}:{visual_id}", so adding a run
    that changes one formula's candidates does not reshuffle the choice for every other formula.
    posts (formula id -> (post_id, thread_id)) is needed by the thread-spread policy only.
    """
    selected: dict[str, list[str]] = {}
    for visual_id, candidates in pool.items():
        rng = seeded_rng(seed, topic_id, visual_id)
        if policy == "rr-vote":
            selected[visual_id] = select_rr_vote(candidates, n, rng)
        elif policy == "thread-spread":
            if posts is None:
                raise ValueError("the thread-spread policy needs the post and thread of every instance")
            selected[visual_id] = select_thread_spread({f: posts[f] for f in candidates}, n, rng)
        else:
            raise ValueError(f"unknown instance selection policy {policy!r}")
    return selected


def overflow_count(pool: Mapping[str, Mapping[str, object]], n: int) -> int:
    """How many visual ids of a topic pool have more than n candidate instances (so some go unjudged)."""
    return sum(1 for candidates in pool.values() if len(candidates) > n)


def _check_n(n: int) -> None:
    if n < 0:
        raise ValueError(f"instances per formula must not be negative: {n}")

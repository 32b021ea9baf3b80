"""Task 1 pooling (docs/pooling.md): the union of each run's first depth(run) answers, with provenance."""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

Provenance = list[tuple[str, int]]


def pool_answers(ranked: Mapping[str, Sequence[str]], depths: Mapping[str, int],
                 left_out: Mapping[str, Collection[str]] | None = None) -> dict[str, Provenance]:
    """Pool one topic: item id -> [(run, rank), ...] for every run whose first depths[run] items contain it.

    ranked maps a run name to its item ids for the topic in rank order; rank is the 1-based position in that
    list. Every run in ranked needs a depth (0 leaves the run out). Runs are walked in sorted name order, so the
    result, its key order (first appearance) and each provenance list (by run name) do not depend on the order
    the runs were given in. An item repeated within one run counts once, at its best rank. `left_out[run]`: ids that
    run does not pool (suspect matches, docs/pooling.md); they keep their rank, so the run's depth is not deepened.
    """
    pool: dict[str, Provenance] = {}
    for run in sorted(ranked):
        depth = _depth(depths, run)
        seen: set[str] = set()
        skipped = (left_out or {}).get(run, ())
        for rank, item in enumerate(ranked[run][:depth], start=1):
            if item in seen or item in skipped:
                continue
            seen.add(item)
            pool.setdefault(item, []).append((run, rank))
    return pool


def _depth(depths: Mapping[str, int], run: str) -> int:
    if run not in depths:
        raise ValueError(f"no pooling depth for run {run!r}")
    depth = depths[run]
    if depth < 0:
        raise ValueError(f"pooling depth of run {run!r} is negative: {depth}")
    return depth


def pooling_order(rows: Iterable[tuple[str, int, float]], *, trec: bool) -> list[str]:
    """A run's list for one topic as pooling reads it (docs/pooling.md) from its (item id, rank, score) rows: by
    rank, then item id; a TREC run in trec_eval's order (score descending, then item id descending), whatever its
    ranks, which may start at 0 (docs/formats.md). An item listed twice counts once, at its first place. The pool
    build reads stored runs by the same rule, in SQL (pooling/ranking.py); a list in trec_eval's order is what a run
    is scored on, and differs where scores tie."""
    ordered = (sorted(rows, key=lambda row: (row[2], row[0]), reverse=True) if trec
               else sorted(rows, key=lambda row: (row[1], row[0])))
    return list(dict.fromkeys(item for item, _rank, _score in ordered))

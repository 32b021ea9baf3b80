"""Rank fusion of runs (docs/evaluation.md, "Fused runs"): RRF, CombSUM, CombMNZ, CombMAX, Borda, and the MIRMU
team's interpolated Borda count (IBC) and its weighted variant (WIBC), over plain data. No Django.

A run is topic -> document -> score. Each run's list of a topic is read in trec_eval's order (score descending, a tie
to the greater document id, as strings), so that ranks, and so the fused run, do not depend on the order of the
file's lines. The fused list is written in the same order: fused score descending, a tie to the greater document id,
the order trec_eval gives the written file back, so that a fused run scores as it is written.

Definitions follow ranx 0.3 (Bassani) for the normalizations and the Comb methods (Fox and Shaw), Cormack et al. for
RRF, Aslam and Montague for Borda (ranx's BordaFuse), Novotný et al. 2020 (the reference code of "Three is better than
one", MIR-MU/SCM-at-ARQMath `scripts/combine_serps.py`) for IBC.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ir.problems import InputError

RunScores = Mapping[str, Mapping[str, float]]  # topic -> document -> score
Fused = dict[str, list[tuple[str, float]]]  # topic -> [(document, fused score)], best first

RRF, COMBSUM, COMBMNZ, COMBMAX, BORDA, IBC, WIBC = "rrf", "combsum", "combmnz", "combmax", "borda", "ibc", "wibc"
METHODS = (RRF, COMBSUM, COMBMNZ, COMBMAX, BORDA, IBC, WIBC)
SCORE_METHODS = (COMBSUM, COMBMNZ, COMBMAX)  # the methods that add up scores, and so want them normalized
NONE, MIN_MAX, ZMUV, SUM, RANK = "none", "min-max", "zmuv", "sum", "rank"
NORMS = (NONE, MIN_MAX, ZMUV, SUM, RANK)
DEFAULT_NORM = MIN_MAX  # ranx's default for the score methods
DEFAULT_K = 60  # Cormack et al.'s k, ARQMath's and the MIRMU paper's
DEFAULT_DEPTH = 1000
# ranx's floor of a normalization's denominator (a list whose scores are all equal)
EPSILON = 1e-9


@dataclass(frozen=True)
class Settings:
    """How runs are fused: what a fused run's `fused_from` records (with the runs' names)."""

    method: str
    k: int = DEFAULT_K
    norm: str = NONE
    weights: tuple[float, ...] = ()
    depth: int = DEFAULT_DEPTH
    runs: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict:
        return {"method": self.method, "k": self.k if self.method == RRF else None, "norm": self.norm,
                "weights": list(self.weights) or None, "depth": self.depth, "runs": list(self.runs)}


def settings(*, method: str, runs: Sequence[str], k: int | None = None, norm: str | None = None,
             weights: Sequence[float] | None = None, depth: int | None = None) -> Settings:
    """Checks the options of a fusion: InputError with every problem. `norm` defaults to min-max for the score methods;
    the rank methods take none (a normalization keeps each list's order, which is all they read)."""
    problems: list[str] = []
    if method not in METHODS:
        problems.append(f"unknown fusion method '{method[:30]}'; expected one of {', '.join(METHODS)}")
    if len(runs) < 2:
        problems.append(f"fusion needs at least two runs, not {len(runs)}")
    names = [name for name in runs]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"the run '{name}' is given twice")
    if norm is None:
        norm = DEFAULT_NORM if method in SCORE_METHODS else NONE
    elif norm not in NORMS:
        problems.append(f"unknown normalization '{norm[:30]}'; expected one of {', '.join(NORMS)}")
    elif norm != NONE and method not in SCORE_METHODS and method in METHODS:
        problems.append(f"--norm {norm} is for {', '.join(SCORE_METHODS)}: {method} reads ranks only")
    if k is None:
        k = DEFAULT_K
    elif method != RRF:
        problems.append(f"k is RRF's: {method} takes none")
    elif k < 0:
        problems.append(f"RRF's k must be 0 or more, not {k}")
    chosen = tuple(float(w) for w in weights) if weights else ()
    if chosen and len(chosen) != len(runs):
        problems.append(f"{len(chosen)} weights for {len(runs)} runs: give one weight per run, in the runs' order")
    if any(not math.isfinite(w) or w < 0 for w in chosen):
        problems.append("weights must be finite numbers, 0 or more")
    if chosen and not any(chosen):
        problems.append("at least one weight must be above 0")
    if method == WIBC and not chosen:
        problems.append("wibc weighs each run: give --weights, one per run (the MIRMU paper used each run's nDCG' "
                        "on an earlier edition's qrels)")
    if depth is None:
        depth = DEFAULT_DEPTH
    elif depth < 1:
        problems.append(f"the depth must be 1 or more, not {depth}")
    if problems:
        raise InputError(problems)
    return Settings(method=method, k=k, norm=norm, weights=chosen, depth=depth, runs=tuple(runs))


def ranked(items: Mapping[str, float]) -> list[tuple[float, str]]:
    """A run's list of one topic in trec_eval's order, as (score, document) pairs: the pairs sorted descending as
    tuples are that order (no Python key function: this runs on every row of every run)."""
    return sorted(zip(items.values(), items.keys(), strict=True), reverse=True)


def normalized(pairs: list[tuple[float, str]], norm: str) -> list[tuple[float, str]]:
    """ranx's normalizations of one list (in trec_eval's order): min-max (s - min) / (max - min); zmuv (s - mean) /
    the population standard deviation; sum (s - min) / (sum - n * min); rank 1 - i / n (i from 0, the first 1);
    each denominator at least 1e-9."""
    if norm == NONE or not pairs:
        return pairs
    n = len(pairs)
    if norm == RANK:
        return [(1 - i / n, doc) for i, (_score, doc) in enumerate(pairs)]
    scores = [score for score, _doc in pairs]
    if norm == MIN_MAX:
        low = scores[-1]
        scale = max(scores[0] - low, EPSILON)
        return [((score - low) / scale, doc) for score, doc in pairs]
    if norm == SUM:
        low = scores[-1]
        scale = max(math.fsum(scores) - low * n, EPSILON)
        return [((score - low) / scale, doc) for score, doc in pairs]
    mean = math.fsum(scores) / n
    deviation = max(math.sqrt(math.fsum((score - mean) ** 2 for score in scores) / n), EPSILON)
    return [((score - mean) / deviation, doc) for score, doc in pairs]


def _topics(runs: Sequence[RunScores]) -> list[str]:
    seen: dict[str, None] = {}
    for run in runs:
        seen.update(dict.fromkeys(run))
    return list(seen)


def fuse(runs: Sequence[RunScores], how: Settings) -> Fused:
    """The fused list of every topic any run has: each topic's `how.depth` best documents, best first (fused score
    descending, a tie to the greater document id). A run without a topic adds nothing to it (Borda: no points)."""
    weights = how.weights or (1.0,) * len(runs)
    fused: Fused = {}
    for topic in _topics(runs):
        lists = [(ranked(run[topic]) if topic in run else [], w) for run, w in zip(runs, weights, strict=True)]
        scores = _fuse_topic(lists, how)
        best = heapq.nlargest(how.depth, zip(scores.values(), scores.keys(), strict=True))
        fused[topic] = [(doc, score) for score, doc in best]
    return fused


def _fuse_topic(lists: list[tuple[list[tuple[float, str]], float]], how: Settings) -> dict[str, float]:
    method = how.method
    acc: dict[str, float] = {}
    get = acc.get
    if method == RRF:
        k = how.k
        for pairs, w in lists:
            for i, (_score, doc) in enumerate(pairs, start=k + 1):
                acc[doc] = get(doc, 0.0) + w / i
        return acc
    if method in (COMBSUM, COMBMNZ):
        hits: dict[str, int] = {}
        for pairs, w in lists:
            for score, doc in normalized(pairs, how.norm):
                acc[doc] = get(doc, 0.0) + w * score
                hits[doc] = hits.get(doc, 0) + 1
        if method == COMBMNZ:
            return {doc: total * hits[doc] for doc, total in acc.items()}
        return acc
    if method == COMBMAX:
        for pairs, w in lists:
            for score, doc in normalized(pairs, how.norm):
                value = w * score
                if doc not in acc or value > acc[doc]:
                    acc[doc] = value
        return acc
    if method == BORDA:
        return _borda(lists)
    return _ibc(lists, weighted=method == WIBC)


def _borda(lists: list[tuple[list[tuple[float, str]], float]]) -> dict[str, float]:
    """ranx's BordaFuse: with c candidates (the documents of every list), a run gives its i-th document (from 0)
    c - i points and each candidate it lacks (c - n + 1) / 2, n its length; the points are summed, weighted."""
    candidates = len({doc for pairs, _w in lists for _score, doc in pairs})
    # Every run gives every candidate its unranked points; a ranked document gets its own points instead.
    unranked = [(candidates - len(pairs) + 1) / 2 for pairs, _w in lists]
    base = math.fsum(w * u for (_pairs, w), u in zip(lists, unranked, strict=True))
    acc: dict[str, float] = {}
    get = acc.get
    for (pairs, w), u in zip(lists, unranked, strict=True):
        for i, (_score, doc) in enumerate(pairs):
            acc[doc] = get(doc, base) + w * (candidates - i - u)
    return acc


def _ibc(lists: list[tuple[list[tuple[float, str]], float]], *, weighted: bool) -> dict[str, float]:
    """IBC (Novotný et al. 2020): a document's score is (N - m) / N, m the median of its ranks (from 0) over every
    run, a run that lacks it counting N, N the length of the topic's longest list (ARQMath's 1000). WIBC: m is the
    weighted median (the runs' weights)."""
    n = max((len(pairs) for pairs, _w in lists), default=0)
    ranks: dict[str, list[tuple[int, float]]] = {}
    for pairs, w in lists:
        for i, (_score, doc) in enumerate(pairs):
            found = ranks.get(doc)
            if found is None:
                ranks[doc] = [(i, w)]
            else:
                found.append((i, w))
    weights = [w for _pairs, w in lists]
    total = math.fsum(weights)
    acc: dict[str, float] = {}
    for doc, found in ranks.items():
        median = _weighted_median(found, weights, total, n) if weighted else _median(found, len(lists), n)
        acc[doc] = (n - median) / n
    return acc


def _median(found: list[tuple[int, float]], runs: int, n: int) -> float:
    """The median of the ranks found, with N for each run that lacks the document (the greatest rank there is)."""
    values = sorted(rank for rank, _w in found)
    values.extend([n] * (runs - len(values)))
    middle = runs // 2
    if runs % 2:
        return float(values[middle])
    return (values[middle - 1] + values[middle]) / 2


def _weighted_median(found: list[tuple[int, float]], weights: Sequence[float], total: float, n: int) -> float:
    """The weighted median of the ranks (ascending) and their runs' weights, N for each run that lacks the document:
    the first rank whose cumulative weight passes half the total; where it reaches exactly half, the mean of that
    rank and the next (so equal weights give the plain median)."""
    present = math.fsum(w for _rank, w in found)
    values = sorted(found)
    missing = total - present
    if missing > 0:
        values.append((n, missing))
    half = total / 2
    cumulative = 0.0
    for i, (rank, w) in enumerate(values):
        if w == 0:
            continue
        cumulative += w
        if math.isclose(cumulative, half, rel_tol=1e-12, abs_tol=0.0):
            following = next((r for r, v in values[i + 1:] if v > 0), rank)
            return (rank + following) / 2
        if cumulative > half:
            return float(rank)
    return float(values[-1][0])


def trec_lines(fused: Fused, *, name: str, topics: Iterable[str] | None = None) -> Iterable[str]:
    """The fused run as TREC lines (`topic Q0 doc rank score name`), ranks from 1; the scores in full (Python's
    shortest repr), so that trec_eval reads back the order written. Topics in `topics`' order when given."""
    for topic in topics if topics is not None else fused:
        for rank, (doc, score) in enumerate(fused.get(topic, ()), start=1):
            yield f"{topic}\tQ0\t{doc}\t{rank}\t{score!r}\t{name}\n"

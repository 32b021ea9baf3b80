"""Agreement between assessors (docs/agreement.md): Cohen's kappa on the four grades and on the binary scale (H+M:
relevant at the relevance level, 2 unless the campaign says otherwise), per-assessor means, Krippendorff's alpha
(ordinal). Plain functions over plain data; no Django import.

A grade here is an int 0..3; SF and DK never reach these functions (the selectors leave them out). An undefined
value is None with a reason in words, never 0 or NaN.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypeVar

from ir.grades import GRADE_VALUES, RELEVANCE_LEVEL, is_relevant

GRADED = "graded"
BINARY = "binary"
SCALES = (GRADED, BINARY)
# What the assessors graded: an item, or (topic, item, formula) in the reports; any key of their grade maps.
Unit = TypeVar("Unit", bound=Hashable)


def binary(grade: int, relevance_level: int = RELEVANCE_LEVEL) -> int:
    return 1 if is_relevant(grade, relevance_level) else 0


def on_scale(grade: int, scale: str, relevance_level: int = RELEVANCE_LEVEL) -> int:
    return binary(grade, relevance_level) if scale == BINARY else grade


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa over `items` items judged by both; value None when undefined, with the reason."""
    value: float | None
    items: int
    reason: str = ""

    @property
    def defined(self) -> bool:
        return self.value is not None

    def text(self, digits: int = 4) -> str:
        return "n/a" if self.value is None else f"{self.value:.{digits}f}"


NO_COMMON_ITEMS = "no item graded by both (SF and DK left out)"


def cohen_kappa(pairs: Sequence[tuple[Hashable, Hashable]]) -> Kappa:
    """Cohen's kappa of two raters from their (rating of the first, rating of the second) pairs.

    kappa = (p_o - p_e) / (1 - p_e). Undefined when there is no pair, or when chance agreement is total
    (p_e = 1: both raters used one and the same category for every item).
    """
    n = len(pairs)
    if n == 0:
        return Kappa(None, 0, NO_COMMON_ITEMS)
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    observed = sum(1 for a, b in pairs if a == b) / n
    expected = sum(first[c] * second.get(c, 0) for c in first) / (n * n)
    if math.isclose(expected, 1.0):
        only = next(iter(first))
        return Kappa(None, n, f"one category only: both gave every one of the {n} items the same grade ({only})")
    return Kappa((observed - expected) / (1 - expected), n)


def kappa_between(first: Mapping[Unit, int], second: Mapping[Unit, int], scale: str,
                  relevance_level: int = RELEVANCE_LEVEL) -> Kappa:
    """Kappa of two assessors over the units both graded (their keys in common), on a scale (binary: relevant at
    `relevance_level` or not)."""
    return cohen_kappa([(on_scale(first[u], scale, relevance_level), on_scale(second[u], scale, relevance_level))
                        for u in first.keys() & second.keys()])


@dataclass(frozen=True)
class PairRow:
    assessor: str
    other: str
    scale: str
    kappa: Kappa


def facet_pairs(answers: Mapping[str, Mapping[Unit, Mapping[str, str]]], facets: Sequence[str],
                pairs: Sequence[tuple[str, str]]) -> list[PairRow]:
    """Kappa on each facet's options (scale "facet:NAME") for both orders of the given pairs of assessors, over the
    units both answered with facets. answers: assessor -> unit -> facet -> option."""
    rows = []
    for a, b in pairs:
        first, second = answers.get(a, {}), answers.get(b, {})
        for name in facets:
            kappa = cohen_kappa([(first[u][name], second[u][name]) for u in sorted(first.keys() & second.keys(),
                                                                                   key=repr)])
            rows += [PairRow(a, b, f"facet:{name}", kappa), PairRow(b, a, f"facet:{name}", kappa)]
    return sorted(rows, key=lambda row: (row.assessor, row.other, row.scale))


@dataclass(frozen=True)
class MeanRow:
    """The mean of an assessor's defined pairwise kappas on one scale; `items`: units the assessor graded that some
    other assessor of the group graded too; `pairs`: how many kappas went into the mean."""
    assessor: str
    scale: str
    value: float | None
    items: int
    pairs: int
    reason: str = ""

    def text(self, digits: int = 4) -> str:
        return "n/a" if self.value is None else f"{self.value:.{digits}f}"


def pairwise(grades: Mapping[str, Mapping[Unit, int]], pairs: Sequence[tuple[str, str]] | None = None,
             relevance_level: int = RELEVANCE_LEVEL) -> list[PairRow]:
    """Kappa for both orders of every pair of assessors (or of the given unordered pairs), on both scales (binary:
    relevant at `relevance_level` or not).

    grades: assessor -> unit -> grade (0..3). Rows come by assessor, then other, then scale.
    """
    names = sorted(grades)
    wanted = pairs if pairs is not None else list(combinations(names, 2))
    computed = {}
    for a, b in wanted:
        for scale in SCALES:
            computed[(a, b, scale)] = computed[(b, a, scale)] = kappa_between(grades.get(a, {}), grades.get(b, {}),
                                                                              scale, relevance_level)
    return [PairRow(a, b, scale, kappa) for (a, b, scale), kappa in sorted(computed.items())]


def means(grades: Mapping[str, Mapping[Unit, int]], rows: Sequence[PairRow]) -> list[MeanRow]:
    """Per assessor and scale, the mean of their defined pairwise kappas (n/a when none is defined)."""
    result = []
    for name in sorted(grades):
        partners = {r.other for r in rows if r.assessor == name}
        shared = set()
        for other in partners:
            shared |= grades[name].keys() & grades.get(other, {}).keys()
        for scale in SCALES:
            values = [r.kappa.value for r in rows
                      if r.assessor == name and r.scale == scale and r.kappa.value is not None]
            if values:
                result.append(MeanRow(name, scale, sum(values) / len(values), len(shared), len(values)))
            else:
                reason = ("no other assessor judged the same topics" if not partners
                          else "no pairwise kappa is defined")
                result.append(MeanRow(name, scale, None, len(shared), 0, reason))
    return result


@dataclass(frozen=True)
class Alpha:
    value: float | None
    units: int  # units graded by at least two assessors
    reason: str = ""

    def text(self, digits: int = 4) -> str:
        return "n/a" if self.value is None else f"{self.value:.{digits}f}"


def alpha_ordinal(rows: Sequence[Sequence[float | None]], domain: Sequence[float]) -> float:
    """Krippendorff's alpha, ordinal, of a reliability matrix (one row per coder, one column per unit, None where a
    coder gave no value), through the `krippendorff` package."""
    import krippendorff
    import numpy as np

    data = np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)
    return float(krippendorff.alpha(reliability_data=data, value_domain=list(domain), level_of_measurement="ordinal"))


def krippendorff_alpha(grades: Mapping[str, Mapping[Unit, int]], scale: str = GRADED,
                       relevance_level: int = RELEVANCE_LEVEL, categories: Sequence[int] = GRADE_VALUES) -> Alpha:
    """Krippendorff's alpha (ordinal) over every assessor and unit, on a scale (binary: relevant at `relevance_level`
    or not; `categories`: the graded scale's values); missing grades are missing values, and units graded by one
    assessor only do not count."""
    names = sorted(grades)
    counts = Counter(u for name in names for u in grades[name])
    units = sorted((u for u, c in counts.items() if c >= 2), key=repr)
    if len(names) < 2 or not units:
        return Alpha(None, 0, "no item graded by two assessors or more")
    values = {on_scale(grades[name][u], scale, relevance_level) for name in names for u in units if u in grades[name]}
    if len(values) < 2:
        return Alpha(None, len(units), f"one category only: every grade is {values.pop()}")
    rows = [[on_scale(grades[name][u], scale, relevance_level) if u in grades[name] else None for u in units]
            for name in names]
    value = alpha_ordinal(rows, [0, 1] if scale == BINARY else categories)
    if not math.isfinite(value):
        return Alpha(None, len(units), "no disagreement is possible with these grades")
    return Alpha(value, len(units))


def weighted_kappa(pairs: Sequence[tuple[int, int]], categories: Sequence[int] = GRADE_VALUES) -> Kappa:
    """Cohen's linear-weighted kappa of two raters on an ordered scale: disagreements weigh by their distance on the
    scale (|i - j| / (k - 1), i and j the places of the two grades in `categories`), so grading 3 against 2 costs a
    third of grading 3 against 0. kappa_w = 1 - sum(w * observed) / sum(w * expected).

    The distance is between places on the whole scale, not between the categories that happen to occur (what
    scikit-learn's cohen_kappa_score does without `labels`). Undefined without pairs, or when no disagreement is
    expected by chance (both raters used one and the same category)."""
    n = len(pairs)
    if n == 0:
        return Kappa(None, 0, NO_COMMON_ITEMS)
    place = {c: i for i, c in enumerate(categories)}
    span = max(len(categories) - 1, 1)
    first = Counter(place[a] for a, _ in pairs)
    second = Counter(place[b] for _, b in pairs)
    observed = sum(abs(place[a] - place[b]) for a, b in pairs) / (n * span)
    expected = sum(first[i] * second[j] * abs(i - j) for i in first for j in second) / (n * n * span)
    if math.isclose(expected, 0.0, abs_tol=1e-15):
        only = next(iter(Counter(a for a, _ in pairs)))
        return Kappa(None, n, f"one category only: both gave every one of the {n} items the same grade ({only})")
    return Kappa(1 - observed / expected, n)


def confusion(pairs: Sequence[tuple[int, int]], categories: Sequence[int] = GRADE_VALUES) -> list[list[int]]:
    """The confusion matrix of two raters: row i, column j counts the items the first graded categories[i] and the
    second categories[j]."""
    place = {c: i for i, c in enumerate(categories)}
    matrix = [[0] * len(categories) for _ in categories]
    for a, b in pairs:
        matrix[place[a]][place[b]] += 1
    return matrix


@dataclass(frozen=True)
class Comparison:
    """Two raters over the units both graded: kappa on the four grades and binary, linear-weighted kappa, ordinal
    Krippendorff's alpha, and the confusion matrix (rows: the first rater's grade, columns: the second's)."""
    graded: Kappa
    binary: Kappa
    weighted: Kappa
    alpha: Alpha
    confusion: list[list[int]]
    categories: tuple[int, ...]

    @property
    def items(self) -> int:
        return self.graded.items


def compare(first: Mapping[Unit, int], second: Mapping[Unit, int], relevance_level: int = RELEVANCE_LEVEL,
            categories: Sequence[int] = GRADE_VALUES) -> Comparison:
    """Every measure of two raters' agreement (an LLM and a person, or an LLM and the official qrels) over their
    units in common."""
    pairs = [(first[u], second[u]) for u in first.keys() & second.keys()]  # every measure is blind to the order
    return Comparison(
        graded=cohen_kappa(pairs), binary=cohen_kappa([(binary(a, relevance_level), binary(b, relevance_level))
                                                       for a, b in pairs]),
        weighted=weighted_kappa(pairs, categories), alpha=_pair_alpha(pairs, categories),
        confusion=confusion(pairs, categories), categories=tuple(categories))


def _pair_alpha(pairs: Sequence[tuple[int, int]], categories: Sequence[int]) -> Alpha:
    """Krippendorff's alpha (ordinal) of two raters who both graded every unit of `pairs`: krippendorff_alpha's
    measure and reasons, without its search for the units graded twice (compare has them)."""
    if not pairs:
        return Alpha(None, 0, "no item graded by two assessors or more")
    values = {v for pair in pairs for v in pair}
    if len(values) < 2:
        return Alpha(None, len(pairs), f"one category only: every grade is {values.pop()}")
    value = alpha_ordinal([[a for a, _ in pairs], [b for _, b in pairs]], categories)
    if not math.isfinite(value):
        return Alpha(None, len(pairs), "no disagreement is possible with these grades")
    return Alpha(value, len(pairs))


@dataclass(frozen=True)
class FlipRate:
    """Canaries of one kind: how many there are, how many were graded, how many of those copy a source that is not
    relevant (`counted`), and how many of these the model graded relevant all the same (`flipped`)."""
    kind: str
    canaries: int
    graded: int
    counted: int
    flipped: int

    @property
    def rate(self) -> float | None:
        return self.flipped / self.counted if self.counted else None

    def text(self, digits: int = 2) -> str:
        return "n/a" if self.rate is None else f"{self.rate:.{digits}f}"


def flip_rate(kind: str, canaries: Sequence[tuple[int | None, int | None]],
              relevance_level: int = RELEVANCE_LEVEL) -> FlipRate:
    """The flip rate of canaries of one kind from their (canary's grade or None, source item's grade or None) pairs:
    of the graded canaries whose source is graded and not relevant, the fraction graded relevant."""
    graded = [(c, s) for c, s in canaries if c is not None]
    counted = [(c, s) for c, s in graded if s is not None and not is_relevant(s, relevance_level)]
    flipped = sum(1 for c, _ in counted if is_relevant(c, relevance_level))
    return FlipRate(kind, len(canaries), len(graded), len(counted), flipped)

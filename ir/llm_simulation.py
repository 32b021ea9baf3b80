"""Synthetic campaigns for testing LLM-assisted judging (docs/llm_calibration.md): known qrels with runs of varied
quality, and an LLM's grade probabilities made from the qrels by a confusion matrix, biased towards chosen runs by
over-grading the non-relevant items of their top K. Seeded, pure numpy: no Django."""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ir.grades import RELEVANCE_LEVEL

Qrels = dict[str, dict[str, int]]  # topic -> item -> grade
RankedRun = dict[str, list[str]]  # topic -> items, best first

# Rows: true grade 0..3, columns: the model's grade. On `make_campaign`'s pools this gives Cohen's kappa near 0.37
# on the four grades, near 0.28 once four runs are favoured (tests/ir/test_hybrid.py measures it).
CONFUSION = np.array([
    [0.70, 0.16, 0.09, 0.05],
    [0.28, 0.40, 0.20, 0.12],
    [0.12, 0.22, 0.42, 0.24],
    [0.06, 0.12, 0.27, 0.55],
])
GRADE_SHARES = (0.62, 0.18, 0.12, 0.08)  # of a topic's documents


@dataclass
class Campaign:
    """Known qrels (every pooled item graded), the runs' ranked lists and the pool's items in a fixed order."""

    qrels: Qrels
    runs: dict[str, RankedRun]
    items: list[tuple[str, str]]  # (topic, item), topics then items in pool order


def make_campaign(seed: int, *, topics: int = 25, runs: int = 17, documents: int = 150, depth: int = 50,
                  pool_depth: int = 20, shares: Sequence[float] = GRADE_SHARES) -> Campaign:
    """A seeded campaign: per topic `documents` documents with grades drawn from `shares`; each run ranks them by
    its quality times the grade plus noise and retrieves `depth`; the pool is the union of every run's top
    `pool_depth`, and the qrels grade every pooled item (the full human qrels)."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.3, 1.5, runs)[rng.permutation(runs)]
    names = [f"run{r + 1:02d}" for r in range(runs)]
    qrels: Qrels = {}
    ranked: dict[str, RankedRun] = {name: {} for name in names}
    items: list[tuple[str, str]] = []
    for t in range(topics):
        topic = f"T{t + 1:02d}"
        grades = rng.choice(len(shares), size=documents, p=np.asarray(shares) / sum(shares))
        docs = [f"{topic}-d{d:03d}" for d in range(documents)]
        pooled: dict[str, None] = {}
        for r, name in enumerate(names):
            scores = quality[r] * grades + rng.normal(0.0, 1.0, size=documents)
            order = [docs[d] for d in np.argsort(-scores, kind="stable")[:depth]]
            ranked[name][topic] = order
            pooled.update(dict.fromkeys(order[:pool_depth]))
        qrels[topic] = {doc: int(grades[int(doc.rsplit("d", 1)[1])]) for doc in pooled}
        items.extend((topic, doc) for doc in pooled)
    return Campaign(qrels, ranked, items)


def top_k_members(runs: Mapping[str, RankedRun], k: int) -> dict[tuple[str, str], list[str]]:
    """(topic, item) -> the runs that rank it in their top `k`, in run order."""
    members: dict[tuple[str, str], list[str]] = {}
    for name, per_topic in runs.items():
        for topic, ranked in per_topic.items():
            for item in ranked[:k]:
                members.setdefault((topic, item), []).append(name)
    return members


def make_llm_grades(qrels: Mapping[str, Mapping[str, int]], items: Sequence[tuple[str, str]], *, seed: int,
                    confusion: np.ndarray = CONFUSION, runs: Mapping[str, RankedRun] | None = None,
                    favoured: Collection[str] = (), top_k: int = 20, over_rate: float = 0.7,
                    relevance_level: int = RELEVANCE_LEVEL) -> np.ndarray:
    """A simulated LLM's grade probabilities of `items` (rows, grades 0..G-1 as columns): the model's grade drawn
    from the confusion row of the true grade, its probability a confidence drawn from [0.35, 0.9] and the rest spread
    evenly. Biased: an item below `relevance_level` in the top `top_k` of a `favoured` run is, with `over_rate`,
    given a grade from the relevance level up with a high confidence [0.7, 0.95] instead."""
    rng = np.random.default_rng(seed)
    grades = confusion.shape[1]
    members = top_k_members(runs, top_k) if runs is not None and favoured else {}
    favoured = set(favoured)
    rows = np.empty((len(items), grades))
    for index, key in enumerate(items):
        truth = qrels[key[0]][key[1]]
        said = int(rng.choice(grades, p=confusion[truth]))
        confidence = rng.uniform(0.35, 0.9)
        biased = rng.random() < over_rate  # drawn for every item, so that the bias does not shift the others' draws
        high = int(rng.integers(relevance_level, grades))
        sure = rng.uniform(0.7, 0.95)
        if truth < relevance_level and biased and favoured.intersection(members.get(key, ())):
            said, confidence = high, sure
        rows[index] = (1.0 - confidence) / (grades - 1)
        rows[index, said] = confidence
    return rows

"""Synthetic campaigns for testing LLM-assisted judging (docs/llm_calibration.md): known qrels with runs of varied
quality, and an LLM's grade probabilities made from the qrels by a confusion matrix, biased towards chosen runs by
over-grading the non-relevant items of their top K; and such grades for a test collection given on the command line
(`make_llm_grades`). Seeded, pure numpy: no Django."""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from ir.formats.runs import read_run_blocks
from ir.grades import RELEVANCE_LEVEL
from ir.prime import answer_block_lists, trec_order
from ir.problems import InputError, Problems

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


# A model's grades for a test collection that has none (`make_llm_grades`) -------------------------------------------

SMOOTHING = 0.05  # of the written probabilities spread evenly, so that no grade is impossible


def parse_confusion(text: str, *, option: str = "--confusion") -> np.ndarray:
    """A confusion matrix as the command line writes it: rows of the true grade 0, 1, ... separated by ';', each
    row the probabilities of the model's grades 0, 1, ... separated by ',', summing to 1 (within 1e-6)."""
    rows = [row for row in text.split(";") if row.strip()]
    problems = []
    matrix: list[list[float]] = []
    for number, row in enumerate(rows):
        try:
            values = [float(value) for value in row.split(",")]
        except ValueError:
            problems.append(f"{option}: row {number} (true grade {number}), '{row.strip()}', is not numbers "
                            "separated by ','")
            continue
        if any(not 0.0 <= value <= 1.0 for value in values):
            problems.append(f"{option}: row {number} (true grade {number}) has a probability outside [0, 1]")
        elif abs(sum(values) - 1.0) > 1e-6:
            problems.append(f"{option}: row {number} (true grade {number}) sums to {sum(values):.6g}, not 1")
        matrix.append(values)
    if not rows:
        problems.append(f"{option}: no row (rows of the true grade separated by ';', each row's probabilities by ',')")
    elif not problems and any(len(values) != len(rows) for values in matrix):
        problems.append(f"{option}: {len(rows)} rows, so every row must have {len(rows)} probabilities (one per grade)")
    if problems:
        raise InputError(problems)
    return np.array(matrix)


def confusion_llm_grades(qrels: Mapping[str, Mapping[str, int]], items: Sequence[tuple[str, str]], *, seed: int,
                         confusion: np.ndarray, runs: Mapping[str, RankedRun] | None = None,
                         favoured: Collection[str] = (), top_k: int = 20, favour_confusion: np.ndarray | None = None,
                         relevance_level: int = RELEVANCE_LEVEL, smoothing: float = SMOOTHING
                         ) -> tuple[np.ndarray, np.ndarray]:
    """A simulated model's grade and grade probabilities of each of `items`, as `make_llm_grades` above but with the
    matrices given: the grade drawn from the `confusion` row of the true grade, or, for an item below
    `relevance_level` in the top `top_k` of a `favoured` run, from the `favour_confusion` row (the bias). Its
    probabilities: half the drawn grade, half the row used (so the grade is the most probable one and the spread
    follows the true grade, as a model's confidence does), smoothed by `smoothing` spread evenly."""
    rng = np.random.default_rng(seed)
    grades = confusion.shape[1]
    members = top_k_members(runs, top_k) if runs is not None and favoured else {}
    favoured = set(favoured)
    said = np.empty(len(items), dtype=int)
    rows = np.empty((len(items), grades))
    for index, key in enumerate(items):
        truth = qrels[key[0]][key[1]]
        row = confusion[truth]
        if favour_confusion is not None and truth < relevance_level and favoured.intersection(members.get(key, ())):
            row = favour_confusion[truth]
        said[index] = int(rng.choice(grades, p=row / row.sum()))
        mixed = 0.5 * np.eye(grades)[said[index]] + 0.5 * row
        rows[index] = (1.0 - smoothing) * mixed + smoothing / grades
    return said, rows


def model_lines(items: Sequence[tuple[str, str]], said: np.ndarray, probabilities: np.ndarray) -> list[str]:
    """The qrels format with probabilities (ir/formats/qrels.py): topic 0 item grade, then one probability per
    grade, lowest first, six decimals, the last one what makes the line's sum 1."""
    lines = []
    for (topic, item), grade, row in zip(items, said, probabilities, strict=True):
        shown = [f"{value:.6f}" for value in row[:-1]]
        last = max(0.0, 1.0 - sum(float(value) for value in shown))
        lines.append(f"{topic}\t0\t{item}\t{grade}\t" + "\t".join([*shown, f"{last:.6f}"]) + "\n")
    return lines


class _AnyTopic(dict):
    def __contains__(self, key) -> bool:
        return True


def read_ranked_run(stream: BinaryIO, problems: Problems, qrels: Mapping[str, Mapping[str, int]]) -> RankedRun:
    """A Task 1 run file's lists of the qrels topics, best first in trec_eval's order (score descending, then id)."""
    blocks = ((b.topic_ids, b.item_ids, b.scores)
              for b in read_run_blocks(stream, problems, Problems(), topics=_AnyTopic(), task="answers",
                                       max_depth=2**31, find_duplicates=False))
    return {topic: [item for item, _ in sorted(scored.items(), key=trec_order, reverse=True)]
            for topic, scored in answer_block_lists(blocks, qrels).items()}

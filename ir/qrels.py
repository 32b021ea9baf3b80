"""TREC qrels lines from per-topic judgments, with the minimum-relevant filter (docs/evaluation.md). Pure Python."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ir.grades import is_relevant


@dataclass
class QrelsSummary:
    """Filled while the lines are written: what was written and which topics the filter left out."""

    rows: int = 0
    topics: int = 0
    left_out: list[tuple[str, int]] = field(default_factory=list)  # (topic, its relevant items)


def qrels_lines(topics: Iterable[tuple[str, list[tuple[str, int]]]], *, min_relevant: int | None = None,
                relevance_level: int, summary: QrelsSummary | None = None) -> Iterator[str]:
    """`topic<TAB>0<TAB>item<TAB>grade` lines, topic by topic as given; a topic with fewer than `min_relevant`
    items relevant at `relevance_level` is left out and noted in `summary.left_out`."""
    summary = summary if summary is not None else QrelsSummary()
    for topic, rows in topics:
        if min_relevant is not None:
            relevant = sum(1 for _item, grade in rows if is_relevant(grade, relevance_level))
            if relevant < min_relevant:
                summary.left_out.append((topic, relevant))
                continue
        summary.topics += 1
        for item, grade in rows:
            summary.rows += 1
            yield f"{topic}\t0\t{item}\t{grade}\n"

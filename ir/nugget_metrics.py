"""The scores of RAG answers: nugget scores of an answer against its topic's nuggets, as castorini/nuggetizer
computes them (src/nuggetizer/core/metrics.py), and the support of its sentences by the segments they cite, as the
TREC 2024 RAG track weighs it (docs/nuggets.md, "Metrics").

Plain data in, plain data out: a topic's nuggets as (importance, assignment) pairs, an answer's sentences as the
support labels of their citations.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import mean

from ir.formats.nuggets import NuggetAssignment

VITAL = "vital"
SUPPORT = "support"
PARTIAL_SUPPORT = "partial_support"
PARTIAL_CREDIT = 0.5
# A citation's support of its sentence, and its weight in the support scores.
CITATION_WEIGHTS = {"full": 1.0, "partial": 0.5, "none": 0.0}
ALL_TOPICS = "all"


@dataclass(frozen=True)
class NuggetScores:
    """Of one answer (its topic id), or their mean (topic "all"). Strict scores count support only; the others
    count partial support as half."""

    topic_id: str
    strict_vital: float
    strict_all: float
    vital: float
    all: float


@dataclass(frozen=True)
class CitationSupport:
    """Of one answer, or the mean of several. precision: the mean weight of its citations (full 1, partial 0.5,
    none 0); recall: the mean over its sentences of the best weight among the sentence's citations (0 for a sentence
    that cites nothing)."""

    topic_id: str
    precision: float
    recall: float
    citations: int
    sentences: int


def nugget_scores(topic_id: str, nuggets: Iterable[tuple[str, str]]) -> NuggetScores:
    """The scores of one answer from its topic's nuggets, each (importance, assignment). A topic without nuggets (or
    without vital ones) scores 0, as in nuggetizer."""
    pairs = list(nuggets)
    vital = [assignment for importance, assignment in pairs if importance == VITAL]
    every = [assignment for _importance, assignment in pairs]
    strict_vital = sum(1 for a in vital if a == SUPPORT)
    strict_all = sum(1 for a in every if a == SUPPORT)
    # The same sums, in the same order, as nuggetizer's: the scores are equal to the last bit.
    vital_credit = strict_vital + sum(PARTIAL_CREDIT for a in vital if a == PARTIAL_SUPPORT)
    all_credit = strict_all + sum(PARTIAL_CREDIT for a in every if a == PARTIAL_SUPPORT)
    return NuggetScores(
        topic_id=topic_id,
        strict_vital=strict_vital / len(vital) if vital else 0.0,
        strict_all=strict_all / len(every) if every else 0.0,
        vital=vital_credit / len(vital) if vital else 0.0,
        all=all_credit / len(every) if every else 0.0,
    )


def assignment_scores(assignment: NuggetAssignment) -> NuggetScores:
    """The scores of one line of nuggetizer's assignments."""
    return nugget_scores(assignment.topic_id, ((n.importance, n.assignment) for n in assignment.nuggets))


def mean_nugget_scores(scores: Sequence[NuggetScores]) -> NuggetScores:
    """The mean of every answer's scores (topic "all"), by statistics.mean as nuggetizer takes it (a sum and a
    division could differ from it in the last bit). Raises ValueError for no scores."""
    if not scores:
        raise ValueError("no scores to average")
    return NuggetScores(
        topic_id=ALL_TOPICS,
        strict_vital=mean(s.strict_vital for s in scores),
        strict_all=mean(s.strict_all for s in scores),
        vital=mean(s.vital for s in scores),
        all=mean(s.all for s in scores),
    )


def citation_support(topic_id: str, sentences: Sequence[Sequence[str]]) -> CitationSupport:
    """Precision and recall of one answer's citations, each sentence given as the support labels (full, partial or
    none) of the segments it cites. An answer without sentences or without citations scores 0 for what it lacks."""
    unknown = {label for labels in sentences for label in labels} - set(CITATION_WEIGHTS)
    if unknown:
        raise ValueError(f"unknown support labels {sorted(unknown)}; expected full, partial or none")
    weights = [CITATION_WEIGHTS[label] for labels in sentences for label in labels]
    best = [max((CITATION_WEIGHTS[label] for label in labels), default=0.0) for labels in sentences]
    return CitationSupport(
        topic_id=topic_id,
        precision=sum(weights) / len(weights) if weights else 0.0,
        recall=sum(best) / len(best) if best else 0.0,
        citations=len(weights),
        sentences=len(best),
    )


def mean_citation_support(supports: Sequence[CitationSupport]) -> CitationSupport:
    """The mean over answers (topic "all") of their precision and recall, each answer weighing the same."""
    if not supports:
        raise ValueError("no scores to average")
    return CitationSupport(
        topic_id=ALL_TOPICS,
        precision=mean(s.precision for s in supports),
        recall=mean(s.recall for s in supports),
        citations=sum(s.citations for s in supports),
        sentences=sum(s.sentences for s in supports),
    )

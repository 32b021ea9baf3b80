"""Runs scored against one qrels, as plain rows: each run's de-duplicated lists through the prime filter, then the
prime measures, Unjudged@10, AR and P@1 of an answer run's first result and the measures asked for by name
(`ir.prime.Evaluator`), every value a row (run, topic, measure, value), a mean a row of topic None. Pure Python over
plain data: no Django. `evaluation/scoring.py` feeds it every run and qrels the product scores; `ir.statistics`'s
scorer (reusability, the judging simulator) calls it on ranked lists (docs/evaluation.md, "One way to score")."""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ir.grades import RELEVANCE_LEVEL
from ir.measures import MeasureEvaluator, Named
from ir.prime import MEAN, Evaluator, Qrels, RunScores, format_value, natural_key, prime_of

Lists = Mapping[str, Mapping[str, float]]  # a de-duplicated run: topic -> item -> score (prime.answer_lists)


class Row(NamedTuple):
    """One value: a run's measure on a topic, or (topic None) its mean."""

    run: str
    topic: str | None
    measure: str
    value: float

    def line(self, label: str | None = None) -> str:
        """`evaluate`'s line (docs/evaluation.md): run, the label of its qrels when there are several (editions),
        measure, topic ("all" for a mean) and trec_eval's four decimals."""
        labelled = "" if label is None else f"{label}\t"
        return f"{self.run}\t{labelled}{self.measure}\t{MEAN if self.topic is None else self.topic}\t" \
               f"{format_value(self.value)}\n"


@dataclass
class Scores:
    """Every run's rows, run after run: its topics' rows (topics in natural order, each topic's measures in the
    order of `measures`), then its means (in that order). `topics` are the qrels' topics in natural order, what the
    analyses pair runs over."""

    rows: list[Row]
    measures: list[str]
    topics: list[str]
    all_topics: bool
    relevance_level: int

    @property
    def runs(self) -> list[RunScores]:
        return runs_of(self.rows)


def rows_of(runs: Iterable[RunScores], measures: Sequence[str] | None = None) -> Iterator[Row]:
    """The rows of runs' scores, per run its topics' rows then its means, what `Scores.rows` holds: the `measures`
    a run has, in that order, or (None) every one of its values in its own order."""
    for scores in runs:
        for topic, values in scores.per_topic.items():
            yield from (Row(scores.name, topic, measure, values[measure])
                        for measure in (values if measures is None else measures) if measure in values)
        yield from (Row(scores.name, None, measure, scores.means[measure])
                    for measure in (scores.means if measures is None else measures) if measure in scores.means)


def row_lines(rows: Iterable[Row], *, per_topic: bool = False, label: str | None = None) -> Iterator[str]:
    """`evaluate`'s lines of rows (docs/evaluation.md), in their order: the topics' rows only with `per_topic` (before
    each run's means, as `Scores.rows` holds them), the qrels' `label` after the run when there are several
    (editions)."""
    return (row.line(label) for row in rows if per_topic or row.topic is None)


def runs_of(rows: Iterable[Row]) -> list[RunScores]:
    """The runs' scores of their rows (`rows_of` backwards), in the rows' order. A run's topic count is that of its
    first measure's mean: the topics with a value of it (the prime means': those with a judged item retrieved, or
    every qrels topic; AR's for Task 3 runs)."""
    runs: dict[str, RunScores] = {}
    for row in rows:
        scores = runs.get(row.run)
        if scores is None:
            scores = runs[row.run] = RunScores(name=row.run, per_topic={}, means={}, topics=0)
        if row.topic is None:
            scores.means[row.measure] = row.value
        else:
            scores.per_topic.setdefault(row.topic, {})[row.measure] = row.value
    for scores in runs.values():
        first = next(iter(scores.means), None)
        scores.topics = sum(1 for values in scores.per_topic.values() if first in values)
    return list(runs.values())


def score_runs(runs: Iterable[tuple[str, Lists]], qrels: Qrels, *, extra: Sequence[Named] = (),
               first_result: bool = False, relevance_level: int = RELEVANCE_LEVEL, all_topics: bool = False
               ) -> Scores:
    """Each (name, lists) of `runs` scored against `qrels`, one run at a time as they come (a run's lists can be
    freed once it is scored): `prime_of` its lists, then the Evaluator's measures, `extra` (ir_measures names,
    parsed) on the lists themselves and, with `first_result`, AR and P@1 of each topic's first item. The Evaluator
    is made once, for every run. Means over the topics with a judged item retrieved, or with `all_topics` over every
    qrels topic (trec_eval -c)."""
    evaluator = Evaluator(qrels, relevance_level=relevance_level, first_result=first_result,
                          extra=MeasureEvaluator(qrels, extra) if extra else None)
    measures = evaluator.measures
    rows: list[Row] = []
    for name, lists in runs:
        scores = evaluator.scores(name, prime_of(lists, qrels, first=first_result), all_topics=all_topics,
                                  lists=lists)
        rows.extend(rows_of([scores], measures))
    return Scores(rows=rows, measures=measures, topics=sorted(qrels, key=natural_key), all_topics=all_topics,
                  relevance_level=relevance_level)

"""ARQMath's "prime" evaluation: each run filtered to the judged items the way the official ARQMath-2/3 scripts
filter it, then trec_eval's measures as pytrec_eval computes them. Pure Python over plain data: no Django.

The official pipeline (ARQMath `arqmath_to_prim_task1.py`, `de_duplicate_2021.py`, then `trec_eval`) writes a
"prime" run file and calls `trec_eval -m ndcg`, `trec_eval -l2 -m map` and `trec_eval -l2 -m P`; this module does
the same filtering in memory and hands the prime runs to pytrec_eval (trec_eval's own code) with the same settings.
"""
from __future__ import annotations

import heapq
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby, islice
from operator import ge
from typing import Protocol

from ir.grades import RELEVANCE_LEVEL, is_relevant

Qrels = Mapping[str, Mapping[str, int]]  # topic -> item id -> grade
PrimeRun = dict[str, dict[str, float]]  # topic -> judged item id -> score

# Output names (docs/evaluation.md) and the trec_eval measure behind each: nDCG' uses every grade as gain (no -l), MAP'
# and P'@10 count the grades from the relevance level up as relevant (-l2 at ARQMath's level).
NDCG, MAP, P10, UNJUDGED = "ndcg_prime", "map_prime", "p10_prime", "unjudged_10"
MEASURES = (NDCG, MAP, P10)
REPORTED = (*MEASURES, UNJUDGED)  # what the command, the API and the pages report, in this order
TREC_NAMES = {NDCG: "ndcg", MAP: "map", P10: "P_10"}
# ARQMath-3's measures of one answer per topic (Task 3; Task 1 runs on their first result): AR, the average grade, and
# P@1, the share of topics where it is relevant (at the relevance level). ir/task3_measures.py computes them for Task 3
# runs.
AR, P1 = "ar", "p1"
FIRST_RESULT = (AR, P1)
TOP = 10  # the depth of the unjudged fraction
MEAN = "all"  # the topic name of a mean in the output


@dataclass
class Prime:
    """One run after the prime filter: its judged items per topic, and per topic the unjudged fraction of its
    top 10 (in trec_eval's order, before unjudged items are dropped)."""

    run: PrimeRun = field(default_factory=dict)
    unjudged: dict[str, float] = field(default_factory=dict)
    # Task 1: per topic with qrels, the run's first result (trec_eval's order, as for the unjudged fraction), judged or
    # not, for AR and P@1. None for formula runs.
    first: dict[str, str] | None = None


@dataclass
class RunScores:
    """A run's measures: per topic, and the means (`means[measure]`)."""

    name: str
    per_topic: dict[str, dict[str, float]]  # topic -> measure -> value
    means: dict[str, float]
    topics: int  # how many topics the means are over


def natural_key(text: str) -> tuple:
    """Orders ids as people read them: A.2 before A.10, post 9 before post 10."""
    # ASCII digits: int() refuses some of what str.isdigit() takes ("²").
    return tuple((0, int(part), part) if part.isascii() and part.isdigit() else (1, 0, part)
                 for part in re.split(r"([0-9]+)", text) if part)


def trec_order(pair: tuple[str, float]) -> tuple[float, str]:
    """The sort key of an (item, score) pair for trec_eval's order, which is this key descending: the highest score
    first, a tie to the greater id (as strings)."""
    return pair[1], pair[0]


def top_items(items: Mapping[str, float]) -> list[tuple[float, str]]:
    """The first 10 (score, item) pairs in trec_eval's order: pairs compared as tuples, descending, are that order,
    and need no Python key function (this runs on every row of every run)."""
    scores = list(items.values())
    if len(scores) > TOP and all(map(ge, scores, islice(scores, 1, None))):
        # Scores already descending (most runs): the first 10 are among the first rows, with any that tie the 10th.
        end = TOP
        while end < len(scores) and scores[end] == scores[TOP - 1]:
            end += 1
        return heapq.nlargest(TOP, zip(scores[:end], islice(items.keys(), end), strict=True))
    return heapq.nlargest(TOP, zip(scores, items.keys(), strict=True))


def first_result_scores(first: Mapping[str, str], qrels: Qrels, *, all_topics: bool = False,
                        relevance_level: int = RELEVANCE_LEVEL) -> dict[str, dict[str, float]]:
    """AR and P@1 per topic, in natural order: the grade of the run's answer (its first result for Task 1), 0 when it
    is not judged (SF and DK, which evaluation reads as unjudged or, for Task 3, as 0); P@1 counts the grades from
    `relevance_level` up as relevant. Over the qrels topics the run answered, as the organizers' scripts average;
    `all_topics`: over every qrels topic, one not answered 0."""
    topics = qrels if all_topics else [topic for topic in first if topic in qrels]
    per_topic: dict[str, dict[str, float]] = {}
    for topic in sorted(topics, key=natural_key):
        grade = qrels[topic].get(first[topic], 0) if topic in first else 0
        per_topic[topic] = {AR: float(grade), P1: 1.0 if is_relevant(grade, relevance_level) else 0.0}
    return per_topic


def mean_of(per_topic: Mapping[str, Mapping[str, float]], measures: Iterable[str]) -> dict[str, float]:
    """Each measure's mean over the topics given (NaN over none)."""
    return {measure: _mean([row[measure] for row in per_topic.values()]) for measure in measures}


def unjudged_share(top: list[tuple[float, str]], judged: Mapping[str, int]) -> float:
    """The unjudged fraction of a topic's first 10 (`top_items`)."""
    return sum(1 for _score, item in top if item not in judged) / len(top)


def answer_lists(rows: Iterable[tuple[str, str, float]], qrels: Qrels) -> PrimeRun:
    """Task 1. `rows` are (topic, post id, score) in file order: the run as trec_eval takes it, topic -> post ->
    score, the first occurrence of a (topic, post) kept and topics without qrels dropped (unjudged posts kept)."""
    columns = tuple(zip(*rows, strict=True))
    return answer_block_lists([columns] if columns else [], qrels)  # type: ignore[list-item]


def answer_block_lists(blocks: Iterable[tuple[Sequence[str], Sequence[str], Sequence[float]]], qrels: Qrels
                       ) -> PrimeRun:
    """`answer_lists` of rows that come in blocks of columns (topic ids, post ids, scores), in file order: a stretch
    of one topic whose posts are all new to it is taken whole."""
    lists: PrimeRun = {}
    for topic_ids, item_ids, scores in blocks:
        at = 0
        for topic, stretch in groupby(topic_ids):
            end = at + len(list(stretch))
            if topic in qrels:
                items = lists.get(topic)
                new = dict(zip(item_ids[at:end], scores[at:end], strict=True))
                if items is None and len(new) == end - at:
                    lists[topic] = new
                elif items is not None and len(new) == end - at and items.keys().isdisjoint(new):
                    items.update(new)
                else:  # a post seen before: its first score stands
                    items = lists.setdefault(topic, {})
                    for item, score in zip(item_ids[at:end], scores[at:end], strict=True):
                        if item not in items:
                            items[item] = score
            at = end
    return lists


def prime_answers(rows: Iterable[tuple[str, str, float]], qrels: Qrels) -> Prime:
    """Task 1: `answer_lists`, then every post not judged for its topic dropped (each topic's first result kept
    aside, for AR and P@1)."""
    return prime_of(answer_lists(rows, qrels), qrels, first=True)


def formula_lists(rows: Iterable[tuple[str, str | None, float]], qrels: Qrels) -> PrimeRun:
    """Task 2. `rows` are (topic, visual id of the formula instance, score) in file order; an instance without a
    visual id (not in the formula index) is passed over, as the official script does. Each topic's instances are
    sorted by score, descending and stable in file order; the first instance of each visual id is kept with its
    score; topics without qrels are dropped (unjudged visual ids kept)."""
    per_topic: dict[str, list[tuple[str, float]]] = {}
    for topic, visual_id, score in rows:
        if visual_id is None or topic not in qrels:
            continue
        per_topic.setdefault(topic, []).append((visual_id, score))
    lists: PrimeRun = {}
    for topic, instances in per_topic.items():
        instances.sort(key=lambda pair: pair[1], reverse=True)  # Python's sort is stable, reversed too
        items = lists[topic] = {}
        for visual_id, score in instances:
            if visual_id not in items:
                items[visual_id] = score
    return lists


def prime_formulas(rows: Iterable[tuple[str, str | None, float]], qrels: Qrels) -> Prime:
    """Task 2: `formula_lists`, then, as for Task 1, the visual ids not judged for the topic dropped."""
    return prime_of(formula_lists(rows, qrels), qrels)


def prime_of(lists: Mapping[str, Mapping[str, float]], qrels: Qrels, *, first: bool = False) -> Prime:
    """Each topic's Unjudged@10 (and with `first`, its first item) taken from its items, then the items its qrels do
    not judge dropped."""
    prime = Prime(first={} if first else None)
    for topic, items in lists.items():
        judged = qrels[topic]
        if not items:
            continue
        top = top_items(items)
        prime.unjudged[topic] = unjudged_share(top, judged)
        if prime.first is not None:
            prime.first[topic] = top[0][1]
        kept = {item: items[item] for item in judged.keys() & items.keys()}  # the judged ones, fewer than the items
        if kept:
            prime.run[topic] = kept
    return prime


class ExtraMeasures(Protocol):
    """Measures computed beside the prime ones on the de-duplicated run (ir.measures.MeasureEvaluator)."""

    names: list[str]

    def per_topic(self, lists: Mapping[str, Mapping[str, float]], *, topics: Iterable[str] = ()
                  ) -> dict[str, dict[str, float]]: ...

    def mean(self, name: str, values: Sequence[float]) -> float: ...


class Evaluator:
    """pytrec_eval's evaluators for one qrels, made once and reused for every run (parsing the qrels is their
    fixed cost). `relevance_level` binarises MAP', P'@10 and P@1 (2: ARQMath's H+M; 1 for TREC's binary qrels);
    `first_result` adds AR and P@1 of an answer run's first result; `extra` computes more measures on each run's
    `lists`."""

    def __init__(self, qrels: Qrels, *, relevance_level: int = RELEVANCE_LEVEL, first_result: bool = False,
                 extra: ExtraMeasures | None = None) -> None:
        self.qrels = {topic: dict(items) for topic, items in qrels.items()}
        self.relevance_level = relevance_level
        self.first_result = first_result
        self.extra = extra
        import pytrec_eval  # only when something is evaluated: commands and pages start without it
        # One evaluator for the three: trec_eval's ndcg takes every grade as gain whatever the relevance level (as
        # ir_measures relies on too), so one pass over each run computes them all.
        self._evaluator = pytrec_eval.RelevanceEvaluator(self.qrels, set(TREC_NAMES.values()),
                                                         relevance_level=relevance_level)

    @property
    def measures(self) -> list[str]:
        """What `scores` reports, in order: the prime measures, Unjudged@10, AR and P@1 (asked for, of answer runs),
        then the extra ones."""
        return [*REPORTED, *(FIRST_RESULT if self.first_result else ()), *(self.extra.names if self.extra else ())]

    def scores(self, name: str, prime: Prime, *, all_topics: bool = False,
               lists: Mapping[str, Mapping[str, float]] | None = None) -> RunScores:
        """The prime measures of one run, and the extra ones of its `lists` (the de-duplicated run the prime one
        was filtered from). The prime means are over the topics with at least one judged retrieved item (trec_eval's
        default on a prime run), the extra ones over the topics the run retrieved (trec_eval's default); with
        `all_topics`, both over every qrels topic, a topic the run has nothing for counting 0 (trec_eval -c, the
        ARQMath-1 convention)."""
        run = prime.run
        values: dict[str, dict[str, float]] = {}
        if run:
            values.update(self._evaluator.evaluate(run))
        counted = self.qrels if all_topics else run
        rows: dict[str, dict[str, float]] = {}
        for topic in counted:
            measured = values.get(topic, {})  # a topic with nothing judged retrieved scores 0 (trec_eval -c)
            rows[topic] = {measure: measured.get(trec_name, 0.0) for measure, trec_name in TREC_NAMES.items()}
        means = mean_of(rows, MEASURES)
        # Over every topic the run retrieved that has qrels, judged items or not.
        means[UNJUDGED] = _mean(list(prime.unjudged.values()))
        # Unjudged@10 of every topic the run retrieved, the topics its mean is over: also those with nothing judged
        # retrieved, which have no prime value unless every qrels topic counts.
        for topic, share in prime.unjudged.items():
            rows.setdefault(topic, {})[UNJUDGED] = share
        if self.first_result and prime.first is not None:  # over the topics it answered (all: every qrels topic)
            firsts = first_result_scores(prime.first, self.qrels, all_topics=all_topics,
                                         relevance_level=self.relevance_level)
            for topic, row in firsts.items():
                rows.setdefault(topic, {}).update(row)
            means.update(mean_of(firsts, FIRST_RESULT))
        if self.extra is not None and self.extra.names:
            topics = list(self.qrels) if all_topics else [topic for topic, items in (lists or {}).items() if items]
            extra = self.extra.per_topic(lists or {}, topics=topics)
            for measure in self.extra.names:
                column = [extra.get(topic, {}).get(measure, 0.0) for topic in topics]
                for topic, value in zip(topics, column, strict=True):
                    rows.setdefault(topic, {})[measure] = value
                means[measure] = self.extra.mean(measure, column)
        per_topic = {topic: rows[topic] for topic in sorted(rows, key=natural_key)}
        return RunScores(name=name, per_topic=per_topic, means=means, topics=len(counted))


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def finite(value: float) -> float | None:
    """A mean over no topic (NaN) as None, as JSON and the pages take it; any other value as it is."""
    return None if math.isnan(value) else value


def format_value(value: float | None) -> str:
    """trec_eval's four decimals; "n/a" for a mean over no topic (NaN, or None once made JSON-safe)."""
    return "n/a" if value is None or math.isnan(value) else f"{value:.4f}"


def score_lines(runs: Iterable[RunScores], *, per_topic: bool = False, measures: Sequence[str] = REPORTED
                ) -> Iterator[str]:
    """The `evaluate` output (docs/evaluation.md): run<TAB>measure<TAB>topic<TAB>value, the per-topic rows (on request)
    before each run's means, whose topic is "all"; the measures a run has of those asked for, in their order."""
    for scores in runs:
        if per_topic:
            for topic, values in scores.per_topic.items():
                for measure in measures:
                    if measure in values:
                        yield f"{scores.name}\t{measure}\t{topic}\t{format_value(values[measure])}\n"
        for measure in measures:
            if measure in scores.means:
                yield f"{scores.name}\t{measure}\t{MEAN}\t{format_value(scores.means[measure])}\n"

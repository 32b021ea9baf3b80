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

import pytrec_eval

Qrels = Mapping[str, Mapping[str, int]]  # topic -> item id -> grade
PrimeRun = dict[str, dict[str, float]]  # topic -> judged item id -> score

# Output names (SPEC 9) and the trec_eval measure behind each: nDCG' uses every grade as gain (no -l), MAP' and
# P'@10 count grade >= 2 as relevant (-l2).
NDCG, MAP, P10, UNJUDGED = "ndcg_prime", "map_prime", "p10_prime", "unjudged_10"
MEASURES = (NDCG, MAP, P10)
REPORTED = (*MEASURES, UNJUDGED)  # what the command, the API and the pages report, in this order
TREC_NAMES = {NDCG: "ndcg", MAP: "map", P10: "P_10"}
RELEVANCE_LEVEL = 2
# ARQMath-3's measures of one answer per topic (Task 3; Task 1 runs on their first result): AR, the average grade, and
# P@1, the share of topics where it is relevant (grade >= 2). evaluation/answers.py computes them for Task 3 runs.
AR, P1 = "ar", "p1"
FIRST_RESULT = (AR, P1)
TOP = 10  # the depth of the unjudged fraction
MEAN = "all"  # the topic name of a mean in the output (SPEC 9)


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


def first_item(items: Mapping[str, float]) -> str:
    """The first item in trec_eval's order: the highest score, a tie to the greater id (as strings)."""
    return max(items.items(), key=lambda pair: (pair[1], pair[0]))[0]


def first_result_scores(first: Mapping[str, str], qrels: Qrels, *, all_topics: bool = False
                        ) -> dict[str, dict[str, float]]:
    """AR and P@1 per topic, in natural order: the grade of the run's answer (its first result for Task 1), 0 when it
    is not judged (SF and DK, which evaluation reads as unjudged or, for Task 3, as 0). Over the qrels topics the
    run answered, as the organizers' scripts average; `all_topics`: over every qrels topic, one not answered 0."""
    topics = qrels if all_topics else [topic for topic in first if topic in qrels]
    per_topic: dict[str, dict[str, float]] = {}
    for topic in sorted(topics, key=natural_key):
        grade = qrels[topic].get(first[topic], 0) if topic in first else 0
        per_topic[topic] = {AR: float(grade), P1: 1.0 if grade >= RELEVANCE_LEVEL else 0.0}
    return per_topic


def mean_of(per_topic: Mapping[str, Mapping[str, float]], measures: Iterable[str]) -> dict[str, float]:
    """Each measure's mean over the topics given (NaN over none)."""
    return {measure: _mean([row[measure] for row in per_topic.values()]) for measure in measures}


def top_unjudged(items: Mapping[str, float], judged: Mapping[str, int]) -> float:
    """The unjudged fraction of the first 10 items in trec_eval's order (score descending, then id descending)."""
    top = heapq.nlargest(TOP, items.items(), key=lambda pair: (pair[1], pair[0]))
    return sum(1 for item, _score in top if item not in judged) / len(top)


def prime_answers(rows: Iterable[tuple[str, str, float]], qrels: Qrels) -> Prime:
    """Task 1. `rows` are (topic, post id, score) in file order: the first occurrence of a (topic, post) is kept,
    topics without qrels are dropped, and then every post not judged for its topic."""
    lists: dict[str, dict[str, float]] = {}
    for topic, item, score in rows:
        items = lists.get(topic)
        if items is None:
            if topic not in qrels:
                continue
            items = lists[topic] = {}
        if item not in items:
            items[item] = score
    return _drop_unjudged(lists, qrels, first=True)


def prime_formulas(rows: Iterable[tuple[str, str | None, float]], qrels: Qrels) -> Prime:
    """Task 2. `rows` are (topic, visual id of the formula instance, score) in file order; an instance without a
    visual id (not in the formula index) is passed over, as the official script does. Each topic's instances are
    sorted by score, descending and stable in file order; the first instance of each visual id is kept with its
    score; then, as for Task 1, topics without qrels and visual ids not judged for the topic are dropped."""
    per_topic: dict[str, list[tuple[str, float]]] = {}
    for topic, visual_id, score in rows:
        if visual_id is None or topic not in qrels:
            continue
        per_topic.setdefault(topic, []).append((visual_id, score))
    lists: dict[str, dict[str, float]] = {}
    for topic, instances in per_topic.items():
        instances.sort(key=lambda pair: pair[1], reverse=True)  # Python's sort is stable, reversed too
        items = lists[topic] = {}
        for visual_id, score in instances:
            if visual_id not in items:
                items[visual_id] = score
    return _drop_unjudged(lists, qrels)


def _drop_unjudged(lists: dict[str, dict[str, float]], qrels: Qrels, *, first: bool = False) -> Prime:
    """Each topic's Unjudged@10 (and with `first`, its first item) taken from its items, then the items its qrels do
    not judge dropped."""
    prime = Prime(first={} if first else None)
    for topic, items in lists.items():
        judged = qrels[topic]
        if not items:
            continue
        prime.unjudged[topic] = top_unjudged(items, judged)
        if prime.first is not None:
            prime.first[topic] = first_item(items)
        kept = {item: score for item, score in items.items() if item in judged}
        if kept:
            prime.run[topic] = kept
    return prime


class Evaluator:
    """pytrec_eval's evaluators for one qrels, made once and reused for every run (parsing the qrels is their
    fixed cost)."""

    def __init__(self, qrels: Qrels) -> None:
        self.qrels = {topic: dict(items) for topic, items in qrels.items()}
        self._ndcg = pytrec_eval.RelevanceEvaluator(self.qrels, {TREC_NAMES[NDCG]})
        self._binary = pytrec_eval.RelevanceEvaluator(self.qrels, {TREC_NAMES[MAP], TREC_NAMES[P10]},
                                                      relevance_level=RELEVANCE_LEVEL)

    def scores(self, name: str, prime: Prime, *, all_topics: bool = False) -> RunScores:
        """The prime measures of one run. The means are over the topics with at least one judged retrieved item
        (trec_eval's default on a prime run); `all_topics` averages over every qrels topic, a topic the run has
        nothing judged for counting 0 (trec_eval -c, the ARQMath-1 convention)."""
        run = prime.run
        values: dict[str, dict[str, float]] = {topic: {} for topic in run}
        if run:
            for evaluator in (self._ndcg, self._binary):
                for topic, measured in evaluator.evaluate(run).items():
                    values[topic].update(measured)
        counted = sorted(self.qrels if all_topics else run, key=natural_key)
        per_topic: dict[str, dict[str, float]] = {}
        for topic in counted:
            measured = values.get(topic, {})  # a topic with nothing judged retrieved scores 0 (trec_eval -c)
            row = {measure: measured.get(trec_name, 0.0) for measure, trec_name in TREC_NAMES.items()}
            if topic in prime.unjudged:  # not for a topic the run did not retrieve at all
                row[UNJUDGED] = prime.unjudged[topic]
            per_topic[topic] = row
        means = mean_of(per_topic, MEASURES)
        # Over every topic the run retrieved that has qrels, judged items or not.
        means[UNJUDGED] = _mean(list(prime.unjudged.values()))
        if prime.first is not None:  # answers: AR and P@1 of the first result, over the topics it answered
            firsts = first_result_scores(prime.first, self.qrels, all_topics=all_topics)
            for topic, row in per_topic.items():
                row.update(firsts.get(topic, {}))
            means.update(mean_of(firsts, FIRST_RESULT))
        return RunScores(name=name, per_topic=per_topic, means=means, topics=len(counted))


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def format_value(value: float | None) -> str:
    """trec_eval's four decimals; "n/a" for a mean over no topic (NaN, or None once made JSON-safe)."""
    return "n/a" if value is None or math.isnan(value) else f"{value:.4f}"


def score_lines(runs: Iterable[RunScores], *, per_topic: bool = False, measures: Sequence[str] = REPORTED
                ) -> Iterator[str]:
    """The `evaluate` output (SPEC 9): run<TAB>measure<TAB>topic<TAB>value, the per-topic rows (on request) before
    each run's means, whose topic is "all"; the measures a run has of those asked for, in their order."""
    for scores in runs:
        if per_topic:
            for topic, values in scores.per_topic.items():
                for measure in measures:
                    if measure in values:
                        yield f"{scores.name}\t{measure}\t{topic}\t{format_value(values[measure])}\n"
        for measure in measures:
            if measure in scores.means:
                yield f"{scores.name}\t{measure}\t{MEAN}\t{format_value(scores.means[measure])}\n"

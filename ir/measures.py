"""Measures by their ir_measures names (`nDCG@10`, `AP(rel=1)`, `P@10`, `Bpref`, `Judged@10`, `RR`, ...) beside the
prime measures, computed by ir_measures through pytrec_eval (trec_eval's own code), and Judged@k by ir_measures' own
provider. Pure Python: no Django.

MAP and MRR (the names the ARQMath papers report) are ir_measures' AP and RR: `MAP`, `map`, `MRR`, `mrr`, with a
cutoff or parameters as AP and RR take them (`MAP@100`, `MRR(rel=1)`).

A binary measure named without a relevance level (`P@10`, `AP`, `RR`, `Bpref`) counts the grades from the evaluation's
relevance level up as relevant (2 by default: ARQMath's H+M); `AP(rel=1)` keeps its own. The measures see the run as
trec_eval would: de-duplicated (the first occurrence of a post; a formula run's visual ids, the first instance of
each), topics without qrels dropped, unjudged items kept (only the prime measures drop them).

`ar` and `p1` (AR and P@1 of an answer run's first result, ARQMath-3) are asked for the same way but computed with the
prime measures (`prime.Evaluator`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ir.prime import FIRST_RESULT, REPORTED
from ir.problems import InputError, Problem

if TYPE_CHECKING:  # ir_measures (and pytrec_eval under it) only when a measure is parsed: commands start without it
    from ir_measures.measures.base import Measure as IrMeasure
    from ir_measures.providers.base import Evaluator, Provider

EXAMPLES = "nDCG@10, AP(rel=1), P@10, Bpref, Judged@10, RR, MAP, MRR; or trec_eval's names: ndcg_cut_10, map, bpref"
# The papers' names for ir_measures' AP and RR, before a cutoff or parameters (`MAP@100`, `MRR(rel=1)`).
ALIASES = {"map": "AP", "mrr": "RR"}
_ALIAS = re.compile(r"^(map|mrr)(?=$|[@(])", re.IGNORECASE)
# The values trec_eval takes without failing (a cutoff of 0 aborts pytrec_eval's process; a level of 0 raises).
LIMITS = {"cutoff": (1, 1_000_000), "rel": (1, 1_000_000)}


def _providers() -> tuple[Provider, ...]:
    """The providers that compute the measures, the first that supports a measure computing it."""
    import ir_measures
    return (ir_measures.pytrec_eval, ir_measures.judged)


@dataclass(frozen=True)
class Named:
    """A measure as it was asked for (its name in the output) and the ir_measures measure computed for it."""

    name: str
    measure: IrMeasure


def parse_measure(name: str, *, relevance_level: int) -> IrMeasure:
    """The ir_measures measure for a name (ir_measures' syntax, or a trec_eval name such as `ndcg_cut_10`), with
    the relevance level where the measure is binary and the name gives none; InputError if it is not a measure
    this product computes."""
    import ir_measures
    text = name.strip()
    try:
        measure = ir_measures.parse_measure(_ALIAS.sub(lambda found: ALIASES[found[1].lower()], text))
    except (NameError, ValueError, SyntaxError, TypeError):
        try:
            found = ir_measures.parse_trec_measure(text)
        except (ValueError, KeyError, IndexError, TypeError):
            found = []
        if len(found) != 1:
            raise InputError(f"'{text}' is not a measure ir_measures knows (for example {EXAMPLES})") from None
        measure = found[0]
    if "rel" in measure.SUPPORTED_PARAMS and "rel" not in measure.params:
        measure = measure(rel=relevance_level)
    try:
        measure.validate_params()
    except (AssertionError, ValueError, TypeError) as error:
        raise InputError(f"'{text}': {error}") from None
    for param, (low, high) in LIMITS.items():
        value = measure.params.get(param)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
            raise InputError(f"'{text}': {param} must be a whole number from {low} to {high:,}, not {value!r}")
    gains = measure.params.get("gains")
    if gains is not None and not all(isinstance(v, int) and not isinstance(v, bool) for v in gains.values()):
        raise InputError(f"'{text}': gains must map grades to whole numbers")
    if not any(provider.supports(measure) for provider in _providers()):
        raise InputError(f"'{text}' is not computed here: only pytrec_eval's measures and Judged@k are "
                         f"(for example {EXAMPLES})")
    return measure


def parse_measures(names: Iterable[str], *, relevance_level: int) -> list[Named]:
    """The ir_measures measures asked for, in the order given: the prime names (always reported) and `ar` and `p1`
    (`first_result_asked`) are the Evaluator's own, and a repeated name is taken once; every unknown name is
    reported."""
    problems: list[Problem] = []
    found: list[Named] = []
    seen: set[str] = {*REPORTED, *FIRST_RESULT}
    for name in names:
        text = name.strip()
        if not text or text in seen:
            continue
        seen.add(text)
        try:
            found.append(Named(text, parse_measure(text, relevance_level=relevance_level)))
        except InputError as error:
            problems.extend(Problem(None, message) for message in error.messages())
    if problems:
        raise InputError(problems)
    return found


def first_result_asked(names: Iterable[str]) -> bool:
    """Whether `ar` or `p1` is among the names: AR and P@1 of an answer run's first result (ARQMath-3), computed
    beside the prime measures (`prime.Evaluator`), both together."""
    return any(name.strip() in FIRST_RESULT for name in names)


class MeasureEvaluator:
    """ir_measures' evaluators for one qrels and the asked measures, made once and reused for every run."""

    def __init__(self, qrels: Mapping[str, Mapping[str, int]], measures: Sequence[Named]) -> None:
        self.measures = list(measures)
        self.names = [named.name for named in self.measures]
        self._names: dict[IrMeasure, list[str]] = {}
        for named in self.measures:
            self._names.setdefault(named.measure, []).append(named.name)
        qrels_dict = {topic: dict(items) for topic, items in qrels.items()}
        self._evaluators: list[Evaluator] = []
        left = list(self._names)
        for provider in _providers():  # each measure by the first provider that computes it
            chosen = [m for m in left if provider.supports(m)]
            left = [m for m in left if m not in chosen]
            if chosen:
                # Those with a relevance level first: pytrec_eval's provider puts an nDCG (which has none) into the
                # first evaluator it makes, so `nDCG@10 P@10 AP` is one pass over each run rather than two.
                chosen.sort(key=lambda measure: "rel" not in measure.params)
                self._evaluators.append(provider.evaluator(chosen, qrels_dict))

    def per_topic(self, lists: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """topic -> measure name -> value, for the topics of the run (de-duplicated, topics with qrels only)."""
        values: dict[str, dict[str, float]] = {}
        if not lists or not self._names:
            return values
        # pytrec_eval takes dicts: the de-duplicated lists are, and are not copied.
        run = {topic: items if isinstance(items, dict) else dict(items) for topic, items in lists.items() if items}
        for evaluator in self._evaluators:
            for metric in evaluator.iter_calc(run):
                for name in self._names[metric.measure]:
                    values.setdefault(metric.query_id, {})[name] = float(metric.value)
        return values

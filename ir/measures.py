"""Measures by their ir_measures names (`nDCG@10`, `AP(rel=1)`, `P@10`, `Bpref`, `Judged@10`, `RR`, ...) beside the
prime measures, computed by ir_measures through pytrec_eval (trec_eval's own code), and Judged@k by ir_measures' own
provider. Pure Python: no Django.

MAP and MRR (the names the ARQMath papers report) are ir_measures' AP and RR: `MAP`, `map`, `MRR`, `mrr`, with a
cutoff or parameters as AP and RR take them (`MAP@100`, `MRR(rel=1)`).

A binary measure named by ir_measures without a relevance level (`P@10`, `AP`, `RR`, `Bpref`) counts the grades
from the evaluation's relevance level up as relevant (2 by default: ARQMath's H+M); `AP(rel=1)` keeps its own.
The measures see the run as trec_eval would: de-duplicated (the first occurrence of a post; a formula run's visual
ids, the first instance of each), topics without qrels dropped, unjudged items kept (only the prime measures drop them).

A measure named by its trec_eval name (`num_ret`, `map`, `P_10`, `iprec_at_recall_0.10`, `gm_map`; the names
pytrec_eval gives its values) is pytrec_eval's own at the relevance level, as `trec_eval -l L -m NAME` computes it
(`TrecMeasure`): per topic and in `all`, where counts (`num_*`) are sums and `gm_*` geometric means, as trec_eval
prints them.

`ar` and `p1` (AR and P@1 of an answer run's first result, ARQMath-3) are asked for the same way but computed with the
prime measures (`prime.Evaluator`).
"""
from __future__ import annotations

import math
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


# trec_eval's measures that pytrec_eval computes, by their cutoff's kind; every other one is taken without a
# parameter. `runid` and `relstring` are strings, not values.
_TREC_CUTOFFS = frozenset({"P", "recall", "ndcg_cut", "map_cut", "relative_P", "success"})
_TREC_FRACTIONS = frozenset({"iprec_at_recall", "Rprec_mult"})
_TREC_TEXT = frozenset({"runid", "relstring"})


@dataclass(frozen=True)
class TrecMeasure:
    """A measure named by trec_eval's name (`num_ret`, `P_10`): pytrec_eval's value of that name at the relevance
    level, as `trec_eval -l L -m NAME` computes it."""

    name: str
    relevance_level: int

    def __str__(self) -> str:
        return f"{self.name} (trec_eval -l{self.relevance_level})"


def trec_measure(name: str, *, relevance_level: int) -> TrecMeasure | None:
    """The trec_eval measure of a name pytrec_eval gives one value under (`P_10`, `num_rel`, `ndcg`), or None when
    the name is not a trec_eval name; InputError for a trec_eval name that gives no single value here."""
    import pytrec_eval
    known = set(pytrec_eval.supported_measures) - _TREC_TEXT
    base = name if name in known else max((b for b in known if name.startswith(b + "_")), key=len, default=None)
    if base is None:
        if name in _TREC_TEXT:
            raise InputError(f"'{name}' is trec_eval's text, not a value")
        return None
    parameter = name[len(base) + 1:]
    if parameter:
        low, high = LIMITS["cutoff"]
        if base in _TREC_CUTOFFS and not (re.fullmatch(r"[0-9]{1,7}", parameter) and low <= int(parameter) <= high):
            # A cutoff of 0 aborts pytrec_eval's process: checked before it sees one.
            raise InputError(f"'{name}': {base}'s cutoff must be a whole number from {low} to {high:,}")
        if base in _TREC_FRACTIONS and not re.fullmatch(r"[0-9]{1,7}\.[0-9]{2}", parameter):
            raise InputError(f"'{name}': {base} takes a number with two decimals ({base}_0.10)")
        if base not in _TREC_CUTOFFS | _TREC_FRACTIONS:
            raise InputError(f"'{name}': {base} is taken here without parameters")
    keys = _trec_keys(name)
    if keys != [name]:
        raise InputError(f"'{name}' gives {', '.join(keys) or 'no value'} in trec_eval: name one of its values")
    check_level(relevance_level)
    return TrecMeasure(name, relevance_level)


def _trec_keys(name: str) -> list[str]:
    """The names of the values pytrec_eval gives for a measure name (`P` gives P_5 ... P_1000)."""
    import pytrec_eval
    evaluator = pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {name})
    return sorted(evaluator.evaluate({"q": {"d": 1.0}})["q"])


def check_level(relevance_level: int) -> None:
    """The relevance level's range (`LIMITS`)."""
    low, high = LIMITS["rel"]
    if not low <= relevance_level <= high:
        raise InputError(f"the relevance level must be a whole number from {low} to {high:,}, not {relevance_level}")


def trec_mean(name: str, values: Sequence[float]) -> float:
    """A trec_eval measure's `all`: a sum for the counts (`num_ret`, `num_rel`, `num_rel_ret`, `num_q`), a geometric
    mean for `gm_*`, else the mean (pytrec_eval's `compute_aggregated_measure`, trec_eval's own rule); NaN over no
    topic."""
    import pytrec_eval
    return pytrec_eval.compute_aggregated_measure(name, list(values)) if values else math.nan


def _providers() -> tuple[Provider, ...]:
    """The providers that compute the measures, the first that supports a measure computing it."""
    import ir_measures
    return (ir_measures.pytrec_eval, ir_measures.judged)


@dataclass(frozen=True)
class Named:
    """A measure as it was asked for (its name in the output) and the ir_measures measure computed for it."""

    name: str
    measure: IrMeasure | TrecMeasure


def parse_measure(name: str, *, relevance_level: int) -> IrMeasure | TrecMeasure:
    """The measure for a name: trec_eval's own for a trec_eval name (`num_ret`, `ndcg_cut_10`: `TrecMeasure`), else
    ir_measures' (its syntax), with the relevance level where the measure is binary and the name gives none;
    InputError if it is not a measure this product computes."""
    import ir_measures
    text = name.strip()
    trec = trec_measure(text, relevance_level=relevance_level)
    if trec is not None:
        return trec
    try:
        measure = ir_measures.parse_measure(_ALIAS.sub(lambda found: ALIASES[found[1].lower()], text))
    except (NameError, ValueError, SyntaxError, TypeError):
        raise InputError(f"'{text}' is not a measure ir_measures knows (for example {EXAMPLES})") from None
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
    """The evaluators for one qrels and the asked measures, made once and reused for every run: ir_measures' for its
    names, pytrec_eval's at the relevance level for trec_eval's names."""

    def __init__(self, qrels: Mapping[str, Mapping[str, int]], measures: Sequence[Named]) -> None:
        self.measures = list(measures)
        self.names = [named.name for named in self.measures]
        self._names: dict[IrMeasure, list[str]] = {}
        trec: dict[int, set[str]] = {}  # relevance level -> trec_eval names
        for named in self.measures:
            if isinstance(named.measure, TrecMeasure):
                trec.setdefault(named.measure.relevance_level, set()).add(named.name)
            else:
                self._names.setdefault(named.measure, []).append(named.name)
        self._trec = {name for names in trec.values() for name in names}
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
        import pytrec_eval
        self._trec_evaluators = [pytrec_eval.RelevanceEvaluator(qrels_dict, names, relevance_level=level)
                                 for level, names in trec.items()]

    def per_topic(self, lists: Mapping[str, Mapping[str, float]], *, topics: Iterable[str] = ()
                  ) -> dict[str, dict[str, float]]:
        """topic -> measure name -> value, for the topics of the run (de-duplicated, topics with qrels only); the
        trec_eval names also for `topics` the run did not retrieve, as an empty ranking (`trec_eval -c`)."""
        values: dict[str, dict[str, float]] = {}
        if not self.names:
            return values
        # pytrec_eval takes dicts: the de-duplicated lists are, and are not copied.
        run = {topic: items if isinstance(items, dict) else dict(items) for topic, items in lists.items() if items}
        if run:
            for evaluator in self._evaluators:
                for metric in evaluator.iter_calc(run):
                    for name in self._names[metric.measure]:
                        values.setdefault(metric.query_id, {})[name] = float(metric.value)
        complete = {**{topic: {} for topic in topics}, **run}
        for trec_evaluator in self._trec_evaluators:
            for topic, found in (trec_evaluator.evaluate(complete) if complete else {}).items():
                values.setdefault(topic, {}).update(found)
        return values

    def mean(self, name: str, values: Sequence[float]) -> float:
        """A measure's `all` over its topics' values (`measure_mean`)."""
        return measure_mean(next(named for named in self.measures if named.name == name), values)


def measure_mean(named: Named, values: Sequence[float]) -> float:
    """A measure's `all` over its topics' values, in their order: trec_eval's for its names (`trec_mean`, whose
    mean sums in numpy's order), else the mean."""
    if isinstance(named.measure, TrecMeasure):
        return trec_mean(named.name, values)
    return math.fsum(values) / len(values) if values else math.nan

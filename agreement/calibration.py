"""The LLM's grade probabilities calibrated on the official judgments (docs/llm_calibration.md, "In the product"): the
refit a job runs (agreement/tasks.py) and what the agreement page shows of it. The fit reads the official grades
(agreement/official.py) and the model's probabilities (llm/selectors.py), fits in ir/calibration_fit.py and stores the
result through llm/services.py, where the judging order and the hybrid qrels read it."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agreement.llm import official_grades
from agreement.official import official_judgments, official_stamp_columns
from ir.prime import natural_key
from ir.reliability_chart import reliability_diagram
from llm import selectors as llm_selectors
from llm import services as llm_services
from llm.models import Calibration
from pooling.models import Campaign, PoolItem


def calibration_stamp(*, campaign: Campaign, model: str) -> str:
    """The state a calibration is fitted on: the official judgments' stamp (as the scores') and the model's grades'."""
    total, last = official_stamp_columns(campaign=campaign)
    summed, changed = Campaign.objects.filter(pk=campaign.pk).annotate(total=total, last=last).values_list(
        "total", "last").get()
    when = changed.isoformat() if isinstance(changed, datetime) else ""
    return f"{summed}|{when}|{llm_selectors.grades_stamp(campaign=campaign, model=model)}"


def stale_models(*, campaign: Campaign) -> list[str]:
    """The models that graded the campaign whose calibration is missing or fitted on another state."""
    fitted = dict(Calibration.objects.filter(campaign=campaign).values_list("model", "stamp"))
    return [model for model in llm_selectors.llm_models(campaign=campaign)
            if fitted.get(model) != calibration_stamp(campaign=campaign, model=model)]


@dataclass(frozen=True)
class CalibrationInputs:
    """What a model's calibration is fitted on: every pooled item the model graded, in (topic, item) order, its
    probabilities (items x grades), the runs' ranks from the pool's provenance, and the judged items as (row,
    official grade) in the order their official judgments were last changed."""

    keys: list[tuple[str, str]]
    probabilities: Any  # numpy array, items x grades
    context: Any  # ir.hybrid.Context
    judged: list[tuple[int, int]]


def calibration_inputs(*, campaign: Campaign, model: str) -> CalibrationInputs:
    """The data `calibration_refit` fits (a formula: its highest official instance grade), read once: the hybrid
    board's intervals refit on it too (evaluation/hybrid_board.py)."""
    import numpy as np  # late: the pages and commands that load this module need neither numpy nor scipy

    from ir.hybrid import Context

    probabilities = llm_selectors.grade_probabilities(campaign=campaign, model=model)
    provenance = {(topic, item): prov for topic, item, prov in PoolItem.objects.filter(campaign=campaign)
                  .values_list("topic__topic_id", "item_id", "provenance").iterator(chunk_size=5000)}
    keys = sorted(probabilities.keys() & provenance.keys(), key=lambda k: (natural_key(k[0]), natural_key(k[1])))
    index = {key: i for i, key in enumerate(keys)}
    runs = sorted({run for key in keys for run, _rank in provenance[key]})
    column = {run: j for j, run in enumerate(runs)}
    ranks = np.zeros((len(keys), len(runs)), dtype=int)
    for key, i in index.items():
        for run, rank in provenance[key]:
            if not ranks[i, column[run]]:
                ranks[i, column[run]] = int(rank)
    human: dict[tuple[str, str], int] = {}
    for (topic, item, _formula), grade in official_grades(campaign=campaign).items():
        human[topic, item] = max(grade, human.get((topic, item), grade))
    order = list(dict.fromkeys(key for key in official_judgments(campaign=campaign).order_by("updated_at", "pk")
                               .values_list("assignment__topic__topic_id", "item_id") if key in human))
    order += sorted(human.keys() - set(order))
    judged = [(index[key], human[key]) for key in order if key in index]
    matrix = np.array([probabilities[key] for key in keys], dtype=float).reshape(len(keys), -1)
    if not len(keys):
        matrix = np.zeros((0, max(g.value for g in campaign.judging_scheme.grades) + 1))
    return CalibrationInputs(keys, matrix, Context(runs, ranks), judged)


def calibration_resampler(*, campaign: Campaign, model: str, rule: str, items: list[tuple[str, str]],
                          calibrated: Any) -> Callable[[Any], Any] | None:
    """The bias-aware calibration's weights drawn from their posterior, as `ir.hybrid_intervals` draws it in each
    replicate (docs/llm_calibration.md, "Intervals"), in the order of `items` (the hybrid board's,
    evaluation/hybrid_board.py): the bias-aware rule fitted once on the data the calibration job fits
    (`calibration_inputs`); None for LARA's rule (no refit)."""
    import numpy as np

    from ir.calibration_fit import BIAS_AWARE
    from ir.hybrid import calibration_draws

    if rule != BIAS_AWARE:
        return None
    inputs = calibration_inputs(campaign=campaign, model=model)
    row_of = {key: row for row, key in enumerate(inputs.keys)}
    rows = np.array([row_of.get(item, -1) for item in items], dtype=int)
    known = rows >= 0
    fitted = calibration_draws(inputs.probabilities, inputs.context, dict(inputs.judged),
                               relevance_level=campaign.relevance_level)

    def refit(rng: Any) -> Any:
        drawn = np.array(calibrated, dtype=float)
        drawn[known] = fitted(rng)[rows[known]]
        return drawn
    return refit


def calibration_refit(*, campaign: Campaign, model: str) -> Calibration:
    """Fits the model's calibration on the campaign's official grades (`calibration_inputs`) and stores it."""
    from ir.calibration_fit import as_stored, calibration_fit

    stamp = calibration_stamp(campaign=campaign, model=model)  # read first: a change meanwhile leaves it stale
    inputs = calibration_inputs(campaign=campaign, model=model)
    fit = calibration_fit(inputs.probabilities, inputs.context, inputs.judged, relevance_level=campaign.relevance_level)
    stored: dict[str, dict[str, list[float]]] = {}
    for (topic, item), row in zip(inputs.keys, as_stored(fit.calibrated).tolist(), strict=True):
        stored.setdefault(topic, {})[item] = row
    return llm_services.calibration_store(
        campaign=campaign, model=model, stamp=stamp, rule=fit.rule, humans=len(inputs.judged),
        ece_before=fit.ece_before, ece_after=fit.ece_after, bins={"before": fit.bins_before, "after": fit.bins_after},
        probabilities=stored)


@dataclass(frozen=True)
class CalibrationView:
    """What the agreement page shows of a model's calibration: the last one (None: never fitted yet), whether a newer
    one is being fitted, and its reliability diagram."""

    calibration: Calibration | None
    updating: bool
    chart: dict | None


def calibration_views(*, campaign: Campaign, models: list[str], stale: list[str]) -> dict[str, CalibrationView]:
    """model -> what the page shows of it; `stale`: the models being refitted."""
    found = {c.model: c for c in Calibration.objects.filter(campaign=campaign, model__in=models)
             .defer("probabilities")}
    views = {}
    for model in models:
        calibration = found.get(model)
        chart = (reliability_diagram(calibration.bins.get("before", []), calibration.bins.get("after", []))
                 if calibration is not None and calibration.bins.get("after") else None)
        views[model] = CalibrationView(calibration, model in stale, chart)
    return views

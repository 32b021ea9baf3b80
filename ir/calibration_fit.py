"""One fit of an LLM's calibration on the judgments people have made, as the product stores it (docs/llm_calibration.md,
"In the product"): the bias-aware rule of ir/hybrid.py where the items' runs are known, LARA's (ir/calibration.py)
where no item has a run, with the reliability of the model's own probabilities and of the calibrated ones on the
judged items. Pure numpy: no Django."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ir.calibration import Bin, LaraCalibrator, expected_calibration_error, reliability
from ir.grades import RELEVANCE_LEVEL
from ir.hybrid import BiasAwareCalibrator, Context, features

BIAS_AWARE, LARA = "bias-aware", "lara"
STORED_DIGITS = 6  # the calibrated probabilities are stored, and read by the live order, to this many decimals


def as_stored(calibrated: np.ndarray) -> np.ndarray:
    """The calibrated probabilities as the product stores them (and the `uncertain` order compares them)."""
    return np.round(np.asarray(calibrated, dtype=float), STORED_DIGITS)


@dataclass(frozen=True)
class Fit:
    rule: str
    calibrated: np.ndarray  # items x grades
    ece_before: float | None  # None: no judged item
    ece_after: float | None
    bins_before: list[dict]
    bins_after: list[dict]


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def bins_json(bins: Sequence[Bin]) -> list[dict]:
    """A reliability diagram's bins as JSON: an empty bin's confidence and accuracy are null."""
    return [{"low": b.low, "high": b.high, "count": b.count, "confidence": _number(b.confidence),
             "accuracy": _number(b.accuracy)} for b in bins]


def calibration_fit(probabilities: np.ndarray, context: Context, judged: Sequence[tuple[int, int]], *,
                    relevance_level: int = RELEVANCE_LEVEL) -> Fit:
    """`probabilities`: the model's (items x grades); `context`: each item's rank in each run; `judged`: (item index,
    person's grade) in the order people judged. The bias-aware calibrator is fitted on every judgment at once when
    some item has a run, else LARA's is moved one step per judgment in their order."""
    probabilities = np.asarray(probabilities, dtype=float)
    grades = probabilities.shape[1]
    items = np.array([i for i, _ in judged], dtype=int)
    labels = np.array([g for _, g in judged], dtype=int)
    if context.ranks.size and (context.ranks > 0).any():
        rule = BIAS_AWARE
        x = features(probabilities, context, relevance_level=relevance_level)
        bias_aware = BiasAwareCalibrator(grades)
        if len(items):
            bias_aware.fit(x[items], labels)
        calibrated = bias_aware.predict(x)
    else:
        rule = LARA
        lara = LaraCalibrator(grades)
        for item, grade in judged:
            lara.update(probabilities[item], grade)
        calibrated = lara.predict(probabilities)
    if not len(items):
        return Fit(rule, calibrated, None, None, [], [])
    return Fit(rule, calibrated,
               _number(expected_calibration_error(probabilities[items], labels)),
               _number(expected_calibration_error(calibrated[items], labels)),
               bins_json(reliability(probabilities[items], labels)), bins_json(reliability(calibrated[items], labels)))

"""An LLM's grade probabilities calibrated on the human judgments made so far, as LARA does it (Takehi et al.,
SIGIR 2025; docs/llm_calibration.md): the item a person judges next and the grade every other item is given, and the
reliability of probabilities (expected calibration error, a reliability diagram's bins). Pure numpy: no Django."""
from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

LEARNING_RATE = 0.01  # LARA's (src/test-al.py and src/test-al-graded.py)
BINS = 10


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax, shifted by each row's maximum so that large logits do not overflow."""
    exp_z = np.exp(z - np.max(z, axis=1, keepdims=True))
    return exp_z / exp_z.sum(axis=1, keepdims=True)


@dataclass
class LaraCalibrator:
    """LARA's graded calibrator (`GradualMultinomialLogisticRegression` of its src/utils/algo.py): a multinomial
    logistic regression of the human grade on the model's raw grade probabilities (one weight per grade pair and one
    intercept per grade, all zero at first, so that it starts at the uniform distribution), moved by one step of
    gradient descent on each new human judgment, in the order they come. No regularisation, and every grade is a
    class from the start: a grade nobody has given yet only sees its probability pushed down."""

    grades: int
    learning_rate: float = LEARNING_RATE
    intercepts: np.ndarray = field(init=False)
    weights: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.intercepts = np.zeros(self.grades)
        self.weights = np.zeros((self.grades, self.grades))

    def predict(self, probabilities: np.ndarray) -> np.ndarray:
        """The calibrated grade probabilities of items (rows: the model's probabilities of grades 0, 1, ...)."""
        return softmax(self.intercepts + probabilities @ self.weights.T)

    def update(self, probabilities: np.ndarray, grade: int) -> None:
        """One gradient step on one human judgment: the item's model probabilities and the person's grade."""
        x = np.asarray(probabilities, dtype=float).reshape(1, -1)
        error = self.predict(x)
        error[0, grade] -= 1.0
        self.intercepts -= self.learning_rate * error.mean(axis=0)
        self.weights -= self.learning_rate * (error.T @ x)


def margins(calibrated: np.ndarray) -> np.ndarray:
    """Each item's margin: its most probable grade's probability minus the second one's."""
    ordered = np.sort(calibrated, axis=1)
    return ordered[:, -1] - ordered[:, -2]


def next_item(calibrated: np.ndarray, judged: Collection[int]) -> int | None:
    """LARA's choice of the item a person judges next: the unjudged item with the smallest margin, the first in item
    order among equal ones (numpy's argmin, as LARA's); None when every item is judged."""
    unjudged = np.setdiff1d(np.arange(len(calibrated)), np.fromiter(judged, dtype=int, count=len(judged)))
    if not len(unjudged):
        return None
    return int(unjudged[np.argmin(margins(calibrated[unjudged]))])


def fill(calibrated: np.ndarray) -> np.ndarray:
    """Each item's most probable calibrated grade (the lowest among equal ones)."""
    return np.argmax(calibrated, axis=1)


@dataclass
class Assessment:
    """What a budget of human judgments gives: the items people judged, in order, with their grades; every item's
    calibrated probabilities after the last judgment; and the hybrid grades (human where judged, else `fill`)."""

    order: list[int]
    human: dict[int, int]
    calibrated: np.ndarray
    grades: np.ndarray

    @property
    def filled(self) -> np.ndarray:
        """The indices of the items the model graded."""
        return np.setdiff1d(np.arange(len(self.grades)), np.array(self.order, dtype=int))


def hybrid_grades(calibrated: np.ndarray, human: dict[int, int]) -> np.ndarray:
    """People's grades where they judged, the calibrated most probable grade elsewhere."""
    grades = fill(calibrated)
    for item, grade in human.items():
        grades[item] = grade
    return grades


def lara_assess(probabilities: np.ndarray, ask: Callable[[int], int], budget: int, *,
                learning_rate: float = LEARNING_RATE) -> Assessment:
    """LARA's loop over `budget` human judgments (`ours_graded` with one group): calibrate, ask a person (`ask`: an
    item's index -> their grade) for the unjudged item of smallest margin, update the calibrator, and at the end give
    every unjudged item its calibrated most probable grade. LARA has everything judged by people when the budget
    reaches the number of items less one; here the budget is what people judge, never more than the items."""
    probabilities = np.asarray(probabilities, dtype=float)
    calibrator = LaraCalibrator(probabilities.shape[1], learning_rate)
    order: list[int] = []
    human: dict[int, int] = {}
    for _ in range(min(budget, len(probabilities))):
        item = next_item(calibrator.predict(probabilities), human.keys())
        assert item is not None  # fewer judgments than items
        human[item] = ask(item)
        order.append(item)
        calibrator.update(probabilities[item], human[item])
    calibrated = calibrator.predict(probabilities)
    return Assessment(order, human, calibrated, hybrid_grades(calibrated, human))


# Reliability --------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bin:
    """One bar of a reliability diagram: the items whose confidence (the probability of their most probable grade)
    is in [low, high) (the last bin includes 1), their mean confidence and the share whose grade was that one."""

    low: float
    high: float
    count: int
    confidence: float  # NaN in an empty bin
    accuracy: float  # NaN in an empty bin


def reliability(probabilities: np.ndarray, labels: Sequence[int] | np.ndarray, *, bins: int = BINS) -> list[Bin]:
    """The reliability diagram's bins of predicted grade probabilities against the true grades: equal-width
    confidence bins on [0, 1], an item in bin floor(confidence x bins) (the last one for confidence 1)."""
    probabilities = np.asarray(probabilities, dtype=float)
    labels = np.asarray(labels, dtype=int)
    confidence = probabilities.max(axis=1)
    correct = probabilities.argmax(axis=1) == labels
    where = np.minimum((confidence * bins).astype(int), bins - 1)
    rows = []
    for index in range(bins):
        inside = where == index
        count = int(inside.sum())
        rows.append(Bin(index / bins, (index + 1) / bins, count,
                        float(confidence[inside].mean()) if count else float("nan"),
                        float(correct[inside].mean()) if count else float("nan")))
    return rows


def expected_calibration_error(probabilities: np.ndarray, labels: Sequence[int] | np.ndarray, *,
                               bins: int = BINS) -> float:
    """ECE (Guo et al., 2017): the mean over items of |accuracy - confidence| of their bin, bins weighted by their
    items; NaN with no item."""
    rows = reliability(probabilities, labels, bins=bins)
    total = sum(row.count for row in rows)
    if not total:
        return float("nan")
    return float(sum(row.count * abs(row.accuracy - row.confidence) for row in rows if row.count) / total)

"""LARA's calibration and selection (ir/calibration.py) against LARA's own code (tests/ir/lara_reference.py), and the
reliability diagram and ECE on hand-made cases."""
import math

import numpy as np
import pandas as pd
import pytest

from ir.calibration import (
    LaraCalibrator,
    expected_calibration_error,
    fill,
    lara_assess,
    margins,
    next_item,
    reliability,
)
from tests.ir import lara_reference

GRADES = 4


def synthetic(seed: int, items: int = 240) -> tuple[np.ndarray, np.ndarray]:
    """Model probabilities that lean to a noisy copy of each item's true grade, and the true grades."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(GRADES, size=items, p=[0.55, 0.2, 0.15, 0.1])
    noisy = np.where(rng.random(items) < 0.5, truth, rng.integers(0, GRADES, size=items))
    logits = rng.normal(0.0, 1.0, size=(items, GRADES))
    logits[np.arange(items), noisy] += rng.uniform(0.5, 3.0, size=items)
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return probabilities, truth


def lara_run(probabilities, truth, budget, learning_rate, monkeypatch):
    """LARA's ours_graded on the same items, recording each chosen item and the calibrated probabilities of all
    items at each choice."""
    frame = pd.DataFrame({"topic_id": [str(i % 7) for i in range(len(truth))],
                          "doc_id": [f"d{i}" for i in range(len(truth))], "annotation": truth})
    for grade in range(GRADES):
        frame[f"prob_{grade}"] = probabilities[:, grade]
    chosen, seen, models = [], [], []
    original = lara_reference.GradualMultinomialLogisticRegression.sample_next

    def recording(self, data):
        row = original(self, data)
        chosen.append(int(row.name))
        seen.append(self.predict_proba(probabilities))
        models.append(self)
        return row

    original_fit = lara_reference.GradualMultinomialLogisticRegression.fit

    def numeric_fit(self, X, y):  # a row of mixed columns is an object array: its numbers as numbers
        original_fit(self, X.astype(float), y.astype(int))

    monkeypatch.setattr(lara_reference.GradualMultinomialLogisticRegression, "sample_next", recording)
    monkeypatch.setattr(lara_reference.GradualMultinomialLogisticRegression, "fit", numeric_fit)
    _labeled, final = lara_reference.ours_graded(frame, budget, learning_rate, batch_size=10, lambda_=200,
                                                 random_state=0)
    return chosen, seen, models[-1].predict_proba(probabilities), final["annotation_pred"].to_numpy().astype(int)


@pytest.mark.parametrize(("seed", "budget", "learning_rate"), [(1, 60, 0.01), (2, 80, 0.5), (3, 40, 2.0)])
def test_selection_and_filling_are_laras_step_by_step(seed, budget, learning_rate, monkeypatch):
    probabilities, truth = synthetic(seed)
    chosen, seen, final_calibrated, lara_grades = lara_run(probabilities, truth, budget, learning_rate, monkeypatch)

    calibrator = LaraCalibrator(GRADES, learning_rate)
    judged: list[int] = []
    for step in range(budget):
        calibrated = calibrator.predict(probabilities)
        np.testing.assert_allclose(calibrated, seen[step], atol=1e-9)
        item = next_item(calibrated, judged)
        assert item == chosen[step], f"step {step}"
        judged.append(item)
        calibrator.update(probabilities[item], int(truth[item]))

    assessment = lara_assess(probabilities, lambda item: int(truth[item]), budget, learning_rate=learning_rate)
    assert assessment.order == chosen
    np.testing.assert_allclose(assessment.calibrated, final_calibrated, atol=1e-9)
    assert assessment.grades.tolist() == lara_grades.tolist()
    assert len(set(chosen)) == budget


def test_calibration_moves_the_grades_towards_the_people():
    probabilities, truth = synthetic(4, items=400)
    before = (fill(probabilities) == truth).mean()
    assessment = lara_assess(probabilities, lambda item: int(truth[item]), 150, learning_rate=1.0)
    filled = assessment.filled
    assert (assessment.grades[filled] == truth[filled]).mean() > before


def test_the_first_of_equal_margins_is_chosen_and_judged_items_are_skipped():
    calibrated = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.4, 0.4, 0.2], [0.9, 0.05, 0.05]])
    assert margins(calibrated).tolist() == pytest.approx([0.0, 0.2, 0.0, 0.85])
    assert next_item(calibrated, []) == 0
    assert next_item(calibrated, [0]) == 2
    assert next_item(calibrated, [0, 2]) == 1
    assert next_item(calibrated, [0, 1, 2, 3]) is None


def test_reliability_bins_and_ece_by_hand():
    probabilities = np.array([
        [0.95, 0.05], [0.92, 0.08],  # bin 0.9: confidence 0.935, both right
        [0.65, 0.35], [0.35, 0.65], [0.6, 0.4], [0.62, 0.38],  # bin 0.6: confidence 0.63, two of four right
        [0.5, 0.5],  # bin 0.5: confidence 0.5, grade 0 chosen, wrong
    ])
    labels = [0, 0, 0, 0, 1, 0, 1]
    rows = reliability(probabilities, labels)
    assert [row.count for row in rows] == [0, 0, 0, 0, 0, 1, 4, 0, 0, 2]
    assert rows[9].confidence == pytest.approx(0.935) and rows[9].accuracy == 1.0
    assert rows[6].confidence == pytest.approx(0.63) and rows[6].accuracy == 0.5
    assert rows[5].accuracy == 0.0
    assert math.isnan(rows[0].confidence) and math.isnan(rows[0].accuracy)
    assert (rows[6].low, rows[6].high) == (0.6, 0.7)
    expected = (2 * (1 - 0.935) + 4 * (0.63 - 0.5) + 1 * 0.5) / 7
    assert expected_calibration_error(probabilities, labels) == pytest.approx(expected)


def test_perfectly_calibrated_and_certain_predictions_have_no_error():
    certain = np.eye(3)[[0, 1, 2, 1]]
    assert expected_calibration_error(certain, [0, 1, 2, 1]) == 0.0
    assert expected_calibration_error(certain, [1, 1, 2, 1]) == pytest.approx(0.25)
    assert reliability(certain, [0, 1, 2, 1], bins=4)[3].count == 4  # confidence 1 is in the last bin
    assert math.isnan(expected_calibration_error(np.zeros((0, 3)), []))

"""The geometry of the reliability diagram the agreement page draws for an LLM's calibration (docs/llm_calibration.md,
"In the product"): per confidence bin, the share of judged items whose most probable grade was the person's, for the
model's own probabilities and for the calibrated ones side by side, against the diagonal of a calibrated model.
Computed here so that the template only places SVG elements, as ir/charts.py does for the others. No Django import."""
from __future__ import annotations

from collections.abc import Sequence

LEFT, RIGHT, TOP, BOTTOM = 52, 16, 28, 48
WIDTH, HEIGHT = 480, 300
SERIES = (("before", "the model's probabilities"), ("after", "calibrated"))


def reliability_diagram(before: Sequence[dict], after: Sequence[dict]) -> dict:
    """`before`, `after`: the bins (low, high, count, confidence, accuracy; None in an empty bin) of the same
    equal-width confidence bins. An empty bin has no bar."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    bottom = TOP + plot_h
    bins = max(len(before), len(after), 1)
    step = plot_w / bins
    bar = step * 0.4
    bars = []
    for j, (series, label) in enumerate(SERIES):
        for i, row in enumerate(before if series == "before" else after):
            if row.get("accuracy") is None:
                continue
            height = row["accuracy"] * plot_h
            bars.append({"series": series, "x": round(LEFT + i * step + step * 0.1 + j * bar, 1),
                         "y": round(bottom - height, 1), "width": round(bar - 1, 1), "height": round(height, 1),
                         "title": f"{label}, confidence {row['low']:.1f} to {row['high']:.1f}: {row['count']} items, "
                                  f"mean confidence {row['confidence']:.2f}, accuracy {row['accuracy']:.2f}"})
    ticks = [{"text": f"{k / 5:.1f}", "y": round(bottom - k / 5 * plot_h, 1), "x": round(LEFT + k / 5 * plot_w, 1)}
             for k in range(6)]
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "top": TOP, "bottom": bottom,
            "bars": bars, "ticks": ticks, "label_y": bottom + 34,
            "legend": [{"series": s, "label": label, "x": LEFT + k * 230} for k, (s, label) in enumerate(SERIES)]}

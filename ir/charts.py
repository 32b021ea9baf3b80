"""Geometry of the SVG charts, computed here so that the templates only place SVG elements: the planner's hours
against pool depth (workflow/pool_detail.html), the kappa chart (agreement/agreement.html) and the leaderboard's
per-topic difference of two runs (evaluation/_analysis.html). No Django import."""
from __future__ import annotations

import math
from collections.abc import Sequence

from ir.pools.stats import PlanRow

# -- the kappa chart: grouped bars per assessor, four-way and binary side by side, as in the ARQMath overview figures

# SVG user units.
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 28, 48
HEIGHT = 300
GROUP_MIN, GROUP_MAX = 56, 110
SERIES = (("graded", "four grades"), ("binary", "binary (H+M)"))


def _y(value: float, lo: float, hi: float, top: float, plot_h: float) -> float:
    return top + (hi - value) / (hi - lo) * plot_h


def kappa_bars(rows: Sequence[tuple[str, float | None, float | None]]) -> dict:
    """rows: (assessor, mean graded kappa, mean binary kappa), None when undefined. The axis runs from 1 down to 0,
    or below 0 (in steps of 0.2) when a kappa is negative."""
    values = [v for _, *vs in rows for v in vs if v is not None]
    lo = min(0.0, math.floor(min(values, default=0.0) * 5) / 5)
    hi = 1.0
    group = max(GROUP_MIN, min(GROUP_MAX, 640 // max(len(rows), 1)))
    width = LEFT + RIGHT + group * max(len(rows), 1)
    plot_h = HEIGHT - TOP - BOTTOM
    zero = _y(0.0, lo, hi, TOP, plot_h)
    bar = group * 0.34
    groups = []
    for i, (name, *series) in enumerate(rows):
        x0 = LEFT + i * group + group * 0.14
        bars = []
        for j, value in enumerate(series):
            x = x0 + j * bar
            if value is None:
                bars.append({"scale": SERIES[j][0], "x": round(x, 1), "y": round(zero, 1), "width": round(bar, 1),
                             "height": 0, "value": None, "text": "n/a", "text_x": round(x + bar / 2, 1),
                             "text_y": round(zero - 4, 1)})
                continue
            y = _y(value, lo, hi, TOP, plot_h)
            top, height = (y, zero - y) if value >= 0 else (zero, y - zero)
            bars.append({"scale": SERIES[j][0], "x": round(x, 1), "y": round(top, 1), "width": round(bar - 2, 1),
                         "height": round(height, 1), "value": value, "text": f"{value:.2f}",
                         "text_x": round(x + bar / 2 - 1, 1),
                         "text_y": round(top - 4 if value >= 0 else top + height + 12, 1)})
        groups.append({"name": name, "label_x": round(LEFT + i * group + group / 2, 1), "bars": bars})
    steps = round((hi - lo) / 0.2)
    ticks = [{"value": f"{lo + k * 0.2:.1f}", "y": round(_y(lo + k * 0.2, lo, hi, TOP, plot_h), 1)}
             for k in range(steps + 1)]
    return {"width": width, "height": HEIGHT, "left": LEFT, "right": width - RIGHT, "top": TOP,
            "zero": round(zero, 1), "bottom": round(TOP + plot_h, 1), "label_y": HEIGHT - BOTTOM + 18,
            "groups": groups, "ticks": ticks, "legend": [{"label": label, "scale": scale, "x": LEFT + k * 140}
                                                          for k, (scale, label) in enumerate(SERIES)]}


# -- the planner's chart: a bar of assessor hours per pool depth

# SVG user units.
PLAN_CHART = {"width": 640, "height": 260, "left": 56, "right": 16, "top": 20, "bottom": 44}


def plan_bars(rows: Sequence[PlanRow]) -> dict:
    """Bar positions of hours against depth (the rows of selectors.pool_plan); each bar keeps its row for the
    template's labels."""
    c = PLAN_CHART
    plot_w = c["width"] - c["left"] - c["right"]
    plot_h = c["height"] - c["top"] - c["bottom"]
    top = max((row.hours or 0 for row in rows), default=0) or 1
    slot = plot_w / max(len(rows), 1)
    bars = []
    for i, row in enumerate(rows):
        h = (row.hours or 0) / top * plot_h
        x = c["left"] + i * slot + slot * 0.15
        bars.append({"x": round(x, 1), "y": round(c["top"] + plot_h - h, 1), "width": round(slot * 0.7, 1),
                     "height": round(h, 1), "cx": round(x + slot * 0.35, 1), "row": row})
    return {**c, "bars": bars, "top_hours": top, "base": c["top"] + plot_h, "plot_right": c["width"] - c["right"],
            "mid_y": c["top"] + plot_h / 2, "label_y": c["height"] - 8, "depth_y": c["top"] + plot_h + 16}


# -- the leaderboard's difference chart: a bar per topic, up or down from 0

DIFF_BAR_MIN, DIFF_BAR_MAX, DIFF_LABELS_MAX = 4, 40, 40


def difference_bars(rows: Sequence[tuple[str, float]], *, step: float = 0.2) -> dict:
    """rows: (topic, a - b), in the order to draw them. Bars up for a positive difference, down for a negative one,
    on an axis symmetric around 0 from -lim to lim (lim: the largest |difference| rounded up to `step`, at least
    one step). Topic labels under the bars while there are at most DIFF_LABELS_MAX of them."""
    lim = max(step, math.ceil(max((abs(v) for _, v in rows), default=0.0) / step - 1e-9) * step)
    bar = max(DIFF_BAR_MIN, min(DIFF_BAR_MAX, 760 // max(len(rows), 1)))
    width = LEFT + RIGHT + bar * max(len(rows), 1)
    plot_h = HEIGHT - TOP - BOTTOM
    zero = _y(0.0, -lim, lim, TOP, plot_h)
    bars = []
    for i, (topic, value) in enumerate(rows):
        y = _y(value, -lim, lim, TOP, plot_h)
        top, height = (y, zero - y) if value >= 0 else (zero, y - zero)
        bars.append({"topic": topic, "value": value, "text": f"{value:+.4f}", "x": round(LEFT + i * bar + 1, 1),
                     "y": round(top, 1), "width": max(1, bar - 2), "height": round(height, 1),
                     "sign": "up" if value > 0 else "down" if value < 0 else "tie",
                     "label_x": round(LEFT + i * bar + bar / 2, 1)})
    steps = round(2 * lim / step)
    ticks = [{"value": f"{-lim + k * step:+.1f}".replace("+0.0", "0.0").replace("-0.0", "0.0"),
              "y": round(_y(-lim + k * step, -lim, lim, TOP, plot_h), 1)} for k in range(steps + 1)]
    return {"width": width, "height": HEIGHT, "left": LEFT, "right": width - RIGHT, "top": TOP,
            "zero": round(zero, 1), "label_y": HEIGHT - BOTTOM + 16, "bars": bars, "ticks": ticks,
            "labels": len(rows) <= DIFF_LABELS_MAX}


# -- the judging-order simulator's curves: relevant found against pool judged, one line per policy (docs/pooling.md)

FOUND_CHART = {"width": 640, "height": 320, "left": 56, "right": 150, "top": 20, "bottom": 48}
# Colour and dash per policy, told apart without colour too (the dash), in POLICIES' order.
FOUND_STYLES = (("#6b7280", "6 4"), ("#2563eb", "2 3"), ("#dc2626", ""))


def found_curves(series: Sequence[tuple[str, Sequence[tuple[float, float]]]]) -> dict:
    """series: (policy, [(judged fraction, found fraction), ...]) as ir.pools.simulate gives them. Both axes run
    from 0 to 100%; a dashed line marks 90% found."""
    c = FOUND_CHART
    plot_w = c["width"] - c["left"] - c["right"]
    plot_h = c["height"] - c["top"] - c["bottom"]
    right = c["left"] + plot_w
    base = c["top"] + plot_h

    def x(value: float) -> float:
        return round(c["left"] + value * plot_w, 1)

    def y(value: float) -> float:
        return round(base - value * plot_h, 1)

    lines = []
    for i, (policy, points) in enumerate(series):
        colour, dash = FOUND_STYLES[i % len(FOUND_STYLES)]
        last = points[-1] if points else (0.0, 0.0)
        lines.append({"policy": policy, "colour": colour, "dash": dash,
                      "points": " ".join(f"{x(px)},{y(py)}" for px, py in points),
                      "legend_y": c["top"] + 14 + 18 * i, "end_x": x(last[0]), "end_y": y(last[1])})
    ticks = [{"label": f"{k * 20}%", "x": x(k / 5), "y": y(k / 5)} for k in range(6)]
    return {**c, "lines": lines, "ticks": ticks, "base": base, "plot_right": right, "target_y": y(0.9),
            "legend_x": right + 16, "mid_y": c["top"] + plot_h / 2, "label_y": c["height"] - 8,
            "tick_y": base + 16}


# -- the sweep of RRF's k: the measure of the fused run at each k (the MIRMU paper's Figure 2), a line over the k values
# placed at even steps

SWEEP_WIDTH, SWEEP_STEP = 420, 50


def sweep_line(points: Sequence[tuple[int, float]]) -> dict:
    """points: (k, value) in the order charted. The y axis spans the values (padded by a tenth of their range, or
    0.05 when they are all equal), with five ticks."""
    values = [value for _k, value in points if math.isfinite(value)]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    pad = (hi - lo) / 10 or 0.05
    lo, hi = max(0.0, lo - pad), hi + pad
    plot_h = HEIGHT - TOP - BOTTOM
    width = max(SWEEP_WIDTH, LEFT + RIGHT + SWEEP_STEP * (len(points) + 1))
    marks = []
    for i, (k, value) in enumerate(points):
        x = LEFT + SWEEP_STEP * (i + 1)
        y = _y(value, lo, hi, TOP, plot_h) if math.isfinite(value) else None
        marks.append({"k": k, "value": value, "text": f"{value:.4f}" if y is not None else "n/a", "x": x,
                      "y": round(y, 1) if y is not None else None})
    ticks = [{"value": f"{lo + j * (hi - lo) / 4:.3f}", "y": round(_y(lo + j * (hi - lo) / 4, lo, hi, TOP, plot_h), 1)}
             for j in range(5)]
    return {"width": width, "height": HEIGHT, "left": LEFT, "right": width - RIGHT, "top": TOP,
            "bottom": TOP + plot_h, "label_y": TOP + plot_h + 18, "marks": marks, "ticks": ticks,
            "points": " ".join(f"{m['x']},{m['y']}" for m in marks if m["y"] is not None)}

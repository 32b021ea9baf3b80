"""The planner's chart geometry (ir/charts.py), without a database: what the SVG bars would show."""
from ir.charts import PLAN_CHART, plan_bars
from ir.pools.stats import PlanRow


def row(depth: int, hours: float | None) -> PlanRow:
    return PlanRow(depth=depth, alternate_depth=depth // 2, items=depth * 10, judgments=depth * 10, hours=hours)


def test_the_longest_plan_fills_the_plot_and_a_plan_without_a_time_has_no_bar():
    chart = plan_bars([row(5, 2.0), row(10, 4.0), row(15, None)])
    bars = chart["bars"]
    plot_height = PLAN_CHART["height"] - PLAN_CHART["top"] - PLAN_CHART["bottom"]
    assert [b["height"] for b in bars] == [plot_height / 2, plot_height, 0]
    assert all(b["y"] + b["height"] == chart["base"] for b in bars)  # every bar stands on the axis
    assert [b["row"].depth for b in bars] == [5, 10, 15] and chart["top_hours"] == 4.0
    assert all(a["x"] + a["width"] < b["x"] for a, b in zip(bars, bars[1:], strict=False))  # side by side
    assert bars[-1]["x"] + bars[-1]["width"] <= chart["plot_right"]


def test_a_planner_without_rows_or_hours_draws_an_empty_plot():
    assert plan_bars([])["bars"] == [] and plan_bars([row(5, None)])["top_hours"] == 1

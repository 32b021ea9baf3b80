"""The leaderboard's analysis: marks against the best run and a baseline, intervals, the category breakdown, the
per-topic difference chart, a chosen measure; the same through the API; bad choices refused with a reason."""
import math

import pytest
from django.core.cache import cache
from django.urls import reverse

from evaluation import board
from evaluation.services import Evaluation
from ir import statistics as analysis
from ir.charts import difference_bars
from ir.prime import MEASURES, RunScores
from tests.commands import command_output
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.pooling.run_files import ingest, task1_lines

TOPICS = [f"T{i}" for i in range(1, 13)]


def evaluation_of(values: dict[str, list[float]]) -> Evaluation:
    """An evaluation of runs with these values of each prime measure on T1..T12 (the mean over them)."""
    runs = [RunScores(name=name, per_topic={t: dict.fromkeys(MEASURES, v) for t, v in zip(TOPICS, row, strict=True)},
                      means=dict.fromkeys(MEASURES, sum(row) / len(row)), topics=len(row))
            for name, row in values.items()]
    return Evaluation(runs=runs, qrels_topics=len(TOPICS), all_topics=True, topics=TOPICS, measures=list(MEASURES))


SCORES = {
    "strong": [0.9, 0.8, 0.85, 0.7, 0.95, 0.9, 0.8, 0.75, 0.9, 0.85, 0.8, 0.9],
    "close": [0.88, 0.82, 0.8, 0.72, 0.9, 0.93, 0.78, 0.7, 0.92, 0.8, 0.83, 0.86],
    "weak": [0.2, 0.1, 0.3, 0.2, 0.1, 0.25, 0.3, 0.15, 0.2, 0.1, 0.2, 0.3],
}


def test_runs_far_below_the_best_are_marked_and_close_ones_not():
    found = board.board_analysis(evaluation_of(SCORES), baseline="weak")
    rows = {row.run: row for row in found.runs}
    assert [row.run for row in found.runs] == ["strong", "close", "weak"] and found.best == "strong"
    assert rows["weak"].below_best and not rows["close"].below_best and rows["strong"].vs_best is None
    assert rows["strong"].baseline_mark == "above" and rows["close"].baseline_mark == "above"
    assert rows["weak"].vs_baseline is None
    # The marks come from the analysis module's table: the best against every other run, Holm'd over those pairs.
    table = analysis.significance({"ndcg_prime": {n: dict(zip(TOPICS, v, strict=True)) for n, v in SCORES.items()}},
                                  ["strong", "close", "weak"], TOPICS, baseline="strong")
    assert {c.run_a: c.p_randomization_holm for c in table} == {
        "close": rows["close"].vs_best.p_randomization_holm, "weak": rows["weak"].vs_best.p_randomization_holm}
    # And the intervals its bootstrap: each holds the run's mean over the same topics.
    for row in found.runs:
        assert row.low <= row.mean <= row.high


def test_the_difference_chart_draws_each_topic_up_or_down_from_zero():
    rows = [("A.1", 0.5), ("A.2", 0.0), ("A.3", -0.25)]
    chart = difference_bars(rows)
    up, tie, down = chart["bars"]
    assert (up["sign"], tie["sign"], down["sign"]) == ("up", "tie", "down")
    assert up["y"] + up["height"] == chart["zero"] and down["y"] == chart["zero"]
    assert up["height"] == pytest.approx(2 * down["height"], abs=0.2)  # 0.5 against 0.25
    assert [t["value"] for t in chart["ticks"]] == ["-0.6", "-0.4", "-0.2", "0.0", "+0.2", "+0.4", "+0.6"]
    assert board.topic_differences(evaluation_of(SCORES), "ndcg_prime", "strong", "weak")[0] == ("T5", 0.85)


@pytest.fixture
def leaderboard(judged_answers, tmp_path, client, organizer):  # noqa: F811
    cache.clear()
    ingest(judged_answers, tmp_path, "r2", task1_lines("A.1", ["12", "10"], "r2") + task1_lines("A.2", ["20"], "r2"))
    client.force_login(organizer)
    return reverse("evaluation:leaderboard", args=[judged_answers.pk])


def test_the_page_shows_intervals_marks_a_breakdown_and_a_difference_chart(judged_answers, leaderboard, client,  # noqa: F811
                                                                           tmp_path):
    info = tmp_path / "info.csv"
    info.write_text("Topic,Category\nA.1,Proof\nA.2,Concept\n")
    command_output("ingest_topic_info", "--campaign", judged_answers.name, str(info))
    page = client.get(leaderboard, {"baseline": "r2", "by": "Category", "a": "r1", "b": "r2"})
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="analysis-table"' in html and "95% interval" in html and "Δ baseline" in html
    assert 'id="breakdown-table"' in html and ">Concept</th>" in html and ">Proof</th>" in html
    assert 'id="difference-chart"' in html and "<title>A.1: " in html and "<title>A.2: " in html


def test_a_chosen_measure_is_computed_by_ir_measures(judged_answers, leaderboard, client):  # noqa: F811
    page = client.get(leaderboard, {"measure": "RR"})
    assert page.status_code == 200 and "Analysis: RR" in page.content.decode()
    api = client.get(f"/api/campaigns/{judged_answers.pk}/evaluation/", {"measure": "RR"}).json()
    out, _ = command_output("evaluate", "--campaign", judged_answers.name, "--measures", "RR")
    expected = {line.split("\t")[0]: float(line.split("\t")[3]) for line in out.splitlines()
                if line.split("\t")[1] == "RR"}
    assert {run["run"]: round(run["measures"]["RR"], 4) for run in api["runs"]} == expected
    analysed = client.get(f"/api/campaigns/{judged_answers.pk}/analysis/", {"measure": "RR"}).json()
    assert {run["run"]: round(run["mean"], 4) for run in analysed["runs"]} == expected


@pytest.mark.parametrize("query, message", [
    ({"measure": "nope"}, "'nope' is not a measure ir_measures knows"),
    ({"baseline": "r9"}, "the baseline r9 is not one of the runs"),
    ({"by": "Category"}, "the campaign has no topic information"),
    ({"a": "r1", "b": "r9"}, "no run named r9"),
])
def test_bad_choices_are_left_out_with_a_reason(judged_answers, leaderboard, client, query, message):  # noqa: F811
    page = client.get(leaderboard, query)
    assert page.status_code == 400 and message in page.content.decode().replace("&#x27;", "'")
    assert 'id="leaderboard"' in page.content.decode()  # the prime scores are still shown
    if "a" not in query:
        api = client.get(f"/api/campaigns/{judged_answers.pk}/analysis/", query)
        assert api.status_code == 400 and message in str(api.json())


def test_the_api_gives_the_tests_against_the_best_and_the_baseline(judged_answers, leaderboard, client):  # noqa: F811
    found = client.get(f"/api/campaigns/{judged_answers.pk}/analysis/", {"baseline": "r1"}).json()
    assert found["measure"] == "ndcg_prime" and found["baseline"] == "r1" and found["permutations"] == 10_000
    best = found["best"]
    for run in found["runs"]:
        assert (run["vs_best"] is None) == (run["run"] == best)
        assert (run["vs_baseline"] is None) == (run["run"] == "r1")
        assert run["ci_low"] is None or run["ci_low"] <= run["ci_high"]
        if run["vs_best"]:
            assert set(run["vs_best"]) == {"diff", "p_ttest", "p_randomization", "p_ttest_holm",
                                           "p_randomization_holm", "significant"}
            assert not math.isnan(run["vs_best"]["p_ttest"])


def test_an_unknown_measure_keeps_what_was_typed_in_the_field(judged_answers, leaderboard, client):  # noqa: F811
    """Issue 22, point 9: the field showed ndcg_prime again, and what was typed was lost."""
    page = client.get(leaderboard, {"measure": "nDCG@1O"})
    html = page.content.decode()
    assert page.status_code == 400 and "Analysis: " in html
    assert 'id="id_measure" name="measure" value="nDCG@1O"' in html
    # The difference form goes on with the measure shown (the prime one), not the refused name.
    assert '<input type="hidden" name="measure" value="ndcg_prime">' in html


def test_the_analysis_mean_is_the_one_its_interval_and_delta_average_over():
    # The leaderboard's default mean: each run over the topics it retrieved a judged item for. "half" has T1..T6
    # only (its own mean 0.8); the analysis pairs the runs over every qrels topic, T7..T12 counting 0 for it.
    half = {t: dict.fromkeys(MEASURES, 0.8) for t in TOPICS[:6]}
    full = {t: dict.fromkeys(MEASURES, 0.6) for t in TOPICS}
    runs = [RunScores("full", full, dict.fromkeys(MEASURES, 0.6), 12), RunScores("half", half,
                                                                              dict.fromkeys(MEASURES, 0.8), 6)]
    evaluation = Evaluation(runs=runs, qrels_topics=12, all_topics=False, topics=TOPICS, measures=list(MEASURES))
    found = board.board_analysis(evaluation)
    rows = {row.run: row for row in found.runs}
    assert rows["half"].mean == pytest.approx(0.4) and rows["full"].mean == pytest.approx(0.6)
    assert found.best == "full" and rows["half"].vs_best.diff == pytest.approx(rows["half"].mean - rows["full"].mean)
    assert rows["half"].low <= rows["half"].mean <= rows["half"].high

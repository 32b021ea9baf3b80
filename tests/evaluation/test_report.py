"""`report --campaign NAME --format latex|csv` and its download: the results table in the ARQMath overviews' order
with best values in bold and significance marks, and the assessment table per topic with totals."""
import csv
import io

import pytest
from django.core.management import CommandError
from django.urls import reverse

from evaluation import report
from tests.commands import command_output, rejected
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)
from tests.evaluation.test_leaderboard_analysis import SCORES, evaluation_of
from tests.factories import CampaignFactory
from tests.pooling.run_files import ingest, task1_lines

# judged_answers' qrels: A.1: 10 (3), 12 (0); A.2: 20 (2). r1 (no facts: its own team) ranks 10 first.
RUNS = {
    "Baseline2022-task1-bm25-auto-text-P": (["12", "10"], ["20"]),
    "Team_B-task1-z-manual-math-P": (["10"], ["99", "20"]),
    "TeamA-task1-x-auto-both-P": (["12", "11", "10"], []),
    "TeamA-task1-y-auto-both-A": (["10", "12"], ["20"]),
}


@pytest.fixture
def campaign(judged_answers, tmp_path):  # noqa: F811
    for name, (first, second) in RUNS.items():
        ingest(judged_answers, tmp_path, name, task1_lines("A.1", first, name) + task1_lines("A.2", second, name))
    return judged_answers


def csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


def test_results_come_baselines_first_then_teams_by_their_best_primary_run(campaign):
    out, _ = command_output("report", "--campaign", campaign.name, "--format", "csv", "--table", "results")
    rows = csv_rows(out)
    assert rows[0] == ["team", "run", "baseline", "primary", "manual", "data", "ndcg_prime", "map_prime",
                       "p10_prime", "ndcg_prime_below_best", "map_prime_below_best", "p10_prime_below_best"]
    # nDCG': Team_B's run and r1 1.0, TeamA's primary x 0.6309 and its alternate y 1.0. TeamA is ordered by its
    # primary run: last, though y scores as high as any; y follows x (primary runs first within a team).
    order = [row[1] for row in rows[1:]]
    assert order == ["Baseline2022-task1-bm25-auto-text-P", "Team_B-task1-z-manual-math-P", "r1",
                     "TeamA-task1-x-auto-both-P", "TeamA-task1-y-auto-both-A"]
    facts = {row[1]: row[:6] for row in rows[1:]}
    assert facts["Team_B-task1-z-manual-math-P"] == ["Team_B", "Team_B-task1-z-manual-math-P", "0", "1", "1", "math"]
    assert facts["TeamA-task1-y-auto-both-A"][3] == "0" and facts["r1"][0] == "r1"


def test_the_latex_table_bolds_each_columns_best_and_escapes_names(campaign):
    out, _ = command_output("report", "--campaign", campaign.name, "--format", "latex", "--table", "results")
    assert out.startswith("\\begin{table}") and "\\begin{tabular}{llcccccc}" in out
    assert "(Baseline2022-task1-bm25-auto-text-P)" in out  # a baseline, in parentheses
    line = next(line for line in out.splitlines() if line.startswith("Team\\_B & "))
    assert line.startswith("Team\\_B & Team\\_B-task1-z-manual-math-P & Math & \\checkmark & \\checkmark & ")
    values = csv_rows(command_output("report", "--campaign", campaign.name, "--format", "csv", "--table",
                                     "results")[0])[1:]
    cells = [line.removesuffix(" \\\\").split(" & ") for line in out.splitlines() if line.count(" & ") == 7][1:]
    assert len(cells) == len(values)
    for column in (6, 7, 8):  # nDCG', MAP', P'@10: bold exactly where the CSV has the column's best value
        best = max(float(row[column]) for row in values)
        assert ["\\textbf" in cell[column - 1] for cell in cells] == [float(row[column]) == best for row in values]


def test_runs_far_below_a_columns_best_are_marked(db):
    rows = report.results_rows(campaign=CampaignFactory(name="synthetic"), evaluation=evaluation_of(SCORES))
    assert [row.run for row in rows] == ["strong", "close", "weak"]  # no facts: each run its own team
    assert [row.below_best.get("ndcg_prime") for row in rows] == [None, False, True]
    lines = {line.split(" & ")[1]: line for line in report.results_latex(rows, caption="x").splitlines()
             if line.count(" & ") == 7}
    assert lines["weak"].count("$^\\dagger$") == 3 and "dagger" not in lines["close"]


def test_the_assessment_table_counts_each_topics_grades(campaign):
    out, _ = command_output("report", "--campaign", campaign.name, "--format", "csv", "--table", "assessment")
    assert csv_rows(out) == [
        ["topic", "assessor", "pool", "H", "M", "L", "N", "seconds_per_judgment"],
        ["A.1", "ada", "3", "1", "0", "0", "1", ""],  # imported judgments: no time measured
        ["A.2", "bob", "2", "0", "1", "0", "0", ""],
        ["Total", "2", "5", "1", "1", "0", "1", ""],
    ]
    latex, _ = command_output("report", "--campaign", campaign.name, "--format", "latex", "--table", "assessment")
    assert "A.1 & ada & 3 & 1 & 0 & 0 & 1 & -- \\\\" in latex and "Total & 2 & 5 & 1 & 1 & 0 & 1 & -- \\\\" in latex


def test_both_tables_are_written_whole_to_a_file(campaign, tmp_path):
    target = tmp_path / "tables.csv"
    command_output("report", "--campaign", campaign.name, "--format", "csv", "-o", str(target))
    results, assessment = target.read_text().split("\n\n")
    assert results.startswith("team,run,") and assessment.startswith("topic,assessor,")
    with pytest.raises(CommandError, match="invalid choice: 'html'"):
        command_output("report", "--campaign", campaign.name, "--format", "html")
    empty = CampaignFactory(name="nothing judged")
    assert any("has no official judgments yet" in line
               for line in rejected("report", "--campaign", empty.name, "--format", "latex"))


def test_the_leaderboard_offers_the_tables(campaign, client, organizer):
    client.force_login(organizer)
    url = reverse("evaluation:report", args=[campaign.pk])
    assert 'id="report-latex"' in client.get(reverse("evaluation:leaderboard", args=[campaign.pk])).content.decode()
    latex = client.get(url, {"format": "latex"})
    assert latex.status_code == 200 and latex["Content-Disposition"].endswith('.tex"')
    assert b"".join(latex.streaming_content).decode() == command_output("report", "--campaign", campaign.name,
                                                                        "--format", "latex")[0]
    bad = client.get(url, {"format": "docx"})
    assert bad.status_code == 400 and "unknown format &#x27;docx&#x27;" in bad.content.decode()
    # The site's page, with the way back, not a bare line of text.
    board = reverse("evaluation:leaderboard", args=[campaign.pk])
    assert bad["Content-Type"].startswith("text/html") and f'href="{board}"' in bad.content.decode()


def test_the_download_sends_the_results_before_reading_the_assessment(campaign, client, organizer):
    """Issue 24: the report streams: its results table (the leaderboard's stored scores) goes out first, and the
    assessment table (every topic's qrels and timings) is read after it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(organizer)
    url = reverse("evaluation:report", args=[campaign.pk])
    client.get(url, {"format": "latex"})  # the scores brought up to date
    response = client.get(url, {"format": "latex"})
    parts = iter(response.streaming_content)
    assert b"Results of" in next(parts)
    with CaptureQueriesContext(connection) as assessment:
        assert b"Assessment of" in b"".join(parts)
    assert len(assessment) > 0


def test_scores_of_one_version_are_tested_for_significance_once(db, monkeypatch):
    from evaluation import analysis_services

    calls = []
    real = analysis_services.significance_table
    monkeypatch.setattr(analysis_services, "significance_table",
                        lambda *args, **kwargs: calls.append(kwargs["measures"]) or real(*args, **kwargs))
    campaign = CampaignFactory(name="synthetic")
    scores = evaluation_of(SCORES)
    scores.version = "v1"  # as read from a snapshot
    first = report.results_rows(campaign=campaign, evaluation=scores)
    assert len(calls) == 3  # one test per measure
    again = report.results_rows(campaign=campaign, evaluation=scores)
    assert len(calls) == 3 and [r.below_best for r in again] == [r.below_best for r in first]
    scores.version = "v2"  # newer judgments: tested again
    report.results_rows(campaign=campaign, evaluation=scores)
    assert len(calls) == 6

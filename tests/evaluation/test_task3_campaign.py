"""A campaign's ARQMath-3 Task 3 runs scored (issue 17 points 5 and 6): qrels with answer ids beside post ids, SF and
DK as 5 and 6 on request (command, page, API), `evaluate --campaign` with ar, p1 and lo rows, the Task 1 runs scored
on the posts alone, the leaderboard's Task 3 table; the campaign's numbers and those of its exported files agree."""
import math

import pytest

from evaluation import reusability, services
from judging.services import judgments_import
from pooling.models import Run
from pooling.services import run_facts_set
from tests.commands import command_output
from tests.judging.fixtures import GENERATED, PLANTED
from tests.pooling.run_files import task3_file

pytestmark = pytest.mark.django_db

GEN, EXT = "team-task3-gpt-auto-both-generate-P", "other-task3-se-auto-both-extract-A"


@pytest.fixture
def judged(task3, ada):
    """A.1: posts 10 high, 11 SF, 12 not relevant; answers d_1 high (GEN), d_3 DK (EXT). A.2: post 20 medium, 99 not
    relevant; answer d_2 (both runs) SF."""
    judgments_import(campaign=task3, lines=["\t".join(line) for line in (
        ("ada", "A.1", "10", "3", ""), ("ada", "A.1", "11", "SF", "broken page"), ("ada", "A.1", "12", "0", ""),
        ("ada", "A.1", "d_1", "3", ""), ("ada", "A.1", "d_3", "DK", "unsure"),
        ("ada", "A.2", "20", "2", ""), ("ada", "A.2", "99", "0", ""), ("ada", "A.2", "d_2", "SF", "cut off"))])
    return task3


def test_qrels_hold_answer_ids_like_posts_and_sf_dk_as_5_and_6_on_request(judged, tmp_path, client, organizer):
    out, _ = command_output("export_qrels", "--campaign", "answers")
    assert out.splitlines() == ["A.1\t0\t10\t3", "A.1\t0\t12\t0", "A.1\t0\td_1\t3", "A.2\t0\t20\t2", "A.2\t0\t99\t0"]
    complete = ["A.1\t0\t10\t3", "A.1\t0\t11\t5", "A.1\t0\t12\t0", "A.1\t0\td_1\t3", "A.1\t0\td_3\t6",
                "A.2\t0\t20\t2", "A.2\t0\t99\t0", "A.2\t0\td_2\t5"]
    assert command_output("export_qrels", "--campaign", "answers", "--complete")[0].splitlines() == complete
    # SF and DK are no relevant items for the minimum-relevant filter.
    _, err = command_output("export_qrels", "--campaign", "answers", "--complete", "--min-relevant", "2")
    assert "A.2\tleft out: 1 relevant item, fewer than 2" in err.splitlines()
    client.force_login(organizer)
    page = client.get(f"/campaigns/{judged.pk}/qrels.txt?complete=1")
    assert b"".join(page.streaming_content).decode().splitlines() == complete
    api = client.get(f"/api/campaigns/{judged.pk}/qrels/?complete=true&format=tsv")
    assert b"".join(api.streaming_content).decode().splitlines() == complete
    assert 'name="complete"' in client.get(f"/campaigns/{judged.pk}/leaderboard/").content.decode()


def test_evaluate_campaign_adds_task3_rows_and_scores_task1_runs_on_the_posts(judged):
    out, _ = command_output("evaluate", "--campaign", "answers", "--per-topic")
    rows = [line.split("\t") for line in out.splitlines()]
    # r1 ranks 10 (high) before 12 in A.1: nDCG' 1 on the posts; judged answers in its ideal ranking would lower it.
    assert ["r1", "ndcg_prime", "A.1", "1.0000"] in rows and ["r1", "ndcg_prime", "all", "1.0000"] in rows
    task3 = [row for row in rows if row[0] in (GEN, EXT)]
    assert [row for row in task3 if row[1] in ("ar", "p1")] == [
        # GEN: d_1 high, d_2 SF (0); EXT: d_3 DK (0), d_2 SF (0). Over the topics with a judged answer (both).
        [EXT, "ar", "A.1", "0.0000"], [EXT, "p1", "A.1", "0.0000"], [EXT, "ar", "A.2", "0.0000"],
        [EXT, "p1", "A.2", "0.0000"], [EXT, "ar", "all", "0.0000"], [EXT, "p1", "all", "0.0000"],
        [GEN, "ar", "A.1", "3.0000"], [GEN, "p1", "A.1", "1.0000"], [GEN, "ar", "A.2", "0.0000"],
        [GEN, "p1", "A.2", "0.0000"], [GEN, "ar", "all", "1.5000"], [GEN, "p1", "all", "0.5000"]]
    lo = {(row[0], row[2]): row[3] for row in task3 if row[1] == "lo"}
    # LO: EXT's answer to A.1 against GEN's relevant one (another team); GEN's only reference is its own: none.
    assert lo[(GEN, "all")] == "n/a" and set(lo) == {(EXT, "A.1"), (EXT, "all"), (GEN, "all")}
    assert 0 < float(lo[(EXT, "A.1")]) < 1 and lo[(EXT, "A.1")] == lo[(EXT, "all")]
    assert "ar" not in {row[1] for row in rows if row[0] == "r1"}  # without --ar-p1, as before


def test_the_campaigns_scores_are_those_of_its_exported_files(judged, tmp_path):
    qrels, ids = tmp_path / "qrels.txt", tmp_path / "map.tsv"
    command_output("export_qrels", "--campaign", "answers", "--complete", "-o", str(qrels))
    command_output("export_answer_ids", "--campaign", "answers", "-o", str(ids))
    # The runs as their teams sent them (task3_file writes what the fixture ingested).
    files = [task3_file(tmp_path, GEN, {"A.1": GENERATED, "A.2": "Because $e^{i\\pi}=-1$."}),
             task3_file(tmp_path, EXT, {"A.1": PLANTED, "A.2": "Because  $e^{i\\pi}=-1$. "})]
    from_files, _ = command_output("evaluate", "--qrels", str(qrels), "--answer-ids", str(ids), *map(str, files))
    from_campaign, _ = command_output("evaluate", "--campaign", "answers")
    task3_lines = [line for line in from_campaign.splitlines() if not line.startswith("r1\t")]
    assert sorted(task3_lines) == sorted(line for line in from_files.splitlines() if not line.startswith("#"))


def test_the_leaderboard_api_and_csv_show_task3_runs(judged, client, organizer):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{judged.pk}/leaderboard/").content.decode()
    table = page[page.index('id="task3-leaderboard"'):]
    table = table[:table.index("</table>")]
    assert ">AR</th>" in table and ">P@1</th>" in table and ">LO</th>" in table
    assert table.index(GEN) < table.index(EXT)  # best AR first
    assert 'data-value="1.5">1.5000</td>' in table
    main = page[page.index('id="leaderboard"'):]
    assert GEN not in main[:main.index("</table>")]  # Task 3 runs are not in the Task 1 table
    data = client.get(f"/api/campaigns/{judged.pk}/evaluation/").json()
    assert [run["run"] for run in data["runs"]] == ["r1"]
    assert [(run["run"], run["ar"], run["p1"], run["topics"]) for run in data["answer_runs"]] == [
        (GEN, 1.5, 0.5, 2), (EXT, 0.0, 0.0, 2)]
    csv = client.get(f"/campaigns/{judged.pk}/leaderboard.csv").content.decode().splitlines()
    assert csv[csv.index("") + 1] == "task3_run,kind,manual,baseline,ar,p1,lo,topics"
    assert csv[-2].startswith(f"{GEN},primary,0,0,1.5000,0.5000,n/a,2")
    run = judged.runs.get(name=GEN)
    per_topic = client.get(f"/campaigns/{judged.pk}/leaderboard/runs/{run.pk}/").content.decode()
    assert ">AR</th>" in per_topic and 'data-value="3.0">3.0000</td>' in per_topic


def test_evaluation_keeps_the_task3_runs_apart(judged):
    result = services.evaluate_campaign(campaign=judged)
    assert [run.name for run in result.runs] == ["r1"]
    assert [run.name for run in result.answer_runs] == [EXT, GEN]
    assert result.judgments == 5  # what the qrels hold, answers included (SF and DK out)


def test_task3_runs_get_their_facts_from_their_names_and_lo_takes_the_team_fact(judged):
    gen, ext = Run.objects.get(campaign=judged, name=GEN), Run.objects.get(campaign=judged, name=EXT)
    assert (gen.team, gen.answer_type, gen.alternate) == ("team", "generate", False)
    assert (ext.team, ext.answer_type, ext.alternate, ext.data_used) == ("other", "extract", True, "both")

    def lo_of_ext() -> float:
        scores = {run.name: run for run in services.evaluate_campaign(campaign=judged).answer_runs}
        return scores[EXT].means["lo"]

    assert 0 < lo_of_ext() < 1  # A.1: GEN's relevant answer is another team's
    run_facts_set(run=ext, team="team")  # the organizer says both runs are one team's: no other team's reference left
    assert math.isnan(lo_of_ext())


def test_reusability_leaves_the_task3_runs_out(judged):
    result = reusability.reusability_campaign(campaign=judged)
    assert {row.run for row in result.rows} == {"r1"}


def test_p1_counts_relevant_at_the_campaigns_relevance_level(judged, client, organizer):
    # d_2, both runs' answer to A.2, is now low: relevant at level 1 only.
    judgments_import(campaign=judged, lines=["ada\tA.2\td_2\t1\t"])
    judged.relevance_level = 1
    judged.save()
    scores = {run.name: (run.means["ar"], run.means["p1"]) for run in services.evaluate_campaign(campaign=judged)
              .answer_runs}
    assert scores == {GEN: (2.0, 1.0), EXT: (0.5, 0.5)}
    client.force_login(organizer)
    data = client.get(f"/api/campaigns/{judged.pk}/evaluation/").json()
    assert [(run["run"], run["p1"]) for run in data["answer_runs"]] == [(GEN, 1.0), (EXT, 0.5)]

"""fuse_runs over the real ARQMath-1 Task 1 runs of tests/data (a TREC run and an ARQMath 5-column one): the file path
and the campaign path give the same run, the fused run is ingested as a fused baseline, and a sweep of k scores each
fused run as evaluate scores the written file."""
import random

import pytest

from jobs.models import Job
from pooling import services
from pooling.models import Campaign, Run, RunEntry
from tests.commands import command_output, rejected
from tests.evaluation.test_campaign import judged_answers  # noqa: F401
from tests.factories import CampaignFactory, TopicFactory

PSU, ENSEMBLE = "psu-task1-auto-both-A.tsv", "ensemble-task1.tsv"


@pytest.fixture
def run_files(arqmath_data):
    return [str(arqmath_data / "runs" / PSU), str(arqmath_data / "runs" / ENSEMBLE)]


@pytest.fixture
def qrels(arqmath_data):
    return str(arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt")


@pytest.fixture
def campaign(db, run_files):
    campaign = CampaignFactory(name="fusion", task=Campaign.Task.ANSWERS, collection=None)
    for position, topic in enumerate(["A.1", "A.2", "A.3", "A.4", "A.5"]):
        TopicFactory(campaign=campaign, topic_id=topic, position=position)
    for path in run_files:
        services.run_ingest(campaign=campaign, path=path)
    return campaign


def fused_lines(*args):
    out, _err = command_output("fuse_runs", *args)
    return out.splitlines()


def test_rrf_of_the_files_is_a_trec_run_of_each_topics_best_documents(run_files):
    lines = fused_lines("--method", "rrf", "--depth", "100", "--name", "rrf60", *run_files)
    rows = [line.split("\t") for line in lines]
    assert {row[0] for row in rows} == {"A.1", "A.2", "A.3", "A.4", "A.5"}
    assert all(row[1] == "Q0" and row[5] == "rrf60" for row in rows)
    first = [row for row in rows if row[0] == "A.1"]
    assert len(first) == 100 and [int(row[3]) for row in first] == list(range(1, 101))
    scores = [float(row[4]) for row in first]
    assert scores == sorted(scores, reverse=True)


def test_the_fused_run_does_not_depend_on_the_order_of_the_files_lines(run_files, tmp_path):
    lines = open(run_files[1], encoding="utf-8").read().splitlines(keepends=True)
    random.Random(3).shuffle(lines)
    shuffled = tmp_path / ENSEMBLE
    shuffled.write_text("".join(lines), encoding="utf-8")
    assert (fused_lines("--method", "rrf", "--name", "r", run_files[0], str(shuffled))
            == fused_lines("--method", "rrf", "--name", "r", *run_files))


@pytest.mark.parametrize("method", ["rrf", "combmnz", "ibc"])
def test_fusing_the_campaigns_runs_equals_fusing_their_files(campaign, run_files, method):
    from_files = fused_lines("--method", method, "--name", "fused", *run_files)
    from_campaign = fused_lines("--method", method, "--name", "fused", "--campaign", "fusion", "--runs",
                                "psu-task1-auto-both-A", "ensemble-task1")
    assert from_campaign == from_files and len(from_files) > 1000


def test_ingest_stores_a_fused_baseline_with_its_sources(campaign, run_files, tmp_path):
    out, _err = command_output("fuse_runs", "--method", "rrf", "--k", "40", "--campaign", "fusion", "--runs",
                               "psu-task1-auto-both-A", "ensemble-task1", "--ingest", "--name", "fused-rrf")
    run = Run.objects.get(campaign=campaign, name="fused-rrf")
    assert "fused-rrf" in out
    assert (run.fused, run.baseline, run.alternate) == (True, True, False)
    assert run.fused_from == {"method": "rrf", "k": 40, "norm": "none", "weights": None, "depth": 1000,
                              "runs": ["psu-task1-auto-both-A", "ensemble-task1"]}
    written = fused_lines("--method", "rrf", "--k", "40", "--name", "fused-rrf", *run_files)
    assert RunEntry.objects.filter(run=run).count() == len(written) == run.row_count
    first = written[0].split("\t")
    entry = RunEntry.objects.get(run=run, topic__topic_id=first[0], item_id=first[2])
    assert (entry.rank, entry.score) == (1, float(first[4]))


def test_a_sweep_of_k_scores_each_fused_run_as_evaluate_scores_the_file(run_files, qrels, tmp_path):
    lines = fused_lines("--method", "rrf", "--k", "10", "60", "180", "--qrels", qrels, *run_files)
    assert lines[0] == "k\tmeasure\tvalue"
    values = {row.split("\t")[0]: row.split("\t")[2] for row in lines[1:]}
    assert list(values) == ["10", "60", "180"]
    output = tmp_path / "rrf.tsv"
    command_output("fuse_runs", "--method", "rrf", "--k", "60", "-o", str(output), *run_files)
    scores, _err = command_output("evaluate", "--qrels", qrels, str(output))
    assert f"rrf.tsv\tndcg_prime\tall\t{values['60']}" in scores.splitlines()


def test_a_sweep_takes_another_measure(run_files, qrels):
    lines = fused_lines("--method", "rrf", "--k", "20", "60", "--qrels", qrels, "--measure", "p10_prime", *run_files)
    assert [line.split("\t")[1] for line in lines[1:]] == ["p10_prime", "p10_prime"]


def test_a_bad_run_file_is_refused_with_its_line(run_files, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("A.1\t10\t1\t2.0\tt\nA.1\t11\tone\t1.0\tt\n", encoding="utf-8")
    lines = rejected("fuse_runs", "--method", "rrf", run_files[1], str(bad))
    assert any("bad.tsv" in line and "line 2" in line for line in lines)


@pytest.mark.parametrize("args, message", [
    (["--method", "rrf", "--k", "10", "20"], "give --qrels"),
    (["--method", "combsum", "--k", "10"], "k is RRF's"),
    (["--method", "rrf", "--runs", "a"], "go with --campaign"),
])
def test_contradictory_options_are_refused(run_files, args, message):
    lines = rejected("fuse_runs", *args, *run_files)
    assert any(message in line for line in lines)


def test_the_campaign_page_adds_a_fused_baseline(campaign, run_files, client, organizer, jobs_run_on_commit):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert f'href="/campaigns/{campaign.pk}/runs/fuse/"' in page
    form = client.get(f"/campaigns/{campaign.pk}/runs/fuse/").content.decode()
    assert 'value="psu-task1-auto-both-A"' in form and 'value="ensemble-task1"' in form
    response = client.post(f"/campaigns/{campaign.pk}/runs/fuse/", {
        "runs": ["psu-task1-auto-both-A", "ensemble-task1"], "method": "ibc", "depth": "50"})
    assert response.status_code == 302 and "/jobs/" in response["Location"]
    run = Run.objects.get(campaign=campaign, name="fused-ibc")
    assert (run.fused, run.baseline) == (True, True)
    assert run.fused_from["method"] == "ibc" and run.fused_from["depth"] == 50
    written = fused_lines("--method", "ibc", "--depth", "50", "--name", "fused-ibc", *run_files)
    assert RunEntry.objects.filter(run=run).count() == len(written)


def test_the_fused_baseline_form_shows_what_is_wrong(campaign, client, organizer):
    client.force_login(organizer)
    page = client.post(f"/campaigns/{campaign.pk}/runs/fuse/", {"runs": ["ensemble-task1"], "method": "wibc"})
    text = page.content.decode()
    assert page.status_code == 200 and "Nothing was fused" in text
    assert "fusion needs at least two runs, not 1" in text and "give --weights" in text
    assert not Run.objects.filter(campaign=campaign, fused=True).exists()
    # The name is every row's run tag: one with a space would split the tag column of the file the job ingests.
    page = client.post(f"/campaigns/{campaign.pk}/runs/fuse/", {
        "runs": ["psu-task1-auto-both-A", "ensemble-task1"], "method": "rrf", "k": "60", "name": "fused with space"})
    assert page.status_code == 200 and "is the run tag of every row of its file" in page.content.decode()
    assert not Run.objects.filter(campaign=campaign, fused=True).exists() and not Job.objects.exists()


def test_the_leaderboard_charts_rrf_of_the_primary_runs_at_each_k(judged_answers, tmp_path, client, organizer):  # noqa: F811
    from tests.pooling.run_files import ingest, task1_lines

    ingest(judged_answers, tmp_path, "r2", task1_lines("A.1", ["12", "10", "11"], "r2")
           + task1_lines("A.2", ["99", "20"], "r2"))
    ingest(judged_answers, tmp_path, "base", task1_lines("A.1", ["11"], "base"))
    Run.objects.filter(name="base").update(baseline=True)  # a baseline is not fused into the sweep
    client.force_login(organizer)
    page = client.get(f"/campaigns/{judged_answers.pk}/leaderboard/", {"sweep": "1"}).content.decode()
    assert 'id="fusion-sweep"' in page and "<svg class=\"chart sweep\"" in page
    cells = page[page.index('id="sweep-values"'):].split("<tbody>")[1].split("</tbody>")[0]
    shown = [cell.split(">")[1] for cell in cells.split('<td class="num"')[1:]]
    qrels = tmp_path / "qrels.txt"
    command_output("export_qrels", "--campaign", judged_answers.name, "-o", str(qrels))
    lines = fused_lines("--method", "rrf", "--k", "10", "20", "40", "60", "80", "100", "180", "--qrels", str(qrels),
                        str(tmp_path / "r1.tsv"), str(tmp_path / "r2.tsv"))
    assert [cell.split("<")[0] for cell in shown] == [line.split("\t")[2] for line in lines[1:]]
    assert len(shown) == 7
    assert "nDCG′" in cells and "$'$" not in page  # the page typesets no TeX: the measure is named as elsewhere


def test_the_command_lines_a_page_shows_quote_a_campaign_name_with_spaces(client, organizer):
    # Pasted into a shell, the name must stay one word.
    campaign = CampaignFactory(name="ARQMath-3 Task 1 demo", task=Campaign.Task.ANSWERS)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{campaign.pk}/runs/fuse/").content.decode()
    assert "fuse_runs --campaign &#x27;ARQMath-3 Task 1 demo&#x27; --runs" in page


def test_the_sweep_says_why_there_is_no_chart(judged_answers, client, organizer):  # noqa: F811
    client.force_login(organizer)
    page = client.get(f"/campaigns/{judged_answers.pk}/leaderboard/", {"sweep": "1"}).content.decode()
    assert 'id="sweep-problem"' in page and "has 1 primary runs that are not baselines" in page

"""The characterisation report (issue 17 point 4): per run, the fraction of its characterised answers marked yes to
each question (ARQMath-3's MG and UI), over the characterised topics; in `evaluate --campaign` and on the leaderboard.
A case made by hand, the expected fractions worked out below."""
import pytest

from characterisation import services as characterising
from characterisation.selectors import characterisation_report
from judging import services
from judging.models import CharacterisationAnswer, CharacterisationRevision, SampleItem
from pooling import services as pooling_services
from pooling.models import Campaign
from tests.commands import command_output
from tests.factories import CampaignFactory, TopicFactory
from tests.judging.fixtures import assign
from tests.pooling.run_files import ingest, task1_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def characterised(tmp_path, ada, bob):
    """Pool depth 2. A.1: r1 pools 10 and 11 (12 is its third), r2 pools 12 and 13. A.2: r1 pools 20, 21, r3 22.

    Every item of A.1 is in the samples of ada and bob (A.2 is not characterised). ada: 10 MG yes, UI no; 11 MG no,
    UI no; 12 MG yes, UI yes; 13 UI yes only. bob: 10 MG no.
      r1 (10, 11): MG (1/2 + 0) / 2 = 0.25 over 2 items; UI 0 / 2 = 0.
      r2 (12, 13): MG 1 / 1 (13 has no MG answer); UI 2 / 2 = 1.
      r3 (A.2 only): nothing characterised, n/a.
    """
    campaign = CampaignFactory(name="chars", task=Campaign.Task.ANSWERS, primary_depth=2, alternate_depth=2)
    TopicFactory(campaign=campaign, topic_id="A.1", position=0)
    TopicFactory(campaign=campaign, topic_id="A.2", position=1)
    ingest(campaign, tmp_path, "r1", task1_lines("A.1", ["10", "11", "12"], "r1") + task1_lines("A.2", ["20", "21"],
                                                                                                 "r1"))
    ingest(campaign, tmp_path, "r2", task1_lines("A.1", ["12", "13"], "r2"))
    ingest(campaign, tmp_path, "r3", task1_lines("A.2", ["22"], "r3"))
    pooling_services.pool_build(campaign=campaign, judged_items={})
    characterising.questions_arqmath(campaign=campaign)
    mine, theirs = (characterising.characterisation_assign(campaign=campaign, assessors=[user], topic_ids=["A.1"],
                                                     size=10).created[0] for user in (ada, bob))
    assert set(mine.sample.values_list("item_id", flat=True)) == {"10", "11", "12", "13"}
    for item, answers in (("10", {"MG": "yes", "UI": "no"}), ("11", {"MG": "no", "UI": "no"}),
                          ("12", {"MG": "yes", "UI": "yes"}), ("13", {"UI": "yes"})):
        characterising.characterisation_submit(assignment_pk=mine.pk, item_id=item, answers=answers, user=ada)
    characterising.characterisation_submit(assignment_pk=theirs.pk, item_id="10", answers={"MG": "no"}, user=bob)
    return campaign


def _fractions(campaign):
    report = characterisation_report(campaign=campaign)
    return report, {r.run: (r.fractions, r.items) for r in report.runs}


def test_each_runs_share_of_yes_over_its_characterised_items(characterised):
    report, runs = _fractions(characterised)
    assert report.topics == ["A.1"] and report.labels == ["MG", "UI"]
    assert runs == {
        "r1": ({"MG": 0.25, "UI": 0.0}, {"MG": 2, "UI": 2}),
        "r2": ({"MG": 1.0, "UI": 1.0}, {"MG": 1, "UI": 2}),
        "r3": ({"MG": None, "UI": None}, {"MG": 0, "UI": 0}),
    }


def test_a_withdrawn_assessors_answers_are_left_out(characterised, bob):
    services.assignment_withdraw(assignment=bob.assignments.get())
    _report, runs = _fractions(characterised)
    assert runs["r1"][0] == {"MG": 0.5, "UI": 0.0}


def test_characterised_items_survive_a_forced_rebuild(characterised):
    services.pools_rebuild(campaign=characterised, force=True)
    _report, runs = _fractions(characterised)
    assert runs["r1"][0] == {"MG": 0.25, "UI": 0.0}
    assert SampleItem.objects.filter(completed_at__isnull=False).count() == 3  # ada's 10, 11, 12


def test_evaluate_campaign_writes_the_fractions_after_the_scores(characterised, ada):
    official = assign(characterised, ada, "A.1")
    services.judgment_submit(assignment_pk=official.pk, item_id="10", user=ada,
                             grades=[services.GradeInput(grade="3")])
    out, _ = command_output("evaluate", "--campaign", "chars")
    lines = out.splitlines()
    assert lines[-6:] == ["r1\tchar:MG\tall\t0.2500", "r1\tchar:UI\tall\t0.0000",
                          "r2\tchar:MG\tall\t1.0000", "r2\tchar:UI\tall\t1.0000",
                          "r3\tchar:MG\tall\tn/a", "r3\tchar:UI\tall\tn/a"]
    assert "r1\tndcg_prime\tall\t" in out  # the scores come first


def test_the_leaderboard_shows_mg_and_ui_columns(characterised, ada, client, organizer):
    official = assign(characterised, ada, "A.1")
    services.judgment_submit(assignment_pk=official.pk, item_id="10", user=ada,
                             grades=[services.GradeInput(grade="3")])
    client.force_login(organizer)
    page = client.get(f"/campaigns/{characterised.pk}/leaderboard/").content.decode()
    assert ">MG</th>" in page and ">UI</th>" in page
    row = page[page.index('data-run="r1"'):]
    row = row[:row.index("</tr>")]
    assert '<td class="num characterised" data-value="0.25">0.2500</td>' in row
    assert '<td class="num characterised" data-value="0.0">0.0000</td>' in row
    organizer_page = client.get(f"/campaigns/{characterised.pk}/characterisation/").content.decode()
    assert 'data-run="r3"' in organizer_page and "n/a" in organizer_page and "0.2500" in organizer_page


def test_no_columns_before_anything_is_characterised(characterised, ada, client, organizer):
    CharacterisationRevision.objects.all().delete()
    CharacterisationAnswer.objects.all().delete()
    official = assign(characterised, ada, "A.1")
    services.judgment_submit(assignment_pk=official.pk, item_id="10", user=ada,
                             grades=[services.GradeInput(grade="3")])
    client.force_login(organizer)
    assert ">MG</th>" not in client.get(f"/campaigns/{characterised.pk}/leaderboard/").content.decode()
    out, _ = command_output("evaluate", "--campaign", "chars")
    assert "char:" not in out


def test_task3_answers_are_sampled_shown_blind_and_reported_per_run(task3, ada, bob, client, organizer):
    characterising.questions_arqmath(campaign=task3)
    a = characterising.characterisation_assign(campaign=task3, assessors=[ada], topic_ids=["A.1"], size=10).created[0]
    sample = list(a.sample.values_list("item_id", flat=True))
    assert set(sample) == {"10", "11", "12", "d_1", "d_3"}  # posts and Task 3 answers, one pool
    client.force_login(ada)
    page = client.get(f"/assess/characterisations/{a.pk}/items/{sample.index('d_3')}/").content.decode()
    assert "&lt;script&gt;window.__pwned = 4&lt;/script&gt;" in page and "<b>not bold</b>" not in page
    assert "d_3" not in page.replace('value="d_3"', "") and "task3" not in page  # no id, no run
    for item, mg in (("d_1", "yes"), ("d_3", "no"), ("10", "no")):
        characterising.characterisation_submit(assignment_pk=a.pk, item_id=item, answers={"MG": mg, "UI": "no"},
                                               user=ada)
    _report, runs = _fractions(task3)
    assert runs["team-task3-gpt-auto-both-generate-P"][0] == {"MG": 1.0, "UI": 0.0}
    assert runs["other-task3-se-auto-both-extract-A"][0] == {"MG": 0.0, "UI": 0.0}
    assert runs["r1"] == ({"MG": 0.0, "UI": 0.0}, {"MG": 1, "UI": 1})
    official = assign(task3, bob, "A.1")
    services.judgment_submit(assignment_pk=official.pk, item_id="d_1", user=bob,
                             grades=[services.GradeInput(grade="2")])
    client.force_login(organizer)
    board = client.get(f"/campaigns/{task3.pk}/leaderboard/").content.decode()
    table = board[board.index('id="task3-leaderboard"'):]
    row = table[table.index('data-run="team-task3-gpt-auto-both-generate-P"'):]
    row = row[:row.index("</tr>")]
    assert ">MG</th>" in table and '<td class="num characterised" data-value="1.0">1.0000</td>' in row


@pytest.fixture
def scored(characterised, ada):
    official = assign(characterised, ada, "A.1")
    services.judgment_submit(assignment_pk=official.pk, item_id="10", user=ada,
                             grades=[services.GradeInput(grade="3")])
    return characterised


def test_the_csv_download_and_the_api_give_every_runs_fractions(scored, client, organizer):
    client.force_login(organizer)
    csv = client.get(f"/campaigns/{scored.pk}/leaderboard.csv").content.decode().splitlines()
    assert csv[0].endswith(",unjudged_10,topics,MG,UI")
    rows = {line.split(",")[0]: line.split(",")[-2:] for line in csv[1:]}
    assert rows == {"r1": ["0.2500", "0.0000"], "r2": ["1.0000", "1.0000"], "r3": ["n/a", "n/a"]}
    data = client.get(f"/api/campaigns/{scored.pk}/evaluation/").json()
    assert {run["run"]: run["characterisation"] for run in data["runs"]} == {
        "r1": {"MG": 0.25, "UI": 0.0}, "r2": {"MG": 1.0, "UI": 1.0}, "r3": {"MG": None, "UI": None}}
    tsv = client.get(f"/api/campaigns/{scored.pk}/evaluation/", HTTP_ACCEPT="text/tab-separated-values")
    assert tsv.content.decode().splitlines()[-6:] == [
        "r1\tchar:MG\tall\t0.2500", "r1\tchar:UI\tall\t0.0000", "r2\tchar:MG\tall\t1.0000",
        "r2\tchar:UI\tall\t1.0000", "r3\tchar:MG\tall\tn/a", "r3\tchar:UI\tall\tn/a"]


def test_the_report_tables_have_the_questions_after_the_measures(scored):
    csv, _ = command_output("report", "--campaign", "chars", "--format", "csv", "--table", "results")
    header, *lines = csv.splitlines()
    assert header.split(",")[6:11] == ["ndcg_prime", "map_prime", "p10_prime", "MG", "UI"]
    assert {line.split(",")[1]: line.split(",")[9:11] for line in lines} == {
        "r1": ["0.2500", "0.0000"], "r2": ["1.0000", "1.0000"], "r3": ["n/a", "n/a"]}
    latex, _ = command_output("report", "--campaign", "chars", "--format", "latex", "--table", "results")
    assert "\\begin{tabular}{llcccccccc}" in latex and "P$'$@10 & MG & UI \\\\" in latex
    r2 = next(line for line in latex.splitlines() if " & r2 & " in line)
    assert r2.endswith(" & 1.0000 & 1.0000 \\\\") and "MG, UI: share of the run's characterised answers" in latex


def test_no_question_no_column_in_the_csv_and_the_report(scored, client, organizer):
    CharacterisationRevision.objects.all().delete()
    CharacterisationAnswer.objects.all().delete()
    scored.characterisation_questions.all().delete()
    client.force_login(organizer)
    assert client.get(f"/campaigns/{scored.pk}/leaderboard.csv").content.decode().splitlines()[0].endswith(",topics")
    data = client.get(f"/api/campaigns/{scored.pk}/evaluation/").json()
    assert data["runs"][0]["characterisation"] == {}
    csv, _ = command_output("report", "--campaign", "chars", "--format", "csv", "--table", "results")
    assert csv.splitlines()[0].split(",")[8:10] == ["p10_prime", "ndcg_prime_below_best"]

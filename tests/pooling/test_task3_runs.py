"""ARQMath-3 Task 3 runs in an answers campaign (issue 17 points 1 and 2): taken beside Task 1 runs by the service,
ingest_run, the upload page and the API; a bad file refused whole with its lines; identical answers one answer id;
ids that no rebuild, deletion or replacement renumbers; every answer pooled with the posts; export_answer_ids."""
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from ir.formats.task3_answer_ids import read_answer_ids
from ir.pools.order import display_order
from ir.problems import Problems
from judging import services as assessor_services
from pooling import selectors, services
from pooling.models import AnswerText, Campaign, PoolItem, Run, RunAnswer, RunEntry
from tests.commands import command_output, rejected
from tests.factories import CampaignFactory, TopicFactory
from tests.pooling.run_files import ingest, task1_lines, task3_file

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]

SYNTHETIC = Path(__file__).resolve().parent.parent / "data" / "arqmath" / "task3" / "synthetic-task3-generate-A.tsv"
TOPICS = ["A.301", "A.302", "A.305", "A.330", "A.399"]



@pytest.fixture
def campaign():
    campaign = CampaignFactory(name="arq3", task=Campaign.Task.ANSWERS, primary_depth=2, alternate_depth=1, seed=7)
    for n, topic_id in enumerate(TOPICS):
        TopicFactory(campaign=campaign, topic_id=topic_id, position=n)
    return campaign


def answer_ids(run: Run) -> dict[str, str]:
    return dict(RunAnswer.objects.filter(run=run).values_list("topic__topic_id", "answer__answer_id"))


def stored() -> dict:
    return {m.__name__: m.objects.count() for m in (Run, RunEntry, RunAnswer, AnswerText)}


def test_a_task3_run_is_stored_with_its_answers_and_their_ids(campaign):
    run = services.run_ingest(campaign=campaign, path=SYNTHETIC)
    assert (run.format, run.tag, run.row_count, run.topic_count) == ("arqmath3", "synthetic-task3-generate-A", 4, 4)
    assert run.get_format_display() == "ARQMath-3 Task 3 (one answer per topic)"
    # New answers are numbered in the campaign's topic order; the entries pooling reads are the ids at rank 1.
    assert answer_ids(run) == {"A.301": "d_1", "A.302": "d_2", "A.305": "d_3", "A.330": "d_4"}
    assert set(RunEntry.objects.filter(run=run).values_list("item_id", "rank", "post_id")) == {
        ("d_1", 1, ""), ("d_2", 1, ""), ("d_3", 1, ""), ("d_4", 1, "")}
    answer = RunAnswer.objects.get(run=run, topic__topic_id="A.302")
    assert (answer.line, answer.rank, answer.score, answer.run_tag, answer.sources) == (
        4, 1, 12.1, "synthetic-task3-generate-A", "GPT-like")
    assert answer.text.startswith("Write $z = re^{i\\theta}$. The $n$-th roots of $z$ are\n$$w_k")
    assert answer.answer.text == answer.text
    assert run.warnings == [f"{SYNTHETIC.name}: the run does not cover 1 of the campaign's 5 topics: A.399"]


def test_ingest_run_takes_a_task3_file_beside_task1_runs(campaign, tmp_path):
    ingest(campaign, tmp_path, "posts", task1_lines("A.301", ["10", "11"], "posts"))
    out, _ = command_output("ingest_run", "--campaign", "arq3", str(SYNTHETIC))
    assert ("run 'synthetic-task3-generate-A' (primary: the name says neither -P nor -A; ARQMath-3 Task 3 (one answer "
            "per topic)): 4 rows for 4 topics") in out
    assert "warning: synthetic-task3-generate-A.tsv: the run does not cover 1 of the campaign's 5 topics: A.399" in out
    assert sorted(campaign.runs.values_list("name", "format")) == [("posts", "arqmath1"),
                                                                   ("synthetic-task3-generate-A", "arqmath3")]


def test_a_bad_task3_file_is_refused_whole_with_its_lines(campaign, tmp_path):
    services.run_ingest(campaign=campaign, path=SYNTHETIC)
    before = stored()
    bad = tmp_path / "bad.tsv"
    bad.write_text("A.301\t1\t1.0\tbad\tsrc\tA new answer that would get an id.\n"
                   "A.302\t2\t1.0\tbad\tsrc\t" + "x" * 1201 + "\n"
                   "A.301\t1\t0.5\tbad\tsrc\tA second answer.\n"
                   "A.999\t1\t0.5\tbad\tsrc\tNo such topic.\n", encoding="utf-8")
    assert rejected("ingest_run", "--campaign", "arq3", str(bad)) == [
        "bad.tsv:line 2: the answer to topic A.302 has 1,201 characters; at most 1,200 are allowed",
        "bad.tsv:line 3: a second answer to topic A.301 (the first is on line 1); a run gives one answer per topic",
        "bad.tsv:line 4: topic 'A.999' is not a topic of this campaign",
    ]
    assert stored() == before  # no run, entry, answer or answer id of it


def test_identical_answers_are_one_answer_id_within_a_topic(campaign, tmp_path):
    first = services.run_ingest(campaign=campaign, path=task3_file(tmp_path, "first", {
        "A.301": "The norm is $\\|A\\|_2$.\nSee above.", "A.302": "Use polar form."}))
    # The same texts but for white space, a new text, and a known text given to another topic.
    second = services.run_ingest(campaign=campaign, path=task3_file(tmp_path, "second", {
        "A.301": "  The norm is   $\\|A\\|_2$. See\tabove. ", "A.302": "Use the polar form.",
        "A.305": "Use polar form."}))
    assert answer_ids(first) == {"A.301": "d_1", "A.302": "d_2"}
    assert answer_ids(second) == {"A.301": "d_1", "A.302": "d_3", "A.305": "d_4"}
    # The distinct answer keeps the first run's text (assessors see it); each run keeps its own.
    assert AnswerText.objects.get(answer_id="d_1").text == "The norm is $\\|A\\|_2$.\nSee above."
    assert RunAnswer.objects.get(run=second, topic__topic_id="A.301").text.startswith("  The norm is")
    assessor_services.pools_rebuild(campaign=campaign)
    pooled = dict(PoolItem.objects.filter(topic__topic_id="A.301").values_list("item_id", "provenance"))
    assert pooled == {"d_1": [["first", 1], ["second", 1]]}  # one pool item, judged once


def test_answer_ids_survive_rebuilds_deletions_and_replacements(campaign, tmp_path):
    ingest(campaign, tmp_path, "posts", task1_lines("A.301", ["10", "11", "12"], "posts"))
    a = services.run_ingest(campaign=campaign, path=task3_file(tmp_path, "a", {"A.301": "one", "A.302": "two"}))
    b = services.run_ingest(campaign=campaign, path=task3_file(tmp_path, "b", {"A.301": "three", "A.302": "two"}))
    assessor_services.pools_rebuild(campaign=campaign)
    ids = {(t, i) for t, i in PoolItem.objects.filter(campaign=campaign).values_list("topic__topic_id", "item_id")}
    assessor_services.pools_rebuild(campaign=campaign)
    assert ids == {(t, i) for t, i in PoolItem.objects.filter(campaign=campaign).values_list("topic__topic_id",
                                                                                             "item_id")}
    assessor_services.run_delete(run=a)
    assert answer_ids(b) == {"A.301": "d_3", "A.302": "d_2"}  # not renumbered
    assert set(PoolItem.objects.filter(topic__topic_id="A.301").values_list("item_id", flat=True)) == {
        "10", "11", "d_3"}  # d_1 left the pool with its run (depth 2 for the posts run)
    # The deleted run's answers come back under their ids; a new text takes the next number, never a freed one.
    again = services.run_ingest(campaign=campaign, path=task3_file(tmp_path, "a", {"A.301": "one", "A.302": "new"}))
    assert answer_ids(again) == {"A.301": "d_1", "A.302": "d_4"}
    replaced, _after = assessor_services.run_replace(run=b, path=task3_file(tmp_path, "b2", {"A.301": "three"}))
    assert answer_ids(replaced) == {"A.301": "d_3"}
    assert sorted(AnswerText.objects.values_list("number", flat=True)) == [1, 2, 3, 4]


def test_answers_are_pooled_among_the_posts_in_the_seeded_order(campaign, tmp_path):
    ingest(campaign, tmp_path, "posts", task1_lines("A.301", ["10", "11", "12"], "posts")
           + task1_lines("A.302", ["20"], "posts"))
    services.run_ingest(campaign=campaign, path=SYNTHETIC)
    services.run_ingest(campaign=campaign, path=task3_file(tmp_path, "extract", {"A.301": "Extracted text."}),
                        alternate=True)
    result = assessor_services.pools_rebuild(campaign=campaign)
    assert result.sizes == {"A.301": 4, "A.302": 2, "A.305": 1, "A.330": 1, "A.399": 0}
    order = list(PoolItem.objects.filter(topic__topic_id="A.301").order_by("position").values_list("item_id",
                                                                                                   flat=True))
    assert order == display_order(["10", "11", "d_1", "d_5"], seed=7, topic_id="A.301")
    stats = selectors.pool_statistics(campaign=campaign)
    assert stats["total"]["items"] == 8
    by_run = {run["name"]: (run["contributed"], run["unique"]) for run in stats["runs"]}
    assert by_run == {"extract": (1, 1), "posts": (3, 3), "synthetic-task3-generate-A": (4, 4)}
    plan = selectors.pool_plan(campaign=campaign, depths=[1, 2], seconds_per_judgment=60)
    # Depth 1: a post for each of two topics and every answer (the alternate Task 3 run's too, never scaled to 0).
    assert [row.items for row in plan] == [2 + 4 + 1, 8]
    rows = list(selectors.pool_export_rows(campaign=campaign))
    assert rows[0] == ("topic", "post_id")
    assert [item for topic, item in rows[1:] if topic == "A.301"] == order


def test_export_answer_ids_writes_the_organizers_map(campaign, tmp_path):
    assert rejected("export_answer_ids", "--campaign", "arq3") == [
        "campaign 'arq3' has no ARQMath-3 Task 3 runs: there are no answer ids"]
    services.run_ingest(campaign=campaign, path=SYNTHETIC)
    services.run_ingest(campaign=campaign, path=task3_file(tmp_path, "b-run", {"A.330": "Other.", "A.301": "One."}))
    out, _ = command_output("export_answer_ids", "--campaign", "arq3")
    assert out.splitlines() == [
        "b-run\tA.301\td_5", "b-run\tA.330\td_6",
        "synthetic-task3-generate-A\tA.301\td_1", "synthetic-task3-generate-A\tA.302\td_2",
        "synthetic-task3-generate-A\tA.305\td_3", "synthetic-task3-generate-A\tA.330\td_4"]
    target = tmp_path / "map.tsv"
    command_output("export_answer_ids", "--campaign", "arq3", "-o", str(target))
    problems = Problems()
    with target.open("rb") as stream:
        found = read_answer_ids(stream, problems)  # the reader of `evaluate --answer-ids`
    assert not problems and found["b-run"] == {"A.301": "d_5", "A.330": "d_6"}


def test_the_upload_page_and_the_api_take_task3_runs(client, organizer, campaign):
    client.force_login(organizer)
    page = client.post(f"/campaigns/{campaign.pk}/runs/upload/",
                       {"file": SimpleUploadedFile("gen.tsv", SYNTHETIC.read_bytes())}, follow=True)
    assert page.status_code == 200
    assert Run.objects.get(name="gen").format == "arqmath3"
    api = APIClient()
    api.force_authenticate(organizer)
    good = b"A.301\t1\t1.0\tapi\tsrc\tAn answer from the API.\n"
    response = api.post(f"/api/campaigns/{campaign.pk}/runs/", {"file": SimpleUploadedFile("api.tsv", good)})
    assert response.status_code == 202
    assert answer_ids(Run.objects.get(name="api")) == {"A.301": "d_5"}
    bad = b"A.301\t1\t1.0\tapi\tsrc\t\n"
    response = api.post(f"/api/campaigns/{campaign.pk}/runs/", {"file": SimpleUploadedFile("bad.tsv", bad)})
    job = api.get(f"/api/jobs/{response.json()['id']}/").json()
    assert job["status"] == "failed"
    assert [(p["line"], p["message"]) for p in job["problems"]] == [
        (1, "the answer to topic A.301 is empty (leave a topic without an answer out)")]
    assert not Run.objects.filter(name="bad").exists()


def test_a_formula_campaign_refuses_task3_files(tmp_path):
    campaign = CampaignFactory(name="f", task=Campaign.Task.FORMULAS)
    TopicFactory(campaign=campaign, topic_id="A.301")
    with pytest.raises(Exception) as caught:
        services.run_ingest(campaign=campaign, path=SYNTHETIC)
    assert "the file is in ARQMath-3 Task 3 (answers) format; a campaign of task 'formulas' takes" in str(caught.value)
    assert not Run.objects.exists()


def test_deleting_the_campaign_takes_its_answers_and_ids(campaign, tmp_path):
    services.run_ingest(campaign=campaign, path=SYNTHETIC)
    assessor_services.pools_rebuild(campaign=campaign)
    assessor_services.campaign_delete(campaign=campaign)
    assert stored() == {"Run": 0, "RunEntry": 0, "RunAnswer": 0, "AnswerText": 0}

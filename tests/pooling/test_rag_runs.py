"""TREC RAG answer runs in an answers campaign (docs/pooling.md, "Generated answers with citations"): both shapes
stored with their sentences and citations, citations to ids the collection lacks counted in a warning, a bad file
refused whole with its lines, every cited id pooled whatever the depth, ARQMath-3 Task 3 runs as before; the TREC RAG
topic lines taken by the topics ingest; the upload page and the API."""
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from ir.problems import InputError
from judging import services as assessor_services
from pooling import selectors, services
from pooling.models import AnswerSentence, AnswerText, Campaign, PoolItem, Run, RunAnswer, RunEntry, Topic
from tests.commands import command_output, rejected
from tests.factories import CampaignFactory, CollectionFactory, PostFactory, TopicFactory
from tests.pooling.run_files import ingest, task1_lines, task3_file

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]

DATA = Path(__file__).resolve().parent.parent / "data" / "rag"
RAG24, RAG25, TOPICS25 = DATA / "rag24-answers.jsonl", DATA / "rag25-answers.jsonl", DATA / "rag25-topics.jsonl"
TOPICS = ["2027497", "2024-145979", "1", "2"]
A, B, C = ("msmarco_v2.1_doc_51_766815931#2_1606878413", "msmarco_v2.1_doc_37_463237391#10_984448281",
           "msmarco_v2.1_doc_22_1020204811#4_2210371210")
D, E = "msmarco_v2.1_doc_10_1000#1_2000", "msmarco_v2.1_doc_10_3000#2_4000"  # not in the collection
F, G, H = ("msmarco_v2.1_doc_16_1041913392#3_1268938142", "msmarco_v2.1_doc_12_201312571#1_394396180",
           "msmarco_v2.1_doc_05_777#0_888")


@pytest.fixture
def campaign():
    collection = CollectionFactory(name="segments")
    for post_id in (A, B, C, F, G, H, "p1", "p2", "p3"):
        PostFactory(collection=collection, post_id=post_id)
    campaign = CampaignFactory(name="rag", task=Campaign.Task.ANSWERS, collection=collection, primary_depth=2,
                               alternate_depth=1, seed=3)
    for n, topic_id in enumerate(TOPICS):
        TopicFactory(campaign=campaign, topic_id=topic_id, position=n)
    return campaign


def stored() -> dict:
    return {m.__name__: m.objects.count() for m in (Run, RunEntry, RunAnswer, AnswerText, AnswerSentence)}


def sentences(run: Run, topic_id: str) -> list[tuple]:
    return list(AnswerSentence.objects.filter(answer__run=run, answer__topic__topic_id=topic_id)
                .order_by("position").values_list("position", "text", "citations"))


def entries(run: Run, topic_id: str) -> list[tuple]:
    return list(RunEntry.objects.filter(run=run, topic__topic_id=topic_id).order_by("rank")
                .values_list("rank", "item_id"))


def test_a_2024_run_is_stored_with_its_sentences_citations_and_entries(campaign):
    run = services.run_ingest(campaign=campaign, path=RAG24)
    assert (run.format, run.tag, run.row_count, run.topic_count, run.ranks_are_positions) == (
        "trec_rag", "team-rag24", 5, 2, True)
    assert run.get_format_display() == "TREC RAG answers (sentences citing ids)"
    assert sentences(run, "2027497") == [(0, "It depends on the child's readiness.", [A]),
                                         (1, "Some suggest every two hours.", [B, A]),
                                         (2, "Others after every meal.", [C])]
    assert sentences(run, "2024-145979")[2] == (2, "Both are tropical cyclones.", [])
    answer = RunAnswer.objects.get(run=run, topic__topic_id="2027497")
    assert answer.text == "It depends on the child's readiness. Some suggest every two hours. Others after every meal."
    assert (answer.line, answer.rank, answer.run_tag, answer.sources) == (1, 1, "team-rag24", f"{A} {B} {C}")
    assert answer.answer.answer_id == "d_1" and answer.answer.text == answer.text  # a distinct answer, as Task 3's
    # The entries: each cited id once, in the order first cited (E before D: the first sentence cites E).
    assert entries(run, "2027497") == [(1, A), (2, B), (3, C)]
    assert entries(run, "2024-145979") == [(1, E), (2, D)]
    assert run.warnings == [
        "rag24-answers.jsonl: the run does not cover 2 of the campaign's 4 topics: 1, 2",
        "3 citations to 2 ids not in the collection 'segments', first line 2 (for example "
        f"{D}, {E})"]


def test_a_2025_run_cites_by_id_or_index_and_gives_its_team(campaign):
    run = services.run_ingest(campaign=campaign, path=RAG25)
    assert (run.format, run.tag, run.team, run.manual, run.row_count, run.topic_count) == (
        "trec_rag", "run25", "team25", False, 3, 2)
    assert sentences(run, "1") == [(0, "It began in Britain in the mid-18th century.", [F]),
                                   (1, "Coal, iron and colonial trade drove it.", [G, F])]
    assert sentences(run, "2") == [(0, "Ear mites or an infection are common causes.", [H]),
                                   (1, "A vet should look at it.", [])]
    assert RunAnswer.objects.get(run=run, topic__topic_id="2").line == 3  # after the blank line
    assert entries(run, "1") == [(1, F), (2, G)]
    assert run.warnings == ["rag25-answers.jsonl: the run does not cover 2 of the campaign's 4 topics: "
                            "2027497, 2024-145979"]  # every citation is in the collection


def test_ingest_run_takes_a_rag_file_and_says_its_warning(campaign):
    out, _ = command_output("ingest_run", "--campaign", "rag", str(RAG24))
    assert "run 'rag24-answers' (primary: the name says neither -P nor -A; TREC RAG answers (sentences citing ids))" \
        in out
    assert "3 citations to 2 ids not in the collection 'segments', first line 2" in out


def test_a_bad_rag_file_is_refused_whole_with_its_lines(campaign, tmp_path):
    services.run_ingest(campaign=campaign, path=RAG25)
    before = stored()
    good = json.loads(RAG24.read_text().splitlines()[0])
    lines = [good,
             {**good, "topic_id": "2024-145979", "answer": [{"text": "Too far.", "citations": [3]}]},
             {**good, "topic_id": "9999"},
             {**good, "topic_id": "1", "answer": []},
             "not json"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    assert rejected("ingest_run", "--campaign", "rag", str(bad)) == [
        "bad.jsonl:line 2: answer[0] cites index 3, but the references have 3 (indexes 0 to 2)",
        "bad.jsonl:line 3: topic '9999' is not a topic of this campaign",
        "bad.jsonl:line 4: the answer has no sentences (leave a topic without an answer out)",
        "bad.jsonl:line 5: invalid JSON: Expecting value (column 1)",
    ]
    assert stored() == before  # no run, entry, answer, answer id or sentence of it


def test_a_second_answer_to_a_topic_and_a_too_long_id_are_refused(campaign, tmp_path):
    good = json.loads(RAG24.read_text().splitlines()[0])
    other_run = {**good, "run_id": "another"}
    long_id = "x" * 65
    long = {**good, "topic_id": "2024-145979", "references": [long_id],
            "answer": [{"text": "Long.", "citations": [0]}]}
    bad = tmp_path / "two.jsonl"
    bad.write_text("".join(json.dumps(line) + "\n" for line in (good, other_run, long)))
    with pytest.raises(InputError) as caught:
        services.run_ingest(campaign=campaign, path=bad)
    assert caught.value.messages() == [
        "two.jsonl:line 2: a second answer to topic 2027497 (the first is on line 1); a run gives one answer per topic",
        "two.jsonl:line 3: cited id 'xxxxxxxxxxxxxxxxxxxx...' is longer than 64 characters",
    ]
    assert stored() == {"Run": 0, "RunEntry": 0, "RunAnswer": 0, "AnswerText": 0, "AnswerSentence": 0}


def test_every_cited_id_is_pooled_whatever_the_depth(campaign, tmp_path):
    ingest(campaign, tmp_path, "posts", task1_lines("2027497", ["p1", "p2", "p3", C], "posts"))
    rag = services.run_ingest(campaign=campaign, path=RAG24, kind="alternate")  # alternate depth 1
    result = assessor_services.pools_rebuild(campaign=campaign)
    pooled = dict(PoolItem.objects.filter(topic__topic_id="2027497").values_list("item_id", "provenance"))
    # The posts run to depth 2 (p1, p2); the RAG run: all three ids its answer cites, past both depths.
    assert pooled == {"p1": [["posts", 1]], "p2": [["posts", 2]], A: [["rag24-answers", 1]],
                      B: [["rag24-answers", 2]], C: [["rag24-answers", 3]]}
    assert set(PoolItem.objects.filter(topic__topic_id="2024-145979").values_list("item_id", flat=True)) == {D, E}
    assert result.sizes == {"2027497": 5, "2024-145979": 2, "1": 0, "2": 0}
    stats = selectors.pool_statistics(campaign=campaign)
    by_run = {r["name"]: (r["whole"], r["contributed"], r["unique"]) for r in stats["runs"]}
    assert by_run == {"posts": (False, 2, 2), "rag24-answers": (True, 5, 5)}
    # The planner pools it whole at every depth too, so its row at the campaign's depth is the pool.
    plan = selectors.pool_plan(campaign=campaign, depths=[1, 2, 4], seconds_per_judgment=60)
    assert [row.items for row in plan] == [1 + 5, 2 + 5, 3 + 5]  # at depth 4: p1 p2 p3 and C, which RAG cites too
    with pytest.raises(InputError, match="pooled whole"):
        services.run_depth_set(run=rag, depth=1)
    with pytest.raises(InputError, match="pooled whole"):
        services.run_ingest(campaign=campaign, path=RAG25, depth=3)


def test_a_task3_run_beside_a_rag_run_is_pooled_as_before(campaign, tmp_path):
    rag = services.run_ingest(campaign=campaign, path=RAG24)
    task3 = services.run_ingest(campaign=campaign, path=task3_file(tmp_path, "t3", {"2027497": "An answer."}))
    assert task3.format == "arqmath3"
    assert list(RunEntry.objects.filter(run=task3).values_list("item_id", "rank")) == [("d_3", 1)]
    assessor_services.pools_rebuild(campaign=campaign)
    pooled = dict(PoolItem.objects.filter(topic__topic_id="2027497").values_list("item_id", "provenance"))
    assert pooled["d_3"] == [["t3", 1]]
    assert {"d_1", "d_2"}.isdisjoint(pooled)  # the RAG run's answers are judged by nuggets, not pooled
    assert set(pooled) == {A, B, C, "d_3"}
    # The organizers' answer-id map lists the Task 3 run only.
    out, _ = command_output("export_answer_ids", "--campaign", "rag")
    assert out.splitlines() == ["t3\t2027497\td_3"]
    assert rag.warnings[-1].startswith("3 citations to 2 ids")


def test_a_grown_collection_is_checked_again(campaign):
    run = services.run_ingest(campaign=campaign, path=RAG24)
    PostFactory(collection=campaign.collection, post_id=E)
    assert services.run_collection_check(run=run) == [
        f"1 citation to 1 id not in the collection 'segments', first line 2 (for example {D})"]


def test_a_formula_campaign_refuses_a_rag_file():
    campaign = CampaignFactory(name="f", task=Campaign.Task.FORMULAS)
    TopicFactory(campaign=campaign, topic_id="2027497")
    with pytest.raises(InputError) as caught:
        services.run_ingest(campaign=campaign, path=RAG24)
    assert caught.value.messages() == [
        "rag24-answers.jsonl:line 1: the file is in TREC RAG answer format; a campaign of task 'formulas' takes "
        "ARQMath Task 2 (6-column) or TREC (Q0) runs"]
    assert not Run.objects.exists()


def test_a_jsonl_topic_file_given_as_a_run_says_what_it_looks_like(campaign, tmp_path):
    topics = tmp_path / "topics.jsonl"
    topics.write_text('{"id": "1", "title": "A topic"}\n')
    with pytest.raises(InputError) as caught:
        services.run_ingest(campaign=campaign, path=topics)
    assert caught.value.messages() == [
        "topics.jsonl:line 1: this looks like a JSONL topic file (id title ...), not a run file"]


def test_rag_topic_lines_are_ingested_as_topics(tmp_path):
    campaign = CampaignFactory(name="rag25", task=Campaign.Task.ANSWERS, collection=None)
    result = services.topics_ingest(campaign=campaign, path=TOPICS25)
    assert (result.created, result.total) == (2, 2)
    topics = list(Topic.objects.filter(campaign=campaign).order_by("position")
                  .values_list("topic_id", "title", "narrative"))
    assert topics == [
        ("1", "I'm trying to understand how the Industrial Revolution began and why it started where it did.", ""),
        ("2", "My dog keeps scratching its ears; what could be the cause and what should I do?", "")]
    # The RAG answers of those topics then find them.
    run = services.run_ingest(campaign=campaign, path=RAG25)
    assert run.topic_count == 2 and not run.warnings
    bad = tmp_path / "bad-topics.jsonl"
    bad.write_text('{"id": "3", "narrative": "fine"}\n{"id": "4", "narrative": "x", "title": "y"}\n'
                   '{"id": "3", "narrative": "again"}\n')
    assert rejected("ingest_topics", "--campaign", "rag25", str(bad)) == [
        "bad-topics.jsonl:line 2: a topic has both narrative and title: which is its text?",
        "bad-topics.jsonl:line 3: a second line for topic '3' (the first is on line 1)",
    ]
    assert Topic.objects.filter(campaign=campaign).count() == 2


def test_the_pools_page_says_a_rag_run_is_pooled_whole(client, organizer, campaign, tmp_path):
    ingest(campaign, tmp_path, "posts", task1_lines("2027497", ["p1"], "posts"))
    services.run_ingest(campaign=campaign, path=RAG24)
    assessor_services.pools_rebuild(campaign=campaign)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{campaign.pk}/pools/").content.decode()
    row = page[page.index("<td>rag24-answers</td>"):]
    assert "all cited" in row[:row.index("</tr>")]
    assert 'aria-label="pool depth of posts' in page and 'aria-label="pool depth of rag24-answers' not in page


def test_the_upload_page_and_the_api_take_rag_runs(client, organizer, campaign):
    client.force_login(organizer)
    page = client.post(f"/campaigns/{campaign.pk}/runs/upload/",
                       {"file": SimpleUploadedFile("page.jsonl", RAG24.read_bytes())}, follow=True)
    assert page.status_code == 200
    assert Run.objects.get(name="page").format == "trec_rag"
    api = APIClient()
    api.force_authenticate(organizer)
    response = api.post(f"/api/campaigns/{campaign.pk}/runs/",
                        {"file": SimpleUploadedFile("api.jsonl", RAG25.read_bytes())})
    assert response.status_code == 202
    run = Run.objects.get(name="api")
    assert (run.format, run.topic_count) == ("trec_rag", 2)
    bad = b'{"run_id": "x", "topic_id": "1", "answer": [{"text": "No refs.", "citations": [0]}]}\n'
    response = api.post(f"/api/campaigns/{campaign.pk}/runs/", {"file": SimpleUploadedFile("bad.jsonl", bad)})
    job = api.get(f"/api/jobs/{response.json()['id']}/").json()
    assert job["status"] == "failed"
    assert [(p["line"], p["message"]) for p in job["problems"]] == [
        (1, "answer[0] cites by index but the answer has no references")]
    assert not Run.objects.filter(name="bad").exists()

"""A TREC RAG track end to end, as docs/nuggets.md "The workflow of a RAG track in the service" gives it: an answers
campaign from TREC RAG files by the commands, a bank made on the bank page, a support assignment, an assessor judging
every answer on the support judging page, then the official labels exported as nuggetizer's assign output and scored
by nuggetizer's own code (tests/ir/nuggetizer_reference.py), which must give evaluate's per-topic and mean nugget
scores; and the bad inputs of the way: each refused with its lines and nothing written, or warned about."""
import json
import random
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from jobs.models import Job
from nuggets.models import Nugget, NuggetChange, SupportAssignment, SupportJudgment
from nuggets.selectors import bank_nuggets
from nuggets.support_selectors import judging_page, topic_answers
from pooling.models import Campaign, PoolItem, Run, RunAnswer
from tests.commands import command_output, rejected
from tests.factories import CollectionFactory, PostFactory
from tests.ir.nuggetizer_reference import calculate_global_metrics, calculate_nugget_scores

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]

DATA = Path(__file__).resolve().parent.parent / "data" / "rag"
TOPICS = DATA / "rag25-topics.jsonl"
RUNS = [DATA / "rag25-answers.jsonl", DATA / "rag25-answers-b.jsonl"]
SEGMENTS = ("msmarco_v2.1_doc_16_1041913392#3_1268938142", "msmarco_v2.1_doc_12_201312571#1_394396180",
            "msmarco_v2.1_doc_05_777#0_888")
# Per topic: the nuggets the organizer writes (text, importance), and one selected in the first answer.
BANKS = {
    "1": [("It began in Britain", "vital"), ("Coal was at hand", "vital"), ("Steam engines mattered", "okay"),
          ("Colonial trade supplied capital", "okay")],
    "2": [("Allergies are a common cause", "vital"), ("Ear mites are a common cause", "vital"),
          ("A vet should see it", "okay")],
}
SELECTED = {"1": "Coal, iron and colonial trade drove it", "2": "Ear mites or an infection are common causes"}
MEASURES = {"nugget_vital": "vital_score", "nugget_strict_vital": "strict_vital_score",
            "nugget_all": "all_score", "nugget_strict_all": "strict_all_score"}


@pytest.fixture
def campaign():
    collection = CollectionFactory(name="segments")
    for post_id in SEGMENTS:
        PostFactory(collection=collection, post_id=post_id)
    command_output("create_campaign", "rag", "--task", "answers", "--collection", "segments")
    command_output("ingest_topics", "--campaign", "rag", str(TOPICS))
    for path in RUNS:
        out, _ = command_output("ingest_run", "--campaign", "rag", str(path))
        assert "not in the collection" not in out
    command_output("build_pools", "--campaign", "rag")
    return Campaign.objects.get(name="rag")


def test_support_judged_on_the_pages_scores_as_nuggetizer_scores_the_export(campaign, organizer, assessor_user,
                                                                            client, tmp_path):
    assert sorted(campaign.runs.values_list("name", flat=True)) == ["rag25-answers", "rag25-answers-b"]
    assert PoolItem.objects.filter(campaign=campaign).count() == 4  # every cited id, per topic
    client.force_login(organizer)
    for topic in campaign.topics.order_by("position"):
        url = f"/campaigns/{campaign.pk}/nuggets/topics/{topic.pk}/"
        for text, importance in BANKS[topic.topic_id]:
            response = client.post(url, {"action": "add", "text": text, "importance": importance})
            assert response.status_code == 302, response.content.decode()[:500]
        first = RunAnswer.objects.filter(topic=topic).order_by("run__name").first()
        response = client.post(url, {"action": "select", "answer": first.pk, "text": SELECTED[topic.topic_id],
                                     "importance": "okay"})
        assert response.status_code == 302
        bank = list(bank_nuggets(topic=topic))
        assert [n.text for n in bank] == [t for t, _ in BANKS[topic.topic_id]] + [SELECTED[topic.topic_id]]
        assert bank[-1].source == Nugget.Source.SELECTED
        assert NuggetChange.objects.filter(nugget__topic=topic, action="add").count() == len(bank)
        command_output("assign_support", "--campaign", "rag", "--topic", topic.topic_id, "--assessor", "ada")
    # A nugget added after the freeze is not judged: the assessors label the frozen version.
    later = campaign.topics.get(topic_id="2")
    client.post(f"/campaigns/{campaign.pk}/nuggets/topics/{later.pk}/",
                {"action": "add", "text": "Added after the freeze", "importance": "vital"})

    client.force_login(assessor_user)
    rng = random.Random(7)
    given = 0
    for assignment in SupportAssignment.objects.filter(campaign=campaign).order_by("topic__position"):
        for number in range(len(topic_answers(topic=assignment.topic))):
            page = judging_page(user=assessor_user, assignment_pk=assignment.pk, number=number)
            labels = {f"label-{n['id']}": rng.choice(["support", "partial_support", "not_support"])
                      for n in page.nuggets}
            form = {"answer": page.answer.pk, "submit_key": f"outbox-{assignment.pk}-{number}", **labels}
            response = client.post(f"/assess/support/{assignment.pk}/answers/{number}/", form,
                                   HTTP_ACCEPT="application/json")
            assert response.status_code == 200 and response.json()["complete"] is True, response.content
            given += len(labels)
    assert SupportJudgment.objects.filter(assignment__campaign=campaign).count() == given == 2 * 5 + 2 * 4

    exported = tmp_path / "assignments.jsonl"
    command_output("export_nuggets", "--campaign", "rag", "--assignments", "-o", str(exported))
    records = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 4 and all("Added after the freeze" not in str(r["nuggets"]) for r in records)

    out, _ = command_output("evaluate", "--campaign", "rag", "--per-topic")
    printed = {}
    for line in out.splitlines():
        fields = line.split("\t")
        if len(fields) == 4 and fields[1] in MEASURES:
            printed[(fields[0], fields[1], fields[2])] = fields[3]
    by_run: dict[str, list[dict]] = {}
    for record in records:
        by_run.setdefault(record["run_id"], []).append(record)
        scores = calculate_nugget_scores(record["qid"], record["nuggets"])
        for measure, field in MEASURES.items():
            shown = printed[(record["run_id"], measure, record["qid"])]
            assert shown == _as_printed(getattr(scores, field), shown), (record["run_id"], record["qid"], measure)
    assert sorted(by_run) == sorted(campaign.runs.values_list("name", flat=True))
    for run, its in by_run.items():
        means = calculate_global_metrics(its)
        for measure, field in MEASURES.items():
            shown = printed[(run, measure, "all")]
            assert shown == _as_printed(means[field], shown), (run, measure)
    # The scores are not all alike: the check above compares something.
    assert len({printed[(run, "nugget_all", "all")] for run in by_run}) > 1 or len(set(printed.values())) > 2


def _as_printed(value: float, shown: str) -> str:
    """`value` with as many decimals as evaluate printed."""
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return f"{value:.{decimals}f}"


def test_a_bank_of_unknown_topics_is_refused_with_its_lines_and_nothing_written(campaign, tmp_path):
    lines = [{"query": "q", "qid": "1", "nuggets": [{"text": "It began in Britain", "importance": "vital"}]},
             {"query": "q", "qid": "no-such-topic", "nuggets": [{"text": "x", "importance": "okay"}]},
             {"query": "q", "qid": "another", "nuggets": [{"text": "y", "importance": "vital"}]}]
    bad = tmp_path / "bank.jsonl"
    bad.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    problems = rejected("import_nuggets", "--campaign", "rag", str(bad))
    assert [p for p in problems if "line 2" in p and "no-such-topic" in p]
    assert [p for p in problems if "line 3" in p and "another" in p]
    assert not [p for p in problems if "line 1" in p]
    assert not Nugget.objects.exists() and not NuggetChange.objects.exists()


def test_a_malformed_answer_upload_is_refused_with_its_line_and_nothing_written(campaign, organizer, client):
    client.force_login(organizer)
    good = RUNS[1].read_text(encoding="utf-8").splitlines()[0]
    upload = SimpleUploadedFile("broken.jsonl", (good + "\n" + good[:-12] + "\n").encode("utf-8"))
    before = (Run.objects.count(), RunAnswer.objects.count())
    response = client.post(f"/campaigns/{campaign.pk}/runs/upload/", {"file": upload}, follow=True)
    page = response.content.decode()
    assert response.status_code == 200 and "nothing was written" in page
    assert "broken.jsonl: line 2: invalid JSON" in page
    job = Job.objects.filter(campaign=campaign).order_by("-pk").first()
    assert job.status == Job.Status.FAILED
    assert (Run.objects.count(), RunAnswer.objects.count()) == before


def test_a_citation_to_an_unknown_id_is_a_warning_that_counts_them(campaign, tmp_path):
    line = json.loads(RUNS[1].read_text(encoding="utf-8").splitlines()[1])
    line["metadata"]["run_id"] = "unknown-ids"
    line["references"] = [*line["references"], "msmarco_v2.1_doc_99_1#1_1"]
    line["answer"][2]["citations"] = [0, 2]
    path = tmp_path / "unknown-ids.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    out, _ = command_output("ingest_run", "--campaign", "rag", str(path))
    run = Run.objects.get(campaign=campaign, name="unknown-ids")
    assert "1 citation to 1 id not in the collection 'segments', first line 1" in out
    assert any("not in the collection" in warning for warning in run.warnings)
    assert RunAnswer.objects.filter(run=run).count() == 1  # stored, the warning aside

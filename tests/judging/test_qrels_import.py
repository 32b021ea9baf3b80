"""Official qrels imported as judgments (docs/judging.md, "Importing judgments"): a TREC qrels file (topic iteration
item grade) comes in on the Import judgments page and `import_judgments`, as the judgments of the assessor and kind
the organizer chooses; items outside the pools and topics assigned already are counted and refused, skipped, added
or imported as dual, as chosen; all or nothing. The file is the real ARQMath-1 Task 1 qrels, cut to four topics
(tests/data/arqmath/README.md)."""
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from evaluation.services import qrels_export_lines
from ir.problems import InputError
from jobs.models import Job
from judging.models import Assignment, Judgment
from judging.services import assignments_create, judgments_import, pools_rebuild
from pooling.models import Candidate, PoolItem
from tests.commands import rejected
from tests.factories import CampaignFactory, RunFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db

TOPICS = ("A.1", "A.3", "A.4", "A.5")


@pytest.fixture
def qrels(arqmath_data) -> bytes:
    return (arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt").read_bytes()


def qrels_rows(data: bytes) -> list[tuple[str, str, str]]:
    return [tuple(line.split("\t")[i] for i in (0, 2, 3)) for line in data.decode().splitlines() if line.strip()]


@pytest.fixture
def campaign(qrels):
    """Campaign "arq1" with the four topics of the cut qrels; each pool holds the topic's first 5 qrels posts only."""
    campaign = CampaignFactory(name="arq1")
    topics = {topic_id: TopicFactory(campaign=campaign, topic_id=topic_id) for topic_id in TOPICS}
    first: dict[str, list[str]] = {}
    for topic_id, item, _grade in qrels_rows(qrels):
        first.setdefault(topic_id, [])
        if len(first[topic_id]) < 5:
            first[topic_id].append(item)
    PoolItem.objects.bulk_create(PoolItem(campaign=campaign, topic=topics[t], item_id=item, position=n)
                                 for t, items in first.items() for n, item in enumerate(items))
    return campaign


@pytest.mark.usefixtures("jobs_run_on_commit")
def test_the_official_arqmath1_qrels_come_in_on_the_web_in_one_pass(client, organizer, campaign, qrels):
    """Topic A.5 is assigned officially to assessor1 already: its lines are imported as dual judgments."""
    assessor1 = UserFactory(username="assessor1")
    assignments_create(campaign=campaign, assessors=[assessor1], topic_ids=["A.5"])
    client.force_login(organizer)
    response = client.post(f"/campaigns/{campaign.pk}/judgments/import/", {
        "file": SimpleUploadedFile("qrels.arqmath-2020-task1.txt", qrels), "assessor": "imported",
        "kind": "official", "outside": "add", "assigned": "dual"}, follow=True)
    page = response.content.decode()
    assert Job.objects.get().status == Job.Status.DONE, page
    rows = qrels_rows(qrels)
    assert len(rows) == 1941
    assert "Imported 1,941 judgments from qrels.arqmath-2020-task1.txt: 1,941 new" in page
    assert "1,921 lines of items outside the pools: 1,921 items added to the pools." in page
    assert "1 topic assigned officially to another assessor imported as dual judgments (A.5)." in page
    assert Judgment.objects.count() == 1941
    assert PoolItem.objects.filter(campaign=campaign).count() == 1941
    # The campaign's qrels are the file's lines of the topics it took officially, and A.5's lines are dual.
    exported = [tuple(line.rstrip("\n").split("\t")[i] for i in (0, 2, 3)) for line in qrels_export_lines(
        campaign=campaign)]
    assert sorted(exported) == sorted(r for r in rows if r[0] != "A.5")
    dual = Judgment.objects.filter(assignment__kind=Assignment.Kind.DUAL, assignment__assessor__username="imported")
    assert sorted(dual.values_list("item_id", "grade")) == sorted((i, g) for t, i, g in rows if t == "A.5")


def test_importing_the_same_qrels_again_duplicates_nothing(campaign, qrels):
    first = judgments_import(campaign=campaign, lines=io.BytesIO(qrels), assessor="imported", outside="add")
    again = judgments_import(campaign=campaign, lines=io.BytesIO(qrels), assessor="imported", outside="add")
    assert (first.created, first.added_to_pool) == (1941, 1921)
    assert (again.created, again.unchanged, again.added_to_pool, again.outside_pool) == (0, 1941, 0, 0)
    assert Judgment.objects.count() == 1941


def test_items_outside_the_pool_are_counted_and_the_refusal_says_the_choices(campaign, qrels):
    with pytest.raises(InputError) as refused:
        judgments_import(campaign=campaign, lines=io.BytesIO(qrels), assessor="imported", filename="q.txt")
    messages = refused.value.messages()
    assert any("is not in the pool of topic A.1 (1,921 like this one" in m for m in messages), messages
    assert any("1,921 lines name items outside the pools: choose to skip them or to add them to the pools" in m
               for m in messages), messages
    assert not Judgment.objects.exists() and not Assignment.objects.exists()


def test_skipped_items_outside_the_pool_are_counted_and_the_pooled_ones_imported(campaign, qrels):
    result = judgments_import(campaign=campaign, lines=io.BytesIO(qrels), assessor="imported", outside="skip")
    assert (result.judgments, result.created, result.outside_pool, result.added_to_pool) == (20, 20, 1921, 0)
    assert PoolItem.objects.filter(campaign=campaign).count() == 20


def test_a_topic_assigned_already_is_refused_with_the_choices_or_skipped(campaign, qrels):
    assignments_create(campaign=campaign, assessors=[UserFactory(username="assessor1")], topic_ids=["A.1"])
    with pytest.raises(InputError) as refused:
        judgments_import(campaign=campaign, lines=io.BytesIO(qrels), assessor="imported", outside="add")
    assert any("topic A.1 is already assigned officially to assessor1: withdraw that assignment first, or choose "
               "to import its lines as dual judgments or to skip them" in m for m in refused.value.messages())
    assert not Judgment.objects.exists() and PoolItem.objects.filter(campaign=campaign).count() == 20
    result = judgments_import(campaign=campaign, lines=io.BytesIO(qrels), assessor="imported", outside="add",
                              assigned="skip")
    assert (result.created, result.skipped_assigned) == (1941 - 476, 476)
    assert not Judgment.objects.filter(assignment__topic__topic_id="A.1").exists()


def test_a_grade_outside_the_scheme_is_refused_with_its_line_and_nothing_is_written(campaign, qrels):
    bad = qrels.replace(b"A.1\t0\t2761594\t2\r\n", b"A.1\t0\t2761594\t4\r\n")
    with pytest.raises(InputError) as refused:
        judgments_import(campaign=campaign, lines=io.BytesIO(bad), assessor="imported", outside="add",
                         filename="q.txt")
    assert [(p.line, p.message) for p in refused.value.problems] == [
        (2, "'4' is not a grade: use 3, 2, 1, 0, SF or DK")]
    assert not Judgment.objects.exists() and PoolItem.objects.filter(campaign=campaign).count() == 20
    assert not Candidate.objects.exists()


def test_a_qrels_file_without_an_assessor_is_refused_naming_the_choice(campaign, qrels, tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes(qrels)
    lines = rejected("import_judgments", "--campaign", "arq1", str(path))
    assert any("q.txt is a TREC qrels file, which names no assessor: choose whose judgments these are" in line
               for line in lines), lines
    assert not Judgment.objects.exists()


def test_a_four_column_line_in_a_judgments_tsv_points_at_the_qrels_import(campaign):
    with pytest.raises(InputError) as refused:
        judgments_import(campaign=campaign, lines=["ada\tA.1\t2190525\t0\t", "A.1 0 2761594 2"])
    assert any(p.line == 2 and "found 1: a TREC qrels file (topic iteration item grade) is imported whole, with the "
               "assessor and kind chosen on the form (import_judgments --assessor USER --kind KIND)" in p.message
               for p in refused.value.problems), refused.value.messages()


def test_the_command_imports_qrels_as_training_and_a_rebuild_keeps_the_items_it_added(campaign, qrels, tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes(qrels)
    RunFactory(campaign=campaign)  # a run with no rows: the rebuilt pools hold only what the import added
    call_command("import_judgments", "--campaign", "arq1", "--assessor", "bea", "--kind", "training",
                 "--round", "2", "--outside", "add", str(path), stdout=io.StringIO())
    assert set(Assignment.objects.values_list("assessor__username", "kind", "round")) == {("bea", "training", 2)}
    pools_rebuild(campaign=campaign, force=True)
    assert PoolItem.objects.filter(campaign=campaign).count() == 1921  # the 20 pooled by hand had no run

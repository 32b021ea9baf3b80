"""load_demo: the demo campaigns are loaded through the ingestion services, their pools built, with accounts that
can log in."""
from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.core.management import CommandError, call_command

from core.permissions import is_organizer
from judging.models import Assignment
from pooling.models import Campaign, Candidate, Collection, PoolInstance, PoolItem, Run
from workflow.demo import CAMPAIGNS, COLLECTION, MATHOVERFLOW

pytestmark = pytest.mark.django_db


def test_load_demo_builds_both_campaigns_and_prints_working_passwords(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    out = StringIO()
    call_command("load_demo", "--force", stdout=out)
    text = out.getvalue()
    collection = Collection.objects.get(name=COLLECTION)
    assert collection.posts.count() > 10000 and collection.formulas.count() > 10000
    for task, name in CAMPAIGNS.items():
        campaign = Campaign.objects.get(name=name)
        assert campaign.task == task and campaign.topics.count() == 100
        runs = Run.objects.filter(campaign=campaign)
        # The Task 1 campaign has two ARQMath-3 Task 3 runs beside its six (a generated one and an extracted one).
        task3 = runs.filter(format=Run.Format.ARQMATH_TASK3)
        assert runs.count() - task3.count() == 6 and {r.alternate for r in runs} == {True, False}
        assert sorted(run.name.split("-")[-2] for run in task3) == (
            ["extract", "generate"] if task == "answers" else [])
        assert all(not r.warnings for r in runs)
        # The pools are built through the service, and their sizes printed.
        items = PoolItem.objects.filter(campaign=campaign)
        assert items.values("topic").distinct().count() > 50
        assert f"campaign '{name}': pools built, {items.count()} " in text
    formulas = Campaign.objects.get(name=CAMPAIGNS["formulas"])
    selected = PoolInstance.objects.filter(item__campaign=formulas, selected=True).count()
    assert selected > 0 and f"{selected} formula instances to judge" in text
    assert not PoolInstance.objects.filter(item__campaign__name=CAMPAIGNS["answers"]).exists()
    # Every Task 3 answer is in the Task 1 pools, among the posts.
    answers = PoolItem.objects.filter(campaign__name=CAMPAIGNS["answers"], item_id__startswith="d_")
    assert answers.values("topic").distinct().count() == 100 and answers.count() >= 100
    # The MathOverflow-style campaign: the mo-facets scheme, 5 questions of 1-3 micro-topics each, no runs, its
    # candidates (answers of the demo collection) pooled, and assessor1 given every micro-topic.
    mo = Campaign.objects.get(name=MATHOVERFLOW)
    assert mo.collection == collection and mo.scheme["name"] == "mo-facets" and not mo.runs.exists()
    parents = {}
    for topic in mo.topics.all():
        parents.setdefault(topic.parent, []).append(topic.topic_id)
    assert len(parents) == 5 and all(1 <= len(micro) <= 3 for micro in parents.values())
    assert all(topic.prelude for topic in mo.topics.all())
    candidates = set(Candidate.objects.filter(campaign=mo).values_list("topic__topic_id", "item_id"))
    pooled = set(PoolItem.objects.filter(campaign=mo).values_list("topic__topic_id", "item_id"))
    assert candidates and pooled == candidates
    assert {item for _, item in pooled} <= {str(pk) for pk in collection.posts.values_list("post_id", flat=True)}
    assigned = Assignment.objects.filter(campaign=mo)
    assert {a.assessor.username for a in assigned} == {"assessor1"}
    assert sorted(assigned.values_list("topic__topic_id", flat=True)) == sorted(
        mo.topics.values_list("topic_id", flat=True))
    passwords = dict(line.split()[2:5:2] for line in text.splitlines() if " password " in line)
    organizer = authenticate(username="organizer", password=passwords["organizer"])
    assert organizer is not None and is_organizer(organizer)
    assessor = authenticate(username="assessor1", password=passwords["assessor1"])
    assert assessor is not None and not is_organizer(assessor)

    before_items = PoolItem.objects.count()
    again = StringIO()
    call_command("load_demo", "--force", stdout=again)
    assert "already loaded" in again.getvalue()
    assert Run.objects.count() == 17  # 8 + 6 + the RAG campaign's 3
    assert PoolItem.objects.count() == before_items  # loaded once: the pools are not built again


def test_load_demo_refuses_to_add_accounts_to_a_deployment_without_force():
    err = StringIO()
    with pytest.raises(CommandError) as info:
        call_command("load_demo", stderr=err)
    assert info.value.returncode == 2 and "looks like a deployment" in err.getvalue()
    assert not Collection.objects.exists()

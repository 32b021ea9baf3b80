"""`make demo PORT=8001` (or PORT in the environment) serves the demo on another port and says so."""
import os
import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _demo_commands(*args, env=None) -> str:
    # -n: the commands make would run, none of them run.
    return subprocess.run(["make", "-n", "demo", *args], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})}).stdout


def test_make_demo_serves_on_the_port_given():
    for commands in (_demo_commands("PORT=8001"), _demo_commands(env={"PORT": "8001"})):
        assert "manage.py load_demo --port 8001" in commands
        assert "manage.py runserver 127.0.0.1:8001" in commands


def test_make_demo_serves_on_8000_by_default():
    env = {k: v for k, v in os.environ.items() if k != "PORT"}
    commands = subprocess.run(["make", "-n", "demo"], cwd=ROOT, capture_output=True, text=True, check=True,
                              env=env).stdout
    assert "manage.py runserver 127.0.0.1:8000" in commands


def test_make_demo_installs_the_runtime_requirements_only(tmp_path):
    # A fresh machine (no venv yet): the demo installs what the service runs on, not the suite's tools.
    commands = _demo_commands(f"VENV={tmp_path / 'venv'}")
    assert "pip install --quiet -r requirements.txt" in commands
    assert "requirements-dev.txt" not in commands
    test_commands = subprocess.run(["make", "-n", "test", f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True,
                                   text=True, check=True).stdout
    assert "-r requirements-dev.txt" in test_commands


@pytest.mark.django_db
def test_the_demo_has_a_rag_campaign_with_curated_banks_and_nugget_scores(settings, tmp_path):
    from django.core.management import call_command

    from nuggets.models import Nugget, NuggetChange, SupportAssignment, SupportJudgment
    from pooling.models import AnswerSentence, Campaign, PoolItem
    from workflow.demo import RAG

    settings.DATA_DIR = tmp_path
    call_command("load_demo", "--force", stdout=StringIO())
    campaign = Campaign.objects.get(name=RAG)
    assert campaign.task == "answers" and campaign.topics.count() == 5
    assert sorted(campaign.runs.values_list("name", flat=True)) == ["rag-alpha-cite", "rag-beta-cite",
                                                                    "rag-gamma-cite"]
    assert all(not run.warnings for run in campaign.runs.all())
    # Every cited post is in its topic's pool.
    cited = {(s.answer.topic.topic_id, c) for s in AnswerSentence.objects.filter(answer__run__campaign=campaign)
             .select_related("answer__topic") for c in s.citations}
    assert cited and cited <= set(PoolItem.objects.filter(campaign=campaign)
                                  .values_list("topic__topic_id", "item_id"))
    # Each bank drafted and curated: drafts accepted, nuggets written, a draft rejected, vital and okay ones.
    for topic in campaign.topics.all():
        nuggets = Nugget.objects.filter(topic=topic)
        kept = nuggets.filter(status="accepted")
        assert {n.source for n in kept} >= {"drafted", "written"}
        assert {n.importance for n in kept} == {"vital", "okay"}
        assert nuggets.filter(status="rejected", source="drafted").count() == 1
        actions = set(NuggetChange.objects.filter(nugget__topic=topic).values_list("action", flat=True))
        assert actions >= {"draft", "accept", "reject", "add"}
    assert Nugget.objects.filter(campaign=campaign, status="draft").count() == 1
    assert Nugget.objects.filter(campaign=campaign, source="selected").count() == 1
    # Support assignments froze the first banks; two topics judged against them, with their citations.
    official = SupportAssignment.objects.filter(campaign=campaign, task="nuggets", kind="official")
    assert official.count() == 3 and all(a.bank is not None for a in official)
    assert SupportJudgment.objects.filter(assignment__campaign=campaign).values("answer__topic").distinct().count() == 2
    # The nugget scores of every run, in evaluate's output (and so on the leaderboard).
    out = StringIO()
    call_command("evaluate", "--campaign", RAG, stdout=out)
    rows = [line.split("\t") for line in out.getvalue().splitlines()]
    means = {(run, measure): value for run, measure, topic, value in (r for r in rows if len(r) == 4)
             if topic == "all"}
    for run in ("rag-alpha-cite", "rag-beta-cite", "rag-gamma-cite"):
        for measure in ("nugget_vital", "nugget_strict_vital", "nugget_all", "nugget_strict_all",
                        "support_precision", "support_recall"):
            assert 0 <= float(means[(run, measure)]) <= 1
    assert float(means[("rag-alpha-cite", "nugget_all")]) > float(means[("rag-gamma-cite", "nugget_all")])

    # Loaded again: nobody's work changes.
    before = (Nugget.objects.count(), NuggetChange.objects.count(), SupportJudgment.objects.count())
    call_command("load_demo", "--force", stdout=StringIO())
    assert (Nugget.objects.count(), NuggetChange.objects.count(), SupportJudgment.objects.count()) == before

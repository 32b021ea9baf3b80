"""Undo commands (SPEC 9 style): delete_run, replace_run, edit_campaign, delete_campaign; refusals exit 2."""
import pytest

from judging.models import Judgment
from pooling import services
from pooling.models import Campaign, PoolItem, RunEntry
from tests.commands import command_output, rejected
from tests.factories import CampaignFactory, RunEntryFactory, RunFactory, TopicFactory
from tests.pooling.run_files import answers_campaign, task1_lines
from tests.pooling.undo_data import judged  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_delete_run_reports_the_rebuilt_pools(tmp_path):
    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    out, err = command_output("delete_run", "--campaign", "answers", "r3")
    assert out.splitlines() == ["deleted run 'r3' (4 rows)", "pools rebuilt: 8 items in 2 topics"]
    assert err == "" and not campaign.runs.filter(name="r3").exists()


def test_delete_run_once_judged_exits_2_unless_forced(judged):  # noqa: F811
    lines = rejected("delete_run", "--campaign", "answers", "r3")
    assert lines == ["judging has started in campaign 'answers' (2 judged items in 1 topics): run 'r3' was not "
                     "deleted. Forced, the pools are rebuilt and every judgment is kept (the judged items the new "
                     "pools leave out are listed)"]
    out, err = command_output("delete_run", "--campaign", "answers", "r3", "--force")
    assert err.splitlines() == ["topic A.1: judged item 15 is no longer in the pool; its judgments are kept"]
    assert Judgment.objects.count() == 2


def test_delete_run_names_an_unknown_run():
    CampaignFactory(name="c")
    assert rejected("delete_run", "--campaign", "c", "nope") == ["campaign 'c' has no run named 'nope'"]


def test_replace_run_keeps_the_options(tmp_path):
    campaign = answers_campaign(tmp_path)
    path = tmp_path / "x.tsv"
    path.write_text("".join("\t".join(x) + "\n" for x in task1_lines("A.2", ["5", "6"], "x")))
    out, _ = command_output("replace_run", "--campaign", "answers", "r2", str(path))
    assert out.splitlines()[-1] == "replaced run 'r2' (alternate, ARQMath Task 1 (5 columns)): 2 rows for 1 topics"
    assert campaign.runs.get(name="r2").alternate


def test_edit_campaign_changes_settings_and_refuses_pool_settings_of_built_pools(tmp_path):
    campaign = answers_campaign(tmp_path)
    out, _ = command_output("edit_campaign", "answers", "--name", "a2", "--primary-depth", "2", "--seed", "-5")
    assert out.startswith("campaign 'a2' (answers): depth 2 primary / 2 alternate, 5 instances, rr-vote, seed -5")
    services.pool_build(campaign=campaign, judged_items={})
    lines = rejected("edit_campaign", "a2", "--alternate-depth", "1")
    assert lines[0].startswith("the pools are built: alternate depth would change what they hold")
    out, _ = command_output("edit_campaign", "a2", "--alternate-depth", "1", "--force")
    assert out.splitlines()[-1] == f"pools rebuilt: {PoolItem.objects.filter(campaign=campaign).count()} items " \
                                   "in 2 topics"


def test_edit_campaign_refuses_values_out_of_the_columns_range(tmp_path):
    answers_campaign(tmp_path)
    assert rejected("edit_campaign", "answers", "--instances", str(2**31)) == \
        ["instances must be at most 2,147,483,647, not 2,147,483,648"]


def test_delete_campaign_and_its_refusal(judged, tmp_path):  # noqa: F811
    lines = rejected("delete_campaign", "answers")
    assert lines[0].startswith("campaign 'answers' has judgments (2 judged items) and is kept")
    run = RunFactory(campaign__name="unjudged", campaign__task="formulas", row_count=3)
    RunEntryFactory.create_batch(3, run=run, topic=TopicFactory(campaign=run.campaign))
    out, _ = command_output("delete_campaign", "unjudged")
    assert out.strip() == "deleted campaign 'unjudged': 1 topics, 1 runs (3 rows), 0 pool items, 0 jobs"
    assert not Campaign.objects.filter(pk=run.campaign_id).exists() and Campaign.objects.filter(name="answers").exists()
    assert not RunEntry.objects.filter(run_id=run.pk).exists()

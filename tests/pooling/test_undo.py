"""Undoing a mistake (the services): deleting and replacing runs, editing and deleting campaigns; judgments stay."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ir.problems import InputError
from judging import services as assessor_services
from judging.models import Assignment, ItemVisit
from pooling import services
from pooling.models import Campaign, PoolItem, Run, RunEntry, Topic
from tests.judging.fixtures import assign
from tests.pooling.run_files import answers_campaign, ingest, task1_lines
from tests.pooling.undo_data import judged, judgment_rows, pooled  # noqa: F401 (judged: a fixture)

pytestmark = pytest.mark.django_db


# --- what a judgment hangs on -----------------------------------------------------------------------------------

def test_judgments_do_not_hang_on_pool_rows(judged):  # noqa: F811
    """The pool rows a rebuild deletes are not what judgments refer to: deleting every pool row of the campaign,
    as Django would, leaves every judgment and revision."""
    before = judgment_rows()
    PoolItem.objects.filter(campaign=judged).delete()
    assert judgment_rows() == before and len(before[0]) == 2 and len(before[1]) == 3


# --- runs ----------------------------------------------------------------------------------------------------------

def test_deleting_a_run_before_judging_removes_its_rows_and_rebuilds_the_pools(tmp_path):
    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    assert "15" in pooled(campaign)
    r3 = campaign.runs.get(name="r3")
    after = assessor_services.run_delete(run=r3)
    assert not Run.objects.filter(pk=r3.pk).exists() and not RunEntry.objects.filter(run_id=r3.pk).exists()
    assert pooled(campaign) == {"10", "11", "12", "14"}  # 15 came from r3 alone
    assert after.rebuilt.items == PoolItem.objects.filter(campaign=campaign).count() and after.unpooled == []
    assert all("r3" not in str(p) for p in PoolItem.objects.filter(campaign=campaign).values_list("provenance"))


def _entry_statements(queries) -> list[str]:
    table = RunEntry._meta.db_table
    return [q["sql"].split()[0].upper() for q in queries if table in q["sql"]]


def test_a_deleted_runs_rows_go_in_one_statement_without_being_read(tmp_path):
    """A run of millions of rows: they are deleted by one DELETE, never read into memory first."""
    campaign = answers_campaign(tmp_path)
    with CaptureQueriesContext(connection) as queries:
        assessor_services.run_delete(run=campaign.runs.get(name="r1"))
    assert _entry_statements(queries) == ["DELETE"]
    assert RunEntry.objects.filter(run__campaign=campaign).count() == 10  # r2's and r3's rows stay


def test_a_deleted_campaigns_run_rows_are_not_read(tmp_path):
    campaign = answers_campaign(tmp_path)
    assessor_services.campaign_delete_start(campaign=campaign)
    with CaptureQueriesContext(connection) as queries:
        assessor_services.campaign_delete(campaign=Campaign.objects.get(pk=campaign.pk))
    assert "SELECT" not in _entry_statements(queries) and not RunEntry.objects.exists()


def test_deleting_a_run_before_pools_leaves_no_pools(tmp_path):
    campaign = answers_campaign(tmp_path)
    after = assessor_services.run_delete(run=campaign.runs.get(name="r1"))
    assert after.rebuilt is None and not PoolItem.objects.filter(campaign=campaign).exists()
    assert sorted(campaign.runs.values_list("name", flat=True)) == ["r2", "r3"]


def test_a_run_deleted_meanwhile_is_not_deleted_or_replaced_twice(tmp_path):
    campaign = answers_campaign(tmp_path)
    stale = campaign.runs.get(name="r3")
    assessor_services.run_delete(run=campaign.runs.get(name="r3"))
    with pytest.raises(InputError, match="run 'r3' no longer exists in campaign 'answers'"):
        assessor_services.run_delete(run=stale)
    path = tmp_path / "new.tsv"
    path.write_text("A.1\t10\t1\t1.0\tx\n")
    with pytest.raises(InputError, match="no longer exists"):
        assessor_services.run_replace(run=stale, path=path)
    assert not campaign.runs.filter(name="r3").exists()


def test_deleting_a_run_once_judged_is_refused_without_force(judged):  # noqa: F811
    r3 = judged.runs.get(name="r3")
    with pytest.raises(InputError, match=r"judging has started .*\(2 judged items in 1 topics\): run 'r3' was not "
                                         r"deleted. Forced"):
        assessor_services.run_delete(run=r3)
    assert Run.objects.filter(pk=r3.pk).exists() and RunEntry.objects.filter(run_id=r3.pk).count() == 4
    assert "15" in pooled(judged)


def test_forced_delete_rebuilds_the_pools_and_keeps_every_judgment_and_revision(judged):  # noqa: F811
    before = judgment_rows()
    after = assessor_services.run_delete(run=judged.runs.get(name="r3"), force=True)
    assert not judged.runs.filter(name="r3").exists()
    assert pooled(judged) == {"10", "11", "12", "14"}
    assert after.unpooled == [["A.1", "15"]]
    assert after.messages() == ["topic A.1: judged item 15 is no longer in the pool; its judgments are kept"]
    assert judgment_rows() == before


def test_a_forced_delete_recounts_what_the_assessor_has_completed_against_the_new_pools(judged):  # noqa: F811
    done = dict(ItemVisit.objects.values_list("item_id", "completed_at"))
    assert done["15"] is not None and done["10"] is not None
    assessor_services.run_delete(run=judged.runs.get(name="r3"), force=True)
    # 15 left the pools: no longer a completed item of the assignment; 10 is still pooled and judged.
    assert dict(ItemVisit.objects.values_list("item_id", "completed_at")) == {"15": None, "10": done["10"]}


def test_forced_delete_of_the_last_run_empties_the_pools_and_keeps_judgments(judged):  # noqa: F811
    before = judgment_rows()
    for name in ("r1", "r2"):
        assessor_services.run_delete(run=judged.runs.get(name=name), force=True)
    after = assessor_services.run_delete(run=judged.runs.get(name="r3"), force=True)
    assert not PoolItem.objects.filter(campaign=judged).exists()
    assert after.unpooled == [["A.1", "10"], ["A.1", "15"]]
    assert judgment_rows() == before


def test_replacing_a_run_keeps_its_name_and_options_and_rebuilds_the_pools(tmp_path):
    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    r2 = campaign.runs.get(name="r2")
    path = tmp_path / "new.tsv"
    path.write_text("".join("\t".join(x) + "\n" for x in task1_lines("A.1", ["77", "10"], "new")))
    run, after = assessor_services.run_replace(run=r2, path=path)
    assert (run.name, run.alternate, run.depth, run.row_count, run.tag) == ("r2", True, None, 2, "new")
    assert campaign.runs.count() == 3
    assert pooled(campaign) == {"10", "11", "12", "15", "77"}  # r2 now pools 77 and 10 at alternate depth 2
    assert after.rebuilt is not None


def test_a_rejected_replacement_changes_nothing(tmp_path):
    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    r3 = campaign.runs.get(name="r3")
    path = tmp_path / "bad.tsv"
    path.write_text("A.9\t10\t1\t1.0\tx\n")
    with pytest.raises(InputError, match="A.9"):
        assessor_services.run_replace(run=r3, path=path)
    r3.refresh_from_db()
    assert (r3.depth, r3.row_count, RunEntry.objects.filter(run=r3).count()) == (1, 4, 4)
    assert "15" in pooled(campaign)


def test_replacing_a_run_once_judged_needs_force_and_keeps_judgments(judged, tmp_path):  # noqa: F811
    r3 = judged.runs.get(name="r3")
    path = tmp_path / "r3new.tsv"
    path.write_text("".join("\t".join(x) + "\n" for x in task1_lines("A.1", ["16"], "r3")))
    with pytest.raises(InputError, match="run 'r3' was not replaced"):
        assessor_services.run_replace(run=r3, path=path)
    before = judgment_rows()
    run, after = assessor_services.run_replace(run=r3, path=path, force=True)
    assert run.depth == 1 and "16" in pooled(judged) and "15" not in pooled(judged)
    assert after.unpooled == [["A.1", "15"]]
    assert judgment_rows() == before


# --- campaign settings -----------------------------------------------------------------------------------------

def test_settings_change_freely_before_the_pools_are_built(tmp_path):
    campaign = answers_campaign(tmp_path)
    campaign, after = assessor_services.campaign_update(campaign=campaign, name=" renamed ", primary_depth=1,
                                               alternate_depth=1, seed=7, max_depth=2000)
    campaign.refresh_from_db()
    assert (campaign.name, campaign.primary_depth, campaign.alternate_depth, campaign.seed, campaign.max_depth) == \
        ("renamed", 1, 1, 7, 2000)
    assert after.rebuilt is None


def test_pool_settings_are_refused_once_the_pools_are_built_but_the_name_may_change(tmp_path):
    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    with pytest.raises(InputError, match=r"the pools are built: primary depth, seed would change what they hold"):
        assessor_services.campaign_update(campaign=campaign, name="renamed", primary_depth=1, seed=3)
    campaign.refresh_from_db()
    assert (campaign.name, campaign.primary_depth, campaign.seed) == ("answers", 3, 0)
    assessor_services.campaign_update(campaign=campaign, name="renamed", primary_depth=3)  # unchanged depth: fine
    assert Campaign.objects.get(pk=campaign.pk).name == "renamed"


def test_forced_settings_change_rebuilds_the_pools_and_keeps_judgments(judged):  # noqa: F811
    before = judgment_rows()
    campaign, after = assessor_services.campaign_update(campaign=judged, primary_depth=1, force=True)
    assert campaign.primary_depth == 1
    assert pooled(judged) == {"10", "12", "14", "15"}  # r1 and r3 to depth 1, r2 (alternate) to 2: 11 leaves
    assert after.unpooled == []
    assert judgment_rows() == before


@pytest.mark.parametrize(("changes", "message"), [
    ({"primary_depth": 0}, "primary depth must be at least 1, not 0"),
    ({"instances": 2**31}, "instances must be at most 2,147,483,647, not 2,147,483,648"),
    ({"seed": 2**63}, "seed must be at most 9,223,372,036,854,775,807, not 9,223,372,036,854,775,808"),
    ({"selection": "best"}, "selection: Value 'best' is not a valid choice."),
    ({"name": "x" * 101}, "a campaign name has at most 100 characters"),
    ({"name": "other"}, "a campaign named 'other' already exists"),
    ({"max_depth": 10}, "the maximum run depth cannot go below 1000"),
])
def test_settings_out_of_range_are_refused_with_the_field(tmp_path, changes, message):
    campaign = answers_campaign(tmp_path)
    Campaign.objects.create(name="other", task="answers", primary_depth=1, alternate_depth=1)
    with pytest.raises(InputError) as info:
        assessor_services.campaign_update(campaign=campaign, **changes)
    assert message in info.value.messages()[0]
    assert Campaign.objects.filter(name="answers", primary_depth=3, instances=5, seed=0, max_depth=1000).exists()


def test_the_collection_changes_only_while_the_campaign_has_no_run(tmp_path):
    campaign = Campaign.objects.create(name="c", task="answers", primary_depth=1, alternate_depth=1)
    campaign, _ = assessor_services.campaign_update(campaign=campaign, collection_name="mse")
    assert campaign.collection.name == "mse"
    Topic.objects.create(campaign=campaign, topic_id="A.1")
    ingest(campaign, tmp_path, "r", task1_lines("A.1", ["1"], "r"))
    with pytest.raises(InputError, match="the collection cannot change"):
        assessor_services.campaign_update(campaign=campaign, collection_name="other")


# --- deleting a campaign ---------------------------------------------------------------------------------------

def test_deleting_a_campaign_without_judgments_deletes_everything_it_holds(tmp_path, django_user_model):
    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    assign(campaign, django_user_model.objects.create_user("ada"), "A.1")  # assigned, nothing judged yet
    contents = assessor_services.campaign_delete(campaign=campaign)
    assert (contents.topics, contents.runs, contents.run_rows, contents.pool_items) == (2, 3, 18, 9)
    assert not Campaign.objects.exists() and not Topic.objects.exists() and not RunEntry.objects.exists()
    assert not PoolItem.objects.exists() and not Assignment.objects.exists()


def test_a_campaign_with_judgments_is_never_deleted(judged):  # noqa: F811
    before = judgment_rows()
    with pytest.raises(InputError, match=r"has judgments \(2 judged items\) and is kept: nothing an assessor "
                                         r"submitted is ever deleted. Export its qrels"):
        assessor_services.campaign_delete(campaign=judged)
    assert Campaign.objects.filter(pk=judged.pk).exists() and judged.runs.count() == 3
    assert judgment_rows() == before


def test_an_answers_campaign_takes_formula_settings_without_a_rebuild(tmp_path):
    campaign = answers_campaign(tmp_path)
    services.pool_build(campaign=campaign, judged_items={})
    campaign, after = assessor_services.campaign_update(campaign=campaign, instances=3, selection="thread-spread")
    assert (campaign.instances, campaign.selection, after.rebuilt) == (3, "thread-spread", None)
    with pytest.raises(InputError, match="a collection name has at most 100 characters"):
        assessor_services.campaign_update(campaign=Campaign.objects.create(name="new", task="answers", primary_depth=1,
                                                                  alternate_depth=1), collection_name="c" * 101)


def test_uploading_a_run_under_a_taken_name_points_to_replace(tmp_path):
    campaign = answers_campaign(tmp_path)
    with pytest.raises(InputError, match="already has a run named 'r1': replace that run to give it a new file"):
        ingest(campaign, tmp_path, "r1", task1_lines("A.1", ["1"], "r1"))

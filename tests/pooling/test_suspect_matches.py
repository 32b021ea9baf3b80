"""Real ARQMath-1 runs uploaded into the demo collection: most of their ids are posts it lacks, so the few that match
are other posts sharing the number. The run is flagged, its matching ids stay out of the pools (and the planner)
until the organizer confirms them, and the pools and judging pages say so (docs/pooling.md, "Suspect matches")."""
import pytest

from ir.pools.formulas import pool_formulas
from ir.pools.posts import pool_answers
from ir.problems import InputError
from pooling import selectors, services
from pooling.models import Campaign, PoolItem, Post, Run
from pooling.ranking import suspect_items
from tests.factories import CampaignFactory, CollectionFactory, PostFactory, TopicFactory
from tests.pooling.run_files import ingest, task1_lines
from workflow.demo.generate import generate_demo

pytestmark = pytest.mark.django_db

REAL_RUNS = ("ensemble-task1.tsv", "psu-task1-auto-both-A.tsv")  # cut copies: topics A.1-A.5, 1,000 rows each


@pytest.fixture
def demo_campaign(tmp_path, arqmath_data):
    """The demo collection's posts, the ARQMath-1 topics, the two real Task 1 runs kept with allow_missing; every rank
    pooled (depth 1000), so each id the runs share with the demo collection would be pooled."""
    files = generate_demo(tmp_path / "demo")
    services.collection_ingest(collection_name="demo", paths=[files.posts])
    campaign = services.campaign_create(name="arqmath1-in-demo", task="answers", collection_name="demo",
                                        primary_depth=1000, alternate_depth=1000)
    services.topics_ingest(campaign=campaign, path=arqmath_data / "topics" / "topics.arqmath-2020-task1-origin.xml")
    for name in REAL_RUNS:
        services.run_ingest(campaign=campaign, path=arqmath_data / "runs" / name, allow_missing=True)
    return campaign


def _pooled_matches(campaign: Campaign) -> set[str]:
    pooled = set(PoolItem.objects.filter(campaign=campaign).values_list("item_id", flat=True))
    return pooled & set(Post.objects.filter(collection=campaign.collection, post_id__in=pooled)
                        .values_list("post_id", flat=True))


def test_real_runs_in_the_demo_collection_are_flagged_and_their_matches_kept_out_of_the_pool(demo_campaign,
                                                                                             client, organizer):
    ensemble = Run.objects.get(campaign=demo_campaign, name="ensemble-task1")
    psu = Run.objects.get(campaign=demo_campaign, name="psu-task1-auto-both-A")
    assert ensemble.mostly_missing and ensemble.suspect and psu.mostly_missing
    assert ": 30 rows whose post id the collection has are suspect" in " ".join(ensemble.warnings)
    # Answer 4401 of the demo collection is the ensemble run's A.5 rank 367: an unrelated post sharing the number.
    assert "4401" in suspect_items(demo_campaign)["ensemble-task1"]

    services.pool_build(campaign=demo_campaign, judged_items={})
    assert _pooled_matches(demo_campaign) == set()
    assert not PoolItem.objects.filter(campaign=demo_campaign, item_id="4401").exists()
    plan = selectors.pool_plan_compute(campaign=demo_campaign, depths=[1000], seconds_per_judgment=None)
    assert plan[0].items == PoolItem.objects.filter(campaign=demo_campaign).count()

    client.force_login(organizer)
    page = client.get(f"/campaigns/{demo_campaign.pk}/pools/").content.decode()
    assert 'id="pools-suspect-runs"' in page
    assert "Run ensemble-task1: its ids found in the collection are kept out" in page
    assert "suspect ids" in client.get(f"/campaigns/{demo_campaign.pk}/").content.decode()

    # The organizer confirms: the next build pools them, and a judging page would mark them suspect.
    response = client.post(f"/campaigns/{demo_campaign.pk}/runs/{ensemble.pk}/matches/", {"confirmed": "1"})
    assert response.status_code == 302
    ensemble.refresh_from_db()
    assert ensemble.matches_confirmed and not ensemble.suspect
    services.pool_build(campaign=demo_campaign, judged_items={})
    assert len(_pooled_matches(demo_campaign)) == 30
    item = PoolItem.objects.get(campaign=demo_campaign, item_id="4401")
    assert selectors.pool_item_suspect(item=item)
    assert "confirmed and pooled" in client.get(f"/campaigns/{demo_campaign.pk}/pools/").content.decode()
    # The assessor judging it is told so on the judging page.
    from judging import services as assessor_services
    from tests.factories import UserFactory

    assessor = UserFactory(username="judge-suspect")
    [assignment] = assessor_services.assignments_create(campaign=demo_campaign, assessors=[assessor],
                                                        topic_ids=[item.topic.topic_id]).created
    client.force_login(assessor)
    page = client.get(f"/assess/assignments/{assignment.pk}/items/{item.position}/").content.decode()
    assert 'class="problems suspect-note"' in page and "4401" in page


def test_a_run_mostly_in_the_collection_is_not_suspect_and_cannot_be_confirmed(tmp_path):
    collection = CollectionFactory()
    for post_id in ("10", "11"):
        PostFactory(collection=collection, post_id=post_id)
    campaign = CampaignFactory(task=Campaign.Task.ANSWERS, collection=collection)
    TopicFactory(campaign=campaign, topic_id="A.1")
    run = ingest(campaign, tmp_path, "mine", task1_lines("A.1", ["10", "11", "99"], "mine"))
    assert not run.mostly_missing and not selectors.pool_item_suspect(
        item=PoolItem(campaign=campaign, provenance=[["mine", 1]]))
    with pytest.raises(InputError, match="has no suspect ids"):
        services.run_matches_confirm(run=run)


def test_left_out_ids_keep_their_rank_and_do_not_deepen_the_run():
    ranked = {"foreign": ["1", "2", "3", "4"], "other": ["2"]}
    pool = pool_answers(ranked, {"foreign": 3, "other": 1}, {"foreign": {"2"}})
    assert pool == {"1": [("foreign", 1)], "3": [("foreign", 3)], "2": [("other", 1)]}
    formulas = {"foreign": [("f1", "p1", "v1"), ("f2", "p2", "v2"), ("f3", "p3", "v3")]}
    assert pool_formulas(formulas, {"foreign": 2}, {"foreign": {"f1"}}) == {"v2": {"f2": [("foreign", 2)]}}


def test_the_campaign_form_says_what_to_load_when_runs_name_posts_the_collection_lacks(client, organizer):
    client.force_login(organizer)
    page = client.get("/campaigns/").content.decode()
    assert "Runs that name posts this collection lacks need the real Posts.xml loaded, or a pool-only corpus" in page

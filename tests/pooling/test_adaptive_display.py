"""The random judging order is the order assessors have always seen: the stored pool's positions (issue 27)."""
from ir.pools.adaptive import next_items
from pooling import services
from pooling.models import Campaign, PoolItem
from tests.factories import CampaignFactory, TopicFactory


def test_the_random_policy_gives_the_built_pools_display_order(db, arqmath_data):
    campaign = CampaignFactory(name="order", task=Campaign.Task.ANSWERS, primary_depth=45, alternate_depth=45,
                               seed=20)
    for position, topic in enumerate(("A.1", "A.2", "A.3", "A.4", "A.5")):
        TopicFactory(campaign=campaign, topic_id=topic, position=position)
    for name in ("psu-task1-auto-both-A.tsv", "ensemble-task1.tsv"):
        services.run_ingest(campaign=campaign, path=arqmath_data / "runs" / name)
    services.pool_build(campaign=campaign, judged_items={})
    for topic in ("A.1", "A.3"):
        rows = list(PoolItem.objects.filter(topic__campaign=campaign, topic__topic_id=topic).order_by("position"))
        pool = {row.item_id: [tuple(entry) for entry in row.provenance] for row in rows}
        assert len(pool) > 60
        shown = next_items("random", pool, {}, seed=campaign.seed, topic_id=topic, count=len(pool))
        assert shown == [row.item_id for row in rows]
        # Judged items drop out and the rest keep their places.
        judged = {rows[0].item_id: True, rows[5].item_id: False}
        assert next_items("random", pool, judged, seed=campaign.seed, topic_id=topic, count=3) == \
            [rows[1].item_id, rows[2].item_id, rows[3].item_id]

"""Writes of the pooling app. Every ingest validates the whole file and writes in the same pass, inside one
transaction: a file with any problem raises InputError after the pass, which rolls back everything it wrote."""
from .campaigns import (
    CampaignSettings,
    TopicsIngestResult,
    campaign_create,
    campaign_settings,
    collection_get_or_create,
    topics_ingest,
)
from .collection import CollectionIngestResult, collection_ingest
from .pools import PoolBuildResult, judged_items, pool_build, run_depth, unpooled_warnings
from .runs import RunIngestOptions, file_checksum, run_collection_check, run_depth_set, run_ingest, run_options
from .undo import (
    PoolsAfter,
    campaign_contents,
    campaign_delete,
    campaign_update,
    judged_count,
    pools_built,
    run_delete,
    run_replace,
)

__all__ = [
    "CampaignSettings",
    "CollectionIngestResult",
    "PoolBuildResult",
    "PoolsAfter",
    "RunIngestOptions",
    "TopicsIngestResult",
    "campaign_contents",
    "campaign_create",
    "campaign_delete",
    "campaign_settings",
    "campaign_update",
    "collection_get_or_create",
    "collection_ingest",
    "file_checksum",
    "judged_count",
    "judged_items",
    "pool_build",
    "pools_built",
    "run_collection_check",
    "run_delete",
    "run_depth_set",
    "run_depth",
    "run_ingest",
    "run_options",
    "run_replace",
    "topics_ingest",
    "unpooled_warnings",
]

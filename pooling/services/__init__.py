"""Writes of the pooling app. Every ingest validates the whole file and writes in the same pass, inside one
transaction: a file with any problem raises InputError after the pass, which rolls back everything it wrote.

The writes that could take judged items out of the pools are told what is judged (`judged_items`); their callers are
the judging app's services (assessor/services/pools.py), which read it. Pooling never imports assessor."""
from .campaigns import campaign_create, collection_get_or_create, topics_ingest
from .collection import collection_ingest
from .pools import JudgedItems, campaign_lock, judged_count, pool_build
from .runs import file_checksum, run_collection_check, run_depth_set, run_ingest
from .undo import (
    CampaignContents,
    PoolsAfter,
    campaign_contents,
    campaign_delete,
    campaign_update,
    pools_built,
    run_delete,
    run_replace,
)

__all__ = [
    "CampaignContents",
    "JudgedItems",
    "PoolsAfter",
    "campaign_contents",
    "campaign_create",
    "campaign_delete",
    "campaign_lock",
    "campaign_update",
    "collection_get_or_create",
    "collection_ingest",
    "file_checksum",
    "judged_count",
    "pool_build",
    "pools_built",
    "run_collection_check",
    "run_delete",
    "run_depth_set",
    "run_ingest",
    "run_replace",
    "topics_ingest",
]

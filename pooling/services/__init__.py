"""Writes of the pooling app. Every ingest validates the whole file and writes in the same pass, inside one
transaction: a file with any problem raises InputError after the pass, which rolls back everything it wrote."""
from .campaigns import campaign_create, collection_get_or_create, topics_ingest
from .collection import collection_ingest
from .pools import judged_items, pool_build, run_depth
from .runs import file_checksum, name_facts, run_collection_check, run_depth_set, run_facts_set, run_ingest
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
    "PoolsAfter",
    "campaign_contents",
    "campaign_create",
    "campaign_delete",
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
    "run_facts_set",
    "name_facts",
    "run_depth",
    "run_ingest",
    "run_replace",
    "topics_ingest",
]

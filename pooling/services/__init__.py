"""Writes of the pooling app. Every ingest validates the whole file and writes in the same pass, inside one
transaction: a file with any problem raises InputError after the pass, which rolls back everything it wrote.

The writes that could take judged items out of the pools are told what is judged (`judged_items`); their callers are
the judging app's services (assessor/services/pools.py), which read it: pooling imports no app above it
(docs/architecture.md, "Which app imports which")."""
from .campaigns import (
    BUDGETS,
    NO_BUDGET,
    CampaignSettings,
    TopicsIngestResult,
    campaign_create,
    campaign_settings,
    collection_get_or_create,
    topics_ingest,
)
from .candidates import candidates_ingest
from .collection import CollectionIngestResult, collection_delete, collection_ingest
from .corpus import PoolTextsResult, collection_corpus_set, missing_documents_warnings, pool_texts_fetch
from .pools import (
    JudgedItems,
    PoolBuildResult,
    campaign_deleting_error,
    campaign_lock,
    judged_count,
    pool_build,
    unpooled_warnings,
)
from .runs import (
    RUN_KINDS,
    RunIngestOptions,
    file_checksum,
    name_facts,
    name_facts_said,
    run_collection_check,
    run_depth_set,
    run_facts_set,
    run_ingest,
    run_kind,
    run_matches_confirm,
    run_options,
)
from .topics import TOPIC_TEXT, TopicContents, topic_contents, topic_delete, topic_update
from .undo import (
    CampaignContents,
    PoolsAfter,
    campaign_contents,
    campaign_delete,
    campaign_delete_start,
    campaign_entries_delete,
    campaign_update,
    pools_built,
    run_delete,
    run_replace,
)

__all__ = [
    "BUDGETS",
    "NO_BUDGET",
    "candidates_ingest",
    "CampaignContents",
    "CampaignSettings",
    "CollectionIngestResult",
    "JudgedItems",
    "PoolBuildResult",
    "PoolTextsResult",
    "PoolsAfter",
    "RUN_KINDS",
    "RunIngestOptions",
    "TOPIC_TEXT",
    "TopicContents",
    "TopicsIngestResult",
    "campaign_contents",
    "campaign_create",
    "campaign_delete",
    "campaign_delete_start",
    "campaign_deleting_error",
    "campaign_entries_delete",
    "campaign_lock",
    "campaign_settings",
    "campaign_update",
    "collection_corpus_set",
    "collection_get_or_create",
    "collection_delete",
    "collection_ingest",
    "file_checksum",
    "judged_count",
    "pool_build",
    "pool_texts_fetch",
    "pools_built",
    "run_collection_check",
    "run_matches_confirm",
    "run_delete",
    "run_depth_set",
    "run_facts_set",
    "missing_documents_warnings",
    "name_facts",
    "name_facts_said",
    "run_ingest",
    "run_kind",
    "run_options",
    "run_replace",
    "topic_contents",
    "topic_delete",
    "topic_update",
    "topics_ingest",
    "unpooled_warnings",
]

"""Writes of the judging app, by concern: assignments (and the judging cache warm-up), judgments (what was shown,
submits with their revisions), samples of characterisation assignments, imports (import_judgments),
pools (every build or change of a campaign's pools, and its delete, told what is judged), topics (deleting a topic
nothing is judged on)."""
from judging.services.assignments import (
    AssignResult,
    assignment_withdraw,
    assignments_balance,
    assignments_create,
    campaign_rows_delete,
    topic_close,
)
from judging.services.imports import ImportResult, judgments_import
from judging.services.judging_cache import judging_cache_warm
from judging.services.judgments import (
    MAX_ACTIVE_SECONDS,
    GradeInput,
    RevisionConflict,
    SubmitResult,
    item_complete,
    item_revision,
    item_shown,
    item_skip,
    item_visit,
    judged_complete,
    judgment_submit,
    visits_recount,
)
from judging.services.outbox import browser_submit_heard
from judging.services.pools import (
    campaign_delete,
    campaign_delete_start,
    campaign_update,
    pools_rebuild,
    run_delete,
    run_replace,
)
from judging.services.topics import topic_delete

__all__ = [
    "MAX_ACTIVE_SECONDS",
    "AssignResult",
    "GradeInput",
    "RevisionConflict",
    "ImportResult",
    "SubmitResult",
    "assignment_withdraw",
    "browser_submit_heard",
    "assignments_balance",
    "assignments_create",
    "campaign_delete",
    "campaign_delete_start",
    "campaign_rows_delete",
    "campaign_update",
    "item_complete",
    "item_shown",
    "item_skip",
    "item_visit",
    "item_revision",
    "judged_complete",
    "judging_cache_warm",
    "judgment_submit",
    "judgments_import",
    "pools_rebuild",
    "run_delete",
    "run_replace",
    "topic_close",
    "topic_delete",
    "visits_recount",
]

"""Writes of the judging app, by concern: assignments (and the judging cache warm-up), judgments (what was shown,
submits with their revisions), imports (import_judgments), pools (every build or change of a campaign's pools, and
its delete, told what is judged)."""
from .assignments import (
    AssignResult,
    assignment_withdraw,
    assignments_create,
    campaign_rows_delete,
    judging_cache_warm,
    topic_close,
)
from .imports import ImportResult, judgments_import
from .judgments import (
    MAX_ACTIVE_SECONDS,
    GradeInput,
    SubmitResult,
    item_complete,
    item_shown,
    item_skip,
    item_visit,
    judged_complete,
    judgment_submit,
    visits_recount,
)
from .pools import campaign_delete, campaign_update, pools_rebuild, run_delete, run_replace

__all__ = [
    "MAX_ACTIVE_SECONDS",
    "AssignResult",
    "GradeInput",
    "ImportResult",
    "SubmitResult",
    "assignment_withdraw",
    "assignments_create",
    "campaign_delete",
    "campaign_rows_delete",
    "campaign_update",
    "item_complete",
    "item_shown",
    "item_skip",
    "item_visit",
    "judged_complete",
    "judging_cache_warm",
    "judgment_submit",
    "judgments_import",
    "pools_rebuild",
    "run_delete",
    "run_replace",
    "topic_close",
    "visits_recount",
]

"""Writes of the judging app, by concern: assignments (and the judging cache warm-up), judgments (what was shown,
submits with their revisions), characterisation (questions, samples, yes/no answers), imports (import_judgments),
pools (every build or change of a campaign's pools, and its delete, told what is judged), topics (deleting a topic
nothing is judged on)."""
from assessor.services.assignments import (
    AssignResult,
    assignment_withdraw,
    assignments_balance,
    assignments_create,
    campaign_rows_delete,
    characterisation_assign,
    topic_close,
)
from assessor.services.characterisation import (
    ARQMATH_QUESTIONS,
    characterisation_submit,
    question_add,
    question_delete,
    questions_arqmath,
)
from assessor.services.imports import ImportResult, judgments_import
from assessor.services.judging_cache import judging_cache_warm
from assessor.services.judgments import (
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
from assessor.services.outbox import browser_submit_heard
from assessor.services.pools import (
    campaign_delete,
    campaign_delete_start,
    campaign_update,
    pools_rebuild,
    run_delete,
    run_replace,
)
from assessor.services.topics import topic_delete

__all__ = [
    "ARQMATH_QUESTIONS",
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
    "characterisation_assign",
    "characterisation_submit",
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
    "question_add",
    "question_delete",
    "questions_arqmath",
    "run_delete",
    "run_replace",
    "topic_close",
    "topic_delete",
    "visits_recount",
]

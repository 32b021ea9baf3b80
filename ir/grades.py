"""ARQMath's relevance grades (SPEC 5.1), in one place: the grades 3 to 0 with their labels, the marks SF and DK
with the numbers a complete qrels file gives them, and which grades count as relevant at a relevance level."""
from __future__ import annotations

HIGH, MEDIUM, LOW, NOT_RELEVANT = 3, 2, 1, 0
LABELS: dict[int, str] = {HIGH: "High", MEDIUM: "Medium", LOW: "Low", NOT_RELEVANT: "Not relevant"}
GRADE_VALUES: tuple[int, ...] = tuple(sorted(LABELS))  # 0, 1, 2, 3

# The marks an assessor gives an item they cannot grade; its item counts as unjudged, never as 0.
SYSTEM_FAILURE, DO_NOT_KNOW = "SF", "DK"
MARK_LABELS: dict[str, str] = {SYSTEM_FAILURE: "System failure", DO_NOT_KNOW: "Do not know"}
# A mark's number in the organizers' complete qrels (ARQMath-3 Task 3), and back.
MARK_NUMBERS: dict[str, int] = {SYSTEM_FAILURE: 5, DO_NOT_KNOW: 6}
MARKS: dict[int, str] = {number: mark for mark, number in MARK_NUMBERS.items()}

# The lowest relevant grade unless a campaign (or a command) says otherwise: ARQMath's H+M.
RELEVANCE_LEVEL = MEDIUM


def is_relevant(grade: int, level: int) -> bool:
    """Whether a grade counts as relevant at relevance level `level` (the lowest relevant grade); a mark's number
    (5 or 6) never does."""
    return grade >= level and grade not in MARKS

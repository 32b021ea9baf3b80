"""What a judgment and an assignment may hold: a grade with its comment, an assignment's kind and round. One
function per rule, whatever the way in: the judging page and the API (through judgment_submit), the assignments page
and assign_topics (through assignments_create), and import_judgments line by line."""
from __future__ import annotations

from core.errors import InputError

from .models import GRADES_NEEDING_COMMENT, Assignment, Grade

MAX_COMMENT = 5000
ROUND_MAX = 2**31 - 1  # Assignment.round's column


def grade_problems(grade: str, comment: str) -> list[str]:
    """What is wrong with a grade and its comment (nothing: an empty list)."""
    problems = []
    if grade not in Grade.values:
        problems.append(f"'{grade}' is not a grade: use 3, 2, 1, 0, SF or DK")
    elif grade in GRADES_NEEDING_COMMENT and not comment.strip():
        problems.append(f"a comment is required with {Grade(grade).label} ({grade}): say what went wrong")
    if len(comment) > MAX_COMMENT:
        problems.append(f"the comment is longer than {MAX_COMMENT} characters")
    if "\x00" in comment:  # PostgreSQL cannot store it
        problems.append("the comment contains a NUL character (\\x00): remove it")
    return problems


def kind_and_round(kind: str, round_: int | None) -> tuple[str, int]:
    """An assignment's kind and round as stored: training rounds count from 1 (1 when none is given), the other
    kinds have round 0. InputError for an unknown kind or a round that does not fit it."""
    if kind not in Assignment.Kind.values:
        raise InputError(f"unknown kind '{kind}': use official, training or dual")
    if kind == Assignment.Kind.TRAINING:
        round_ = 1 if round_ is None else round_
        if not 1 <= round_ <= ROUND_MAX:
            raise InputError(f"a training round is a number from 1 to {ROUND_MAX}")
        return kind, round_
    if round_:
        raise InputError(f"a round is given for training assignments only, not for {kind}")
    return kind, 0

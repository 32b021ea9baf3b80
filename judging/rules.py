"""What a judgment and an assignment may hold: a grade with its comment, an assignment's kind and round, a
characterisation's questions, sample sizes and yes/no answers. One function per rule, whatever the way in: the judging
page and the API (through judgment_submit), the assignments page and assign_topics (through assignments_create),
import_judgments line by line, and the characterisation page, API and command (through the characterisation
services)."""
from __future__ import annotations

import re
from collections.abc import Mapping

from ir.grades import Scheme
from ir.problems import InputError
from judging.models import GRADES_NEEDING_COMMENT, Assignment, CharacterisationQuestion, Grade

MAX_COMMENT = 5000
ROUND_MAX = 2**31 - 1  # Assignment.round's column


KINDS = frozenset(Assignment.Kind.values)

# The grades an item that is not in the collection can take: nothing of it can be read to judge its relevance.
GRADES_OF_MISSING = (Grade.SYSTEM_FAILURE, Grade.DO_NOT_KNOW)


def grade_problems(grade: str, comment: str, *, scheme: Scheme, missing: bool = False) -> list[str]:
    """What is wrong with a grade and its comment (nothing: an empty list) in the campaign's judging `scheme`;
    `missing`: the item (answers: the post, formulas: the post holding the instance) is not in the collection, so
    only GRADES_OF_MISSING are grades (those of them the scheme offers; a scheme without marks accepts any grade)."""
    problems = []
    offered = [str(g.value) for g in scheme.grades] + list(scheme.marks)
    if grade not in scheme.values:
        problems.append(f"'{grade[:20]}' is not a grade: use {', '.join(offered[:-1])} or {offered[-1]}")
    elif missing and scheme.marks and grade not in GRADES_OF_MISSING:
        problems.append(f"the post is not in the collection, so it cannot be graded {scheme.label(grade)} ({grade}): "
                        "grade it System failure (SF) or Do not know (DK), with a comment")
    elif grade in GRADES_NEEDING_COMMENT and not comment.strip():
        problems.append(f"a comment is required with {scheme.label(grade)} ({grade}): say what went wrong")
    if len(comment) > MAX_COMMENT:
        problems.append(f"the comment is longer than {MAX_COMMENT} characters")
    if "\x00" in comment:  # PostgreSQL cannot store it
        problems.append("the comment contains a NUL character (\\x00): remove it")
    return problems


def facet_grade(grade: str, facets: Mapping[str, str], *, scheme: Scheme) -> str:
    """The grade a submission takes: with a scheme's facets, the grade its table maps their answers to (a mark is
    taken as given); InputError for facets the scheme lacks, a facet unanswered, or a grade the facets contradict."""
    if not scheme.facets:
        if facets:
            raise InputError("this campaign's scheme has no facets: give a grade")
        return grade
    if grade in scheme.marks and not facets:
        return grade
    mapped = str(scheme.grade_of(facets))
    if grade and grade != mapped:
        raise InputError(f"the facets give the grade {mapped}, not {grade[:20]}: give the facets only")
    return mapped


def kind_and_round(kind: str, round_: int | None) -> tuple[str, int]:
    """An assignment's kind and round as stored: training rounds count from 1 (1 when none is given), the other
    kinds have round 0. InputError for an unknown kind or a round that does not fit it."""
    if kind not in KINDS:
        raise InputError(f"unknown kind '{kind}': use official, training, dual or characterisation")
    if kind == Assignment.Kind.CHECK:  # its items are what it is: services.checks makes it with them
        raise InputError("a check assignment is made by sending items from the disagreement review's LLM list, "
                         "not by assigning a topic")
    if kind == Assignment.Kind.TRAINING:
        round_ = 1 if round_ is None else round_
        if not 1 <= round_ <= ROUND_MAX:
            raise InputError(f"a training round is a number from 1 to {ROUND_MAX}")
        return kind, round_
    if round_:
        raise InputError(f"a round is given for training assignments only, not for {kind}")
    return kind, 0


def graded_kind(kind: str) -> None:
    """InputError for grades given to an assignment of a kind that takes none (characterisation: yes/no answers)."""
    if kind == Assignment.Kind.CHARACTERISATION:
        raise InputError("a characterisation assignment is answered with its yes/no questions, not graded")


# -- characterisation (docs/judging.md, "Characterising answers")

LABEL_PATTERN = re.compile(r"[A-Za-z0-9_-]+")
LABEL_MAX = CharacterisationQuestion._meta.get_field("label").max_length or 16
QUESTION_MAX = CharacterisationQuestion._meta.get_field("text").max_length or 500
SAMPLE_MAX = 1000  # items of one topic's sample: more than any pool an assessor reads through
YES = frozenset({"yes", "y", "true", "1"})
NO = frozenset({"no", "n", "false", "0"})


def question_problems(label: str, text: str) -> list[str]:
    """What is wrong with a question's label and text (nothing: an empty list). The label names the question in
    reports and in `evaluate` output (char:LABEL), so it is a short word."""
    problems = []
    if not LABEL_PATTERN.fullmatch(label) or len(label) > LABEL_MAX:
        problems.append(f"label '{label[:40]}' must be 1 to {LABEL_MAX} letters, digits, '-' or '_' (say MG)")
    if not text.strip():
        problems.append(f"question {label or '(no label)'} has no text")
    elif len(text) > QUESTION_MAX:
        problems.append(f"question {label} is longer than {QUESTION_MAX} characters")
    if "\x00" in text:
        problems.append(f"question {label} contains a NUL character (\\x00): remove it")
    return problems


def sample_size(size: int, topic_id: str = "") -> int:
    """A sample size as kept: 1 to SAMPLE_MAX items; InputError otherwise."""
    if not 1 <= size <= SAMPLE_MAX:
        where = f"topic {topic_id}: " if topic_id else ""
        raise InputError(f"{where}a sample is 1 to {SAMPLE_MAX} items, not {size}")
    return size


def yes_no(value: object, label: str) -> bool:
    """An answer as kept: true for yes, false for no (yes/no, true/false, 1/0, any case); InputError otherwise."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in YES:
        return True
    if text in NO:
        return False
    raise InputError(f"question {label}: answer yes or no, not '{str(value)[:20]}'")


def characterisation_answers(answers: Mapping[str, object], labels: set[str]) -> dict[str, bool]:
    """The answers of one submission by question label, each yes (True) or no (False); InputError with every
    problem: an unknown label, a value that is neither, no answer at all."""
    problems, kept = [], {}
    for label, value in answers.items():
        if label not in labels:
            problems.append(f"'{label[:40]}' is not a question of this campaign ({', '.join(sorted(labels))})")
            continue
        try:
            kept[label] = yes_no(value, label)
        except InputError as exc:
            problems += exc.messages()
    if not answers:
        problems.append("no answer given")
    if problems:
        raise InputError(problems)
    return kept


def characterisation_sizes(topic_ids: list[str], size: int | None, sizes: Mapping[str, int]) -> dict[str, int]:
    """Each assigned topic's sample size: its own (`sizes`) or the common one (`size`). InputError with every
    problem: a topic without a size, a size for a topic that is not assigned, a size out of bounds."""
    problems = [f"topic {topic_id}: a size is given for it but it is not one of the topics assigned"
                for topic_id in sizes if topic_id not in topic_ids]
    kept = {}
    for topic_id in topic_ids:
        chosen = sizes.get(topic_id, size)
        if chosen is None:
            problems.append(f"topic {topic_id}: no sample size (give one for every topic, or one for all)")
            continue
        try:
            kept[topic_id] = sample_size(chosen, topic_id)
        except InputError as exc:
            problems += exc.messages()
    if problems:
        raise InputError(problems)
    return kept


def sizes_parse(text: str) -> dict[str, int]:
    """Per-topic sample sizes written TOPIC=N, separated by spaces, commas or lines (the page's field, the command's
    --size); InputError naming each piece that is not."""
    sizes, problems = {}, []
    for piece in re.split(r"[\s,]+", text.strip()):
        if not piece:
            continue
        topic_id, _, number = piece.rpartition("=")
        if not topic_id or not (number.isascii() and number.isdigit() and len(number) < 10):
            problems.append(f"'{piece[:40]}' is not TOPIC=N (say A.301=10)")
        elif topic_id in sizes:
            problems.append(f"topic {topic_id} is given two sizes")
        else:
            sizes[topic_id] = int(number)
    if problems:
        raise InputError(problems)
    return sizes

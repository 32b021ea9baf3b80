"""Writes of judging: what an assessor was shown and skipped, judgments with every revision, and the recount of
completed items after a pool rebuild."""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import NamedTuple, Protocol

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Expression, F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from ir.grades import Scheme
from ir.problems import InputError
from judging import rules, selectors, suggestions
from judging.models import Assignment, ItemVisit, Judgment, JudgmentRevision, SubmitReceipt
from judging.progress import MAX_ACTIVE_SECONDS
from pooling.bulk import bulk_insert, copy_text
from pooling.models import Campaign, PoolInstance, PoolItem

# A submit key, as the judging page makes them (32 hex digits); letters, digits, '-' and '_' from other clients.
SUBMIT_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")
CLOSED = "this topic is closed: its judgments can no longer be changed"
NEW_COLUMNS = ("assignment_id", "item_id", "formula_id", "post_id", "grade", "comment", "revision", "first_shown_at",
               "submitted_at", "updated_at")
REVISION_COLUMNS = ("judgment_id", "number", "user_id", "at", "old_grade", "old_comment", "grade", "comment",
                    "active_seconds", "source")
# Rows a bulk write sends in one statement (judgments_save, an import's visits).
BATCH = 2000


class NewJudgment(NamedTuple):
    """A judgment to make (judgments_save): its first revision, in NEW_COLUMNS order but for the times."""
    assignment_id: int
    item_id: str
    formula_id: str
    post_id: str
    grade: str
    comment: str
    first_shown_at: datetime



def item_visit(*, assignment: Assignment, item_id: str, at=None) -> None:
    """Records when the server first showed this item to this assessor (now, or `at`: a submit's own time when it
    makes the visit); later showings keep the first time."""
    # INSERT ... ON CONFLICT DO NOTHING: the unique constraint keeps the first time when the item is shown again,
    # or twice at the same moment.
    ItemVisit.objects.bulk_create([ItemVisit(assignment_id=assignment.pk, item_id=item_id,
                                             first_shown_at=at or timezone.now())], ignore_conflicts=True)


def item_shown(*, assignment: Assignment, item_id: str, at: datetime) -> None:
    """Records that the judging page showed the item at `at`, a time the page reports after the fact (it swaps in
    items it fetched ahead, and may report them late, after a network failure): the visit is made when missing, and
    its first-shown time moved back to `at` when that is earlier (a reload may have recorded the item first)."""
    item_visit(assignment=assignment, item_id=item_id, at=at)
    ItemVisit.objects.filter(assignment=assignment, item_id=item_id, first_shown_at__gt=at).update(first_shown_at=at)


@transaction.atomic
def item_skip(*, assignment: Assignment, item_id: str) -> None:
    """Puts an unjudged item at the back of the queue: "next item" offers it again once the others are done. The
    visit and its skip are written together, under the assignment's lock that judgment_submit takes."""
    Assignment.objects.select_for_update().filter(pk=assignment.pk).exists()
    item_visit(assignment=assignment, item_id=item_id)
    ItemVisit.objects.filter(assignment=assignment, item_id=item_id).update(skipped_at=timezone.now())



@dataclass(frozen=True)
class GradeInput:
    """One grade submitted from the page or the API; formula_id is empty for answers."""
    grade: str
    comment: str = ""
    formula_id: str = ""
    facets: dict[str, str] = field(default_factory=dict)  # a scheme with facets: facet name -> option chosen
    suggestion: int | None = None  # suggest mode: the id of the LLM grade that was on screen for this unit


@dataclass
class SubmitResult:
    """What one submit did: to the grades of an item (judgment_submit), or the answers about it
    (characterisation_submit)."""
    created: int = 0
    revised: int = 0
    unchanged: int = 0
    complete: bool = False
    repeated: bool = False      # a submit key seen before: nothing was written, the first answer is given again
    revision: int = 0           # the item's revision after it (item_revision)

    @property
    def changed(self) -> bool:
        return bool(self.created or self.revised)


def item_revision(judgments: Iterable[Judgment]) -> int:
    """An item's revision as an assessor sees it: the sum of its judgments' revisions (one per unit graded, plus one per
    change), which every write of the item raises. The judging page sends back the one it showed (docs/judging.md,
    "Two tabs")."""
    return sum(j.revision for j in judgments)


class RevisionConflict(InputError):
    """A submit would replace grades the page never saw: the item has a newer revision on the server (another tab or
    browser changed it since). Nothing is written; `revision` is the server's, which a deliberate resubmit sends."""

    def __init__(self, problems: list[str], revision: int) -> None:
        super().__init__(problems)
        self.revision = revision


def _conflicts(revised: Sequence[tuple[Judgment, str, str]], scheme: Scheme) -> list[str]:
    def named(grade: str) -> str:
        return f"{scheme.label(grade)} ({grade})"

    return [(f"instance {j.formula_id}: " if j.formula_id else "") + "changed in another tab: "
            + (f"{named(j.grade)} → {named(grade)}" if grade != j.grade else f"{named(grade)}, another comment")
            for j, grade, _ in revised]


def _check_grades(grades: Sequence[GradeInput], instances: dict[str, str] | None, missing: set[str],
                  scheme: Scheme) -> list[str]:
    problems = []
    seen = set()
    for g in grades:
        unit = f"instance {g.formula_id}: " if g.formula_id else ""
        problems += [unit + problem
                     for problem in rules.grade_problems(g.grade, g.comment, scheme=scheme,
                                                                  missing=g.formula_id in missing)]
        if instances is None and g.formula_id:
            problems.append("answers are judged as a whole: no formula instance is expected")
        if instances is not None and g.formula_id not in instances:
            problems.append(f"formula {g.formula_id or '(none)'} is not an instance to judge for this formula")
        if g.formula_id in seen:
            problems.append(f"{unit}graded twice in one submission")
        seen.add(g.formula_id)
    if not grades:
        problems.append("no grade given")
    return problems


class Graded(Protocol):
    """A unit's judgment as a submit compares it: a Judgment, or an import's JudgedUnit."""
    @property
    def grade(self) -> str: ...

    @property
    def comment(self) -> str: ...


# What a submit does to one unit (judgment_change).
NEW, UNCHANGED, REVISED = "new", "unchanged", "revised"


def judgment_change(before: Graded | None, grade: str, comment: str, *, same_facets: bool = True) -> str:
    """The one rule of a submit, unit by unit, for judgment_submit and for judgments_import's thousands: a unit not
    judged yet is NEW (revision 1); one that holds this grade and comment (stripped, as stored) and these facets
    already is UNCHANGED, and nothing is written; any other is REVISED (the next revision, keeping the old value)."""
    if before is None:
        return NEW
    if before.grade == grade and before.comment == comment.strip() and same_facets:
        return UNCHANGED
    return REVISED


@transaction.atomic
def judgment_submit(*, assignment_pk: int, item_id: str, grades: Sequence[GradeInput], user: User,
                    active_seconds: float = 0.0, source: str = "web", key: str = "",
                    seen: int | None = None) -> SubmitResult:
    """Saves the assessor's grades for one item (answers: one grade; formulas: one per selected instance given).

    Idempotent: the unique (assignment, item, instance) constraint keeps one judgment whatever the number of
    identical submissions, and a resubmission of the current value changes nothing. A different value is a new
    revision, and the revision rows keep the old and the new value. With a `key` (the judging page gives each
    submit one, and sends it again under the same key until the server answers), a submit whose key this assignment
    has seen already writes nothing and answers as the first one did (`repeated`): a resend never makes a second
    revision, nor adds its active time twice, even after another value was submitted since.

    Assignment.DoesNotExist when the assignment is not the user's, PoolItem.DoesNotExist when its topic has no such
    item (a 404 to the pages and the API); InputError for grades refused or a closed topic; RevisionConflict when
    `seen` (the item's revision the page showed, item_revision) is older than the server's and the submit would
    change a grade or comment: the page then asks the assessor which to keep, nothing is replaced unseen.
    """
    # One submission of an assignment at a time: a close or a withdrawal cannot slip in between the check and the
    # write, two submissions for instances of one formula both see each other when they decide "complete", and
    # the active time adds up. Every write of a judgment goes through here, so under this lock the judgments read
    # below stay as read until the commit. Only the assignment's row: no FOR UPDATE across the joined campaign.
    assignment = (Assignment.objects.select_for_update(of=("self",)).select_related("campaign", "topic")
                  .get(pk=assignment_pk, assessor=user))
    if key:
        if not SUBMIT_KEY.fullmatch(key):
            raise InputError("the submit key is not valid: 8 to 64 letters, digits, '-' or '_'")
        receipt = SubmitReceipt.objects.filter(assignment=assignment, key=key).first()
        if receipt is not None:
            if receipt.item_id != item_id:
                raise InputError(f"this submit key was used for item {receipt.item_id}, not {item_id}")
            return SubmitResult(created=receipt.created, revised=receipt.revised, unchanged=receipt.unchanged,
                                complete=receipt.complete, repeated=True, revision=receipt.revision)
    if assignment.read_only:
        raise InputError(CLOSED)
    rules.graded_kind(assignment.kind)
    item = PoolItem.objects.get(topic_id=assignment.topic_id, item_id=item_id)
    instances = None
    if assignment.campaign.task == Campaign.Task.FORMULAS:
        instances = dict(PoolInstance.objects.filter(item=item, selected=True).values_list("formula_id", "post_id"))
    # Grades imported were given elsewhere, by someone who saw the post (import_judgments, the demo): kept as given.
    missing = (set() if source == "import" else
               selectors.units_not_in_collection(campaign=assignment.campaign, item=item, instances=instances))
    scheme = assignment.campaign.judging_scheme
    grades = [replace(g, grade=rules.facet_grade(g.grade, g.facets, scheme=scheme)) for g in grades]
    problems = _check_grades(grades, instances, missing, scheme)
    if problems:
        raise InputError(problems[0] if len(problems) == 1 else "; ".join(problems))
    shown = suggestions.suggestions_checked(campaign=assignment.campaign, topic=assignment.topic, item_id=item_id,
                                            given={g.formula_id: g.suggestion for g in grades
                                                   if g.suggestion is not None})

    now = timezone.now()
    existing = selectors.item_judgments(assignment=assignment, item_id=item_id)
    result = SubmitResult()
    new: list[tuple[str, str, str, str]] = []  # formula id, post id, grade, comment
    revised = []
    for g in grades:
        comment = g.comment.strip()
        judgment = existing.get(g.formula_id)
        change = judgment_change(judgment, g.grade, comment,
                                 same_facets=judgment is None or (judgment.facets or {}) == g.facets)
        if change == NEW:
            new.append((g.formula_id, instances[g.formula_id] if instances is not None else item_id, g.grade,
                        comment))
        elif change == UNCHANGED:
            result.unchanged += 1
        else:
            assert judgment is not None
            revised.append((judgment, g.grade, comment))
    revision = item_revision(existing.values())
    if revised and seen is not None and revision > seen:
        raise RevisionConflict(_conflicts(revised, scheme), revision)
    result.complete = judged_complete(set(existing) | {g.formula_id for g in grades}, instances)
    result.revision = revision + len(new) + len(revised)

    active = float(active_seconds or 0.0)
    active = min(max(active, 0.0), MAX_ACTIVE_SECONDS) if math.isfinite(active) else 0.0
    add = active if (new or revised) else 0.0
    visit = ItemVisit.objects.filter(assignment=assignment, item_id=item_id)
    if new or add or result.complete:
        # The page recorded the visit when it showed the item; an API client may submit without one (then it is
        # shown now).
        item_visit(assignment=assignment, item_id=item_id, at=now)
        changes: dict[str, Expression] = {"active_seconds": F("active_seconds") + add} if add else {}
        if result.complete:
            changes["completed_at"] = Coalesce("completed_at", Value(now))
        if changes:
            visit.update(**changes)
    made = []
    if new:
        first_shown = visit.values_list("first_shown_at", flat=True).get()
        made = [NewJudgment(assignment.pk, item_id, *unit, first_shown_at=first_shown) for unit in new]
    judgments_save(new=made, revised=revised, assessors={assignment.pk: user.pk}, at=now, active_seconds=active,
                   source=source)
    result.created, result.revised = len(new), len(revised)
    _record_context(assignment, item_id, grades, new={unit[0] for unit in new},
                    revised={j.formula_id: j for j, *_ in revised}, shown=shown, at=now)
    if key:  # under the assignment's lock: no other submit of this key is between the look-up above and here
        SubmitReceipt.objects.create(assignment=assignment, key=key, item_id=item_id, at=now, created=result.created,
                                     revised=result.revised, unchanged=result.unchanged, complete=result.complete,
                                     revision=result.revision)
    if result.complete:  # the submit that spends the budget closes the assignment; the pages only read it
        from judging.budgets import budget_close  # budgets reads progress, which reads these services' bounds

        budget_close(assignment=assignment)
    return result


def _record_context(assignment: Assignment, item_id: str, grades: Sequence[GradeInput], *, new: set[str],
                    revised: Mapping[str, Judgment], shown: Mapping[str, object], at: datetime) -> None:
    """What each unit made or revised was submitted with besides its grade, on the judgment and on the revision just
    made: the facets answered (a scheme with facets) and whether an LLM grade was on screen, and which (suggest
    mode). Nothing to write (no facets nor suggestion now, none on the judgment before): no query."""
    for g in grades:
        before = revised.get(g.formula_id)
        if g.formula_id not in new and before is None:
            continue  # unchanged
        if not (g.facets or g.formula_id in shown or before is not None and (before.facets or before.suggested)):
            continue
        values = {"facets": g.facets or None, "suggested": g.formula_id in shown, "suggestion_id": g.suggestion}
        unit = {"assignment": assignment, "item_id": item_id, "formula_id": g.formula_id}
        Judgment.objects.filter(**unit).update(**values)
        JudgmentRevision.objects.filter(judgment__in=Judgment.objects.filter(**unit), at=at).update(**values)


def judgments_save(*, new: Sequence[NewJudgment], revised: Sequence[tuple[Judgment, str, str]],
                   assessors: Mapping[int, int], at: datetime, active_seconds: float, source: str,
                   copy: bool = False) -> None:
    """Writes judgments, each with its revision row by its assignment's assessor (`assessors`: assignment pk ->
    user pk): the `new` ones (revision 1, made `at`) and the `revised` ones, each with the grade and comment it takes
    (the next revision, keeping the old value). The caller holds the assignments' locks (judgment_submit,
    judgments_import): nobody else writes these judgments meanwhile, and the unique constraint backs that up.
    `copy` (an import's thousands): rows go by COPY (pooling.bulk) and the new judgments' keys are read back."""
    rows = ((*j[:6], 1, j.first_shown_at, at, at) for j in new)
    stamp = copy_text(at.isoformat())  # COPY's text of `at`, which every row written here holds
    if copy:
        shown = {at: stamp}  # the few first-shown times an import's thousands share, each formatted once
        bulk_insert(Judgment, NEW_COLUMNS, rows, copy_line=lambda r: "\t".join((
            str(r[0]), copy_text(r[1]), copy_text(r[2]), copy_text(r[3]), copy_text(r[4]), copy_text(r[5]), "1",
            shown.get(r[7]) or shown.setdefault(r[7], copy_text(r[7].isoformat())), stamp, stamp)) + "\n")
        made = {(a, item, formula): pk for a, item, formula, pk in Judgment.objects.filter(
            assignment_id__in={j.assignment_id for j in new}, revision=1, submitted_at=at).order_by()
            .values_list("assignment_id", "item_id", "formula_id", "pk")}
        pks = [made[j[:3]] for j in new]
    else:
        pks = [j.pk for j in Judgment.objects.bulk_create(
            Judgment(**dict(zip(NEW_COLUMNS, r, strict=True))) for r in rows)]
    revisions = [(pk, 1, assessors[j.assignment_id], at, "", "", j.grade, j.comment, active_seconds, source)
                 for pk, j in zip(pks, new, strict=True)]
    for judgment, grade, comment in revised:
        revisions.append((judgment.pk, judgment.revision + 1, assessors[judgment.assignment_id], at, judgment.grade,
                          judgment.comment, grade, comment, active_seconds, source))
        judgment.grade, judgment.comment = grade, comment
        judgment.revision += 1
        judgment.updated_at = at
    Judgment.objects.bulk_update([j for j, _, _ in revised], ["grade", "comment", "revision", "updated_at"],
                                 batch_size=BATCH)
    if copy:
        seconds, by = str(active_seconds), copy_text(source)
        bulk_insert(JudgmentRevision, REVISION_COLUMNS, revisions, copy_line=lambda r: "\t".join((
            str(r[0]), str(r[1]), str(r[2]), stamp, copy_text(r[4]), copy_text(r[5]), copy_text(r[6]),
            copy_text(r[7]), seconds, by)) + "\n")
    else:
        JudgmentRevision.objects.bulk_create(JudgmentRevision(**dict(zip(REVISION_COLUMNS, r, strict=True)))
                                             for r in revisions)


def judged_complete(judged: set[str], instances: dict[str, str] | None) -> bool:
    """The rule of a complete item, from the formula ids judged ('' for an answer): answers (`instances` None) have
    a judgment; formulas have one for every instance selected now (with none selected, never complete)."""
    return "" in judged if instances is None else bool(instances) and set(instances) <= judged


def item_complete(*, assignment: Assignment, item: PoolItem, instances: dict[str, str] | None = None) -> bool:
    """Whether the item is complete now (judged_complete); `instances`: the formula's selected ones when the caller
    has them already."""
    judged = set(Judgment.objects.filter(assignment=assignment, item_id=item.item_id)
                 .values_list("formula_id", flat=True))
    if assignment.campaign.task == Campaign.Task.ANSWERS:
        instances = None
    elif instances is None:
        instances = dict(PoolInstance.objects.filter(item=item, selected=True).values_list("formula_id", "post_id"))
    return judged_complete(judged, instances)


@transaction.atomic
def visits_recount(*, campaign: Campaign) -> int:
    """Recomputes which items each assessor has completed, after the pools changed under them (a forced rebuild):
    an item that left the pool, or a formula with a newly selected instance, is no longer complete. Returns how
    many visits changed."""
    items = {(i.topic_id, i.item_id): i for i in PoolItem.objects.filter(campaign=campaign)}
    # The judgments and the selected instances read once for the campaign, not once per visit.
    judged: dict[tuple[int, str], set[str]] = {}
    for assignment_id, item_id, formula_id in (Judgment.objects.filter(assignment__campaign=campaign)
                                               .values_list("assignment_id", "item_id", "formula_id")):
        judged.setdefault((assignment_id, item_id), set()).add(formula_id)
    selected: dict[int, dict[str, str]] | None = None
    if campaign.task != Campaign.Task.ANSWERS:
        selected = {}
        for item_pk, formula_id, post_id in (PoolInstance.objects.filter(item__campaign=campaign, selected=True)
                                             .values_list("item_id", "formula_id", "post_id")):
            selected.setdefault(item_pk, {})[formula_id] = post_id
    changed = []
    now = timezone.now()
    for visit in ItemVisit.objects.filter(assignment__campaign=campaign).select_related("assignment"):
        item = items.get((visit.assignment.topic_id, visit.item_id))
        complete = item is not None and judged_complete(
            judged.get((visit.assignment_id, visit.item_id), set()),
            None if selected is None else selected.get(item.pk, {}))
        if complete != (visit.completed_at is not None):
            visit.completed_at = now if complete else None
            changed.append(visit)
    ItemVisit.objects.bulk_update(changed, ["completed_at"], batch_size=1000)
    return len(changed)

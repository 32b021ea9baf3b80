"""Writes of the judging app: assignments, what was shown, judgments with their revisions, imports."""
from __future__ import annotations

import functools
import io
import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from people.services import username_valid as _valid_username
from pooling.errors import InputError, Problems
from pooling.formats.se_xml import parse_int
from pooling.formats.textio import FIELD_MAX, iter_lines, shown
from pooling.models import Campaign, PoolInstance, PoolItem, Topic

from . import rendering, selectors
from .models import (
    GRADES_NEEDING_COMMENT,
    Assignment,
    GoldJudgment,
    Grade,
    ItemVisit,
    Judgment,
    JudgmentRevision,
    TrainingRound,
)
from .sql import db_datetime, db_now, table

log = logging.getLogger(__name__)

# Longest active time one submission may report: a page left open over a weekend is not a day of work.
MAX_ACTIVE_SECONDS = 4 * 3600
MAX_COMMENT = 5000


# -- assignments

@dataclass
class AssignResult:
    created: list[Assignment]
    existing: list[Assignment]


def _kind_and_round(kind: str, round_: int | None) -> tuple[str, int]:
    if kind not in Assignment.Kind.values:
        raise InputError(f"unknown assignment kind '{kind}': use official, training or dual")
    if kind == Assignment.Kind.TRAINING:
        round_ = 1 if round_ is None else round_
        if round_ < 1:
            raise InputError("a training round is a number from 1")
        return kind, round_
    if round_:
        raise InputError(f"a round is given for training assignments only, not for {kind}")
    return kind, 0


@transaction.atomic
def assignments_create(*, campaign: Campaign, assessors: Sequence[AbstractBaseUser], topic_ids: Sequence[str],
                       kind: str = Assignment.Kind.OFFICIAL, round: int | None = None,
                       user: AbstractBaseUser | None = None) -> AssignResult:
    """Gives every listed topic to every listed assessor. Assigning twice is harmless (the existing assignment is
    reported, not duplicated). Rejected as a whole: unknown topics, a second official assessor for a topic, a
    dual assignment for a topic nobody else judges officially."""
    kind, round_ = _kind_and_round(kind, round)
    if not assessors:
        raise InputError("no assessor given")
    if not topic_ids:
        raise InputError("no topic given")
    topics = {t.topic_id: t for t in Topic.objects.filter(campaign=campaign, topic_id__in=set(topic_ids))}
    problems = Problems()
    for topic_id in dict.fromkeys(topic_ids):
        if topic_id not in topics:
            problems.add(None, f"topic '{topic_id}' is not a topic of campaign '{campaign.name}'")
    problems.raise_if_any()

    active = Assignment.objects.filter(topic__in=topics.values(), withdrawn_at__isnull=True)
    official = {a.topic_id: a for a in active.filter(kind=Assignment.Kind.OFFICIAL).select_related("assessor")}
    dual = set(active.filter(kind=Assignment.Kind.DUAL).values_list("topic_id", "assessor_id"))
    closed = set(active.filter(closed_at__isnull=False).values_list("topic_id", flat=True))
    existing = {(a.topic_id, a.assessor_id): a for a in active.filter(kind=kind, round=round_)}
    # A withdrawn assignment given back to the same assessor comes back with its judgments.
    withdrawn = {(a.topic_id, a.assessor_id): a for a in Assignment.objects.filter(
        topic__in=topics.values(), kind=kind, round=round_, withdrawn_at__isnull=False).order_by("withdrawn_at")}
    created, kept, revived = [], [], []
    for topic_id in dict.fromkeys(topic_ids):
        topic = topics[topic_id]
        for assessor in assessors:
            if (topic.pk, assessor.pk) in existing:
                kept.append(existing[(topic.pk, assessor.pk)])
                continue
            owner = official.get(topic.pk)
            if kind == Assignment.Kind.OFFICIAL and (topic.pk, assessor.pk) in dual:
                problems.add(None, f"{assessor} judges topic {topic_id} as the dual assessor: the official and the "
                                   "dual judging must be by different assessors")
                continue
            if kind == Assignment.Kind.OFFICIAL and owner is not None:
                problems.add(None, f"topic {topic_id} is already assigned officially to {owner.assessor}; "
                                   "withdraw that assignment first")
                continue
            if kind == Assignment.Kind.DUAL and (owner is None or owner.assessor_id == assessor.pk):
                reason = ("has no official assessor yet" if owner is None
                          else f"is judged officially by {assessor} already")
                problems.add(None, f"topic {topic_id} {reason}: a dual assessment is a second, independent "
                                   "judging by another assessor")
                continue
            assignment = withdrawn.get((topic.pk, assessor.pk))
            if assignment is not None:
                assignment.withdrawn_at = None
                revived.append(assignment)
            else:
                assignment = Assignment(campaign=campaign, topic=topic, assessor=assessor, kind=kind,
                                        round=round_, created_by=user)
                created.append(assignment)
            # A closed topic stays closed for whoever joins it.
            assignment.closed_at = timezone.now() if topic.pk in closed else None
            if kind == Assignment.Kind.OFFICIAL:
                official[topic.pk] = assignment
    problems.raise_if_any()
    try:
        with transaction.atomic():
            Assignment.objects.bulk_create(created)
            for assignment in revived:
                assignment.save(update_fields=["withdrawn_at", "closed_at"])
    except IntegrityError:
        # Another organizer assigned the same topic at the same moment: the constraint kept it single.
        raise InputError("these topics were assigned by someone else meanwhile; reload and try again") from None
    given = created + revived
    if given and settings.JUDGING_CACHE_WARM:
        transaction.on_commit(lambda: _judging_cache_warm_enqueue([a.pk for a in given]))
    return AssignResult(created=given, existing=kept)


def _judging_cache_warm_enqueue(assignment_pks: list[int]) -> None:
    from .tasks import judging_cache_warm_task  # tasks import this module

    # Only a head start for the pages (a page sanitizes what it misses): a broker or cache that is down must not
    # turn an assignment that was made into an error.
    try:
        judging_cache_warm_task.delay(assignment_pks)
    except Exception:
        log.exception("the judging cache warm-up of assignments %s could not run", assignment_pks)


def judging_cache_warm(*, assignment_pks: Sequence[int]) -> int:
    """Sanitizes, into the cache the judging page reads, every fragment of collection and topic HTML that the
    pages of these assignments' topics show, so that bleach does not run while an assessor waits. Fragments already
    cached are left alone. Returns how many were sanitized."""
    topics = (Topic.objects.filter(assignments__pk__in=list(assignment_pks)).distinct()
              .select_related("campaign").order_by("pk"))
    made = 0
    for topic in topics:
        # One topic that fails (a fragment the sanitizer chokes on, a cache hiccup) leaves the others warmed.
        try:
            made += rendering.judging_safe_warm(selectors.judging_texts(topic=topic),
                                                collection_pk=topic.campaign.collection_id)
        except Exception:
            log.exception("the judging cache warm-up of topic %s (pk %s) failed", topic.topic_id, topic.pk)
    return made


@transaction.atomic
def assignment_withdraw(*, assignment: Assignment) -> str:
    """Takes a topic away from an assessor. An assignment with no work is deleted; one with judgments is kept,
    read-only, with all of them (nothing submitted is ever deleted). Returns "deleted" or "withdrawn"."""
    assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if not assignment.judgments.exists():
        assignment.visits.all().delete()
        assignment.delete()
        return "deleted"
    if assignment.withdrawn_at is None:
        assignment.withdrawn_at = timezone.now()
        assignment.save(update_fields=["withdrawn_at"])
    return "withdrawn"


@transaction.atomic
def topic_close(*, topic: Topic, closed: bool = True) -> int:
    """Closes (or reopens) a topic for all its assessors: closed assignments are read-only. Returns how many."""
    assignments = Assignment.objects.filter(topic=topic, withdrawn_at__isnull=True)
    if closed:
        return assignments.filter(closed_at__isnull=True).update(closed_at=timezone.now())
    return assignments.exclude(closed_at__isnull=True).update(closed_at=None)


# -- what was shown

def item_visit(*, assignment: Assignment, item_id: str, at=None) -> None:
    """Records when the server first showed this item to this assessor (now, or `at`: a submit's own time when it
    makes the visit); later showings keep the first time."""
    # One INSERT ... ON CONFLICT DO NOTHING: the unique constraint keeps the first time when the item is shown
    # again, or twice at the same moment. Written out: it runs on every judging page.
    with connection.cursor() as cursor:
        cursor.execute(_visit_insert_sql(), [assignment.pk, item_id, db_now() if at is None else db_datetime(at)])


@functools.cache
def _visit_insert_sql() -> str:
    return (f"INSERT INTO {table(ItemVisit)} (assignment_id, item_id, first_shown_at, active_seconds) "
            "VALUES (%s, %s, %s, 0) ON CONFLICT DO NOTHING")


def item_skip(*, assignment: Assignment, item_id: str) -> None:
    """Puts an unjudged item at the back of the queue: "next item" offers it again once the others are done."""
    item_visit(assignment=assignment, item_id=item_id)
    ItemVisit.objects.filter(assignment=assignment, item_id=item_id).update(skipped_at=timezone.now())


# -- judgments

@dataclass(frozen=True)
class GradeInput:
    """One grade submitted from the page or the API; formula_id is empty for answers."""
    grade: str
    comment: str = ""
    formula_id: str = ""


@dataclass
class SubmitResult:
    created: int = 0
    revised: int = 0
    unchanged: int = 0
    complete: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.created or self.revised)


def _check_grades(grades: Sequence[GradeInput], instances: dict[str, str] | None) -> list[str]:
    problems = []
    seen = set()
    for g in grades:
        unit = f"instance {g.formula_id}: " if g.formula_id else ""
        if g.grade not in Grade.values:
            problems.append(f"{unit}'{g.grade}' is not a grade: use 3, 2, 1, 0, SF or DK")
        elif g.grade in GRADES_NEEDING_COMMENT and not g.comment.strip():
            problems.append(f"{unit}a comment is required with {Grade(g.grade).label}: say what went wrong")
        if len(g.comment) > MAX_COMMENT:
            problems.append(f"{unit}the comment is longer than {MAX_COMMENT} characters")
        if "\x00" in g.comment:  # PostgreSQL cannot store it (the page answered 500; the API's fields refuse it)
            problems.append(f"{unit}the comment contains a NUL character (\\x00): remove it")
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


def judgment_submit(*, assignment: Assignment, item: PoolItem, grades: Sequence[GradeInput],
                    user: AbstractBaseUser, active_seconds: float = 0.0, source: str = "web",
                    locked: selectors.LockedAssignment | None = None) -> SubmitResult:
    """Saves the assessor's grades for one item (answers: one grade; formulas: one per selected instance given).

    Idempotent: the unique (assignment, item, instance) constraint keeps one judgment whatever the number of
    identical submissions, and a resubmission of the current value changes nothing. A different value is a new
    revision, and the revision rows keep the old and the new value.

    `locked`: `assignment.lock` of selectors.judging_assignment_item(lock=True) (the judging page's POST reads the
    assignment so with its item, in one query), proof that the row is locked in the transaction this runs in and
    that its closed and withdrawn times are current; anything else is refused. Without it, the row is locked and
    read here.
    """
    if locked is not None and not (isinstance(locked, selectors.LockedAssignment) and locked.assignment is assignment
                                   and locked.held()):
        raise RuntimeError("judgment_submit(locked=...) takes only the assignment's own LockedAssignment, read FOR "
                           "UPDATE in the transaction still open")
    # Under the caller's transaction no savepoint of its own: every refusal comes before the first write, and a
    # failed write fails the caller's transaction as a whole.
    with transaction.atomic(savepoint=locked is None):
        return _judgment_submit(assignment=assignment, item=item, grades=grades, user=user,
                                active_seconds=active_seconds, source=source, locked=locked)


def _judgment_submit(*, assignment: Assignment, item: PoolItem, grades: Sequence[GradeInput],
                     user: AbstractBaseUser, active_seconds: float, source: str,
                     locked: selectors.LockedAssignment | None) -> SubmitResult:
    if assignment.assessor_id != user.pk:
        raise InputError("only the assessor of this assignment may judge its items")
    # One submission of an assignment at a time: a close or a withdrawal cannot slip in between the check and the
    # write, two submissions for instances of one formula both see each other when they decide "complete", and
    # the active time adds up. Every write of a judgment goes through here, so under this lock the judgments read
    # below stay as read until the commit.
    if locked is not None:
        state = (assignment.closed_at, assignment.withdrawn_at)
    else:
        state = (Assignment.objects.select_for_update().filter(pk=assignment.pk)
                 .values_list("closed_at", "withdrawn_at").get())
    if any(state):
        raise InputError("this topic is closed: its judgments can no longer be changed")
    if item.topic_id != assignment.topic_id:
        raise InputError("this item is not in the assignment's topic")
    instances = None
    if assignment.campaign.task == Campaign.Task.FORMULAS:
        instances = dict(PoolInstance.objects.filter(item=item, selected=True).values_list("formula_id", "post_id"))
    problems = _check_grades(grades, instances)
    if problems:
        raise InputError(problems[0] if len(problems) == 1 else "; ".join(problems))

    now = timezone.now()
    existing = selectors.item_judgments(assignment=assignment, item_id=item.item_id)
    result = SubmitResult()
    new, revised = [], []
    for g in grades:
        comment = g.comment.strip()
        judgment = existing.get(g.formula_id)
        if judgment is None:
            new.append((g, comment))
        elif judgment.grade == g.grade and judgment.comment == comment:
            result.unchanged += 1
        else:
            revised.append((judgment, g, comment))
    result.complete = judged_complete(set(existing) | {g.formula_id for g in grades}, instances)

    active = float(active_seconds or 0.0)
    active = min(max(active, 0.0), MAX_ACTIVE_SECONDS) if math.isfinite(active) else 0.0
    # The page recorded the visit when it showed the item; an API client may submit without one (then it is
    # shown "now"). A page shown at this very moment inserts it too: the constraint keeps one, and it is updated.
    add = active if (new or revised) and active else 0.0
    completed_at = now if result.complete else None
    # Under the assignment's lock nobody else inserts these judgments; the unique constraint backs that up.
    new_rows = [(g.formula_id, instances[g.formula_id] if instances is not None else item.item_id, g.grade, comment)
                for g, comment in new]
    if new_rows and connection.vendor == "postgresql":
        # The visit, the new judgments and their first revisions in one statement: one round trip, not 3 or more.
        _visit_and_judgments_insert(assignment, item.item_id, new_rows, now=now, add_seconds=add,
                                    completed_at=completed_at, user=user, active=active, source=source)
        result.created += len(new_rows)
        new_rows = []
    elif add or completed_at is not None:
        if not _visit_update(assignment, item.item_id, add, completed_at):
            item_visit(assignment=assignment, item_id=item.item_id, at=now)
            _visit_update(assignment, item.item_id, add, completed_at)
    elif new_rows:
        item_visit(assignment=assignment, item_id=item.item_id, at=now)

    for formula_id, post_id, grade, comment in new_rows:
        judgment = _judgment_insert(assignment, item.item_id, formula_id, post_id, grade, comment, now)
        _revision(judgment, user, now, "", "", active, source)
        result.created += 1
    for judgment, g, comment in revised:
        old_grade, old_comment = judgment.grade, judgment.comment
        judgment.grade, judgment.comment = g.grade, comment
        judgment.revision += 1
        judgment.updated_at = now
        judgment.save(update_fields=["grade", "comment", "revision", "updated_at"])
        _revision(judgment, user, now, old_grade, old_comment, active, source)
        result.revised += 1
    return result


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
    changed = 0
    now = timezone.now()
    for visit in ItemVisit.objects.filter(assignment__campaign=campaign).select_related("assignment__campaign"):
        item = items.get((visit.assignment.topic_id, visit.item_id))
        complete = item is not None and item_complete(assignment=visit.assignment, item=item)
        if complete != (visit.completed_at is not None):
            visit.completed_at = now if complete else None
            visit.save(update_fields=["completed_at"])
            changed += 1
    return changed


# The submit's writes are written out in SQL: they run on every POST of an assessor's day, and the ORM's building
# of each statement costs more Python than PostgreSQL spends running it.


def _visit_update(assignment: Assignment, item_id: str, add_seconds: float, completed_at) -> int:
    """Adds active time to the visit and marks it complete (keeping an earlier completion time) when
    `completed_at` is given. Returns the rows updated: 0 when the item was never shown."""
    params = []
    if add_seconds:
        params.append(add_seconds)
    if completed_at is not None:
        params.append(db_datetime(completed_at))
    with connection.cursor() as cursor:
        cursor.execute(_visit_update_sql(bool(add_seconds), completed_at is not None),
                       [*params, assignment.pk, item_id])
        return cursor.rowcount


@functools.cache
def _visit_update_sql(add: bool, complete: bool) -> str:
    sets = []
    if add:
        sets.append("active_seconds = active_seconds + %s")
    if complete:
        sets.append("completed_at = COALESCE(completed_at, %s)")
    return f"UPDATE {table(ItemVisit)} SET {', '.join(sets)} WHERE assignment_id = %s AND item_id = %s"


def _judgment_insert(assignment: Assignment, item_id: str, formula_id: str, post_id: str, grade: str, comment: str,
                     now) -> Judgment:
    """A new judgment (revision 1), its first-shown time taken from the visit."""
    judgment = Judgment(assignment=assignment, item_id=item_id, formula_id=formula_id, post_id=post_id, grade=grade,
                        comment=comment, revision=1, submitted_at=now, updated_at=now)
    at = db_datetime(now)
    params = [assignment.pk, item_id, formula_id, post_id, grade, comment, assignment.pk, item_id, at, at]
    sql = _judgment_insert_sql()
    with connection.cursor() as cursor:
        if connection.features.can_return_columns_from_insert:
            cursor.execute(sql + " RETURNING id", params)
            judgment.pk = cursor.fetchone()[0]
        else:
            cursor.execute(sql, params)
            judgment.pk = cursor.lastrowid
    judgment._state.adding = False
    judgment._state.db = connection.alias
    # first_shown_at is left unloaded: read from the database if anyone asks.
    del judgment.first_shown_at
    return judgment


@functools.cache
def _judgment_insert_sql() -> str:
    return (f"INSERT INTO {table(Judgment)} (assignment_id, item_id, formula_id, post_id, grade, comment, revision, "
            "first_shown_at, submitted_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, 1, (SELECT v.first_shown_at "
            f"FROM {table(ItemVisit)} v WHERE v.assignment_id = %s AND v.item_id = %s), %s, %s)")


def _visit_and_judgments_insert(assignment: Assignment, item_id: str, rows: Sequence[tuple[str, str, str, str]], *,
                                now, add_seconds: float, completed_at, user, active: float, source: str) -> None:
    """PostgreSQL: what the plain path writes with _visit_update or item_visit, _judgment_insert and _revision, in
    one statement: the visit (made, shown `now`, when missing; else `add_seconds` added and marked complete when
    `completed_at` is given, an earlier completion time kept), then the new judgments (formula id, post id, grade,
    comment), revision 1 each with their first-shown time from that visit, and the revision row of each."""
    at = db_datetime(now)
    params = [assignment.pk, item_id, at, add_seconds, db_datetime(completed_at), assignment.pk, item_id, at, at]
    for formula_id, post_id, grade, comment in rows:
        params += [formula_id, post_id, grade, comment]
    params += [user.pk, at, active, source]
    with connection.cursor() as cursor:
        cursor.execute(_visit_and_judgments_insert_sql(len(rows)), params)


@functools.lru_cache(maxsize=32)  # keyed by the number of new judgments: one, or a formula's instances
def _visit_and_judgments_insert_sql(count: int) -> str:
    visit, judgment, revision = table(ItemVisit), table(Judgment), table(JudgmentRevision)
    values = ", ".join(["(%s, %s, %s, %s)"] * count)
    # Data-modifying CTEs run once each, in one snapshot: the judgments read the visit from its RETURNING (the row
    # kept or made), the revisions the judgments from theirs.
    return (
        f"WITH v AS (INSERT INTO {visit} AS old (assignment_id, item_id, first_shown_at, active_seconds, "
        "completed_at) VALUES (%s, %s, %s, %s, %s) ON CONFLICT (assignment_id, item_id) DO UPDATE SET "
        "active_seconds = old.active_seconds + EXCLUDED.active_seconds, "
        "completed_at = COALESCE(old.completed_at, EXCLUDED.completed_at) RETURNING first_shown_at), "
        f"j AS (INSERT INTO {judgment} (assignment_id, item_id, formula_id, post_id, grade, comment, revision, "
        "first_shown_at, submitted_at, updated_at) SELECT %s, %s, g.formula_id, g.post_id, g.grade, g.comment, 1, "
        f"v.first_shown_at, %s, %s FROM v, (VALUES {values}) AS g (formula_id, post_id, grade, comment) "
        "RETURNING id, grade, comment) "
        f"INSERT INTO {revision} (judgment_id, number, user_id, at, old_grade, old_comment, grade, comment, "
        "active_seconds, source) SELECT j.id, 1, %s, %s, '', '', j.grade, j.comment, %s, %s FROM j")


def _revision(judgment: Judgment, user, at, old_grade: str, old_comment: str, active: float, source: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(_revision_sql(), [judgment.pk, judgment.revision, user.pk, db_datetime(at), old_grade,
                                         old_comment, judgment.grade, judgment.comment, active, source])


@functools.cache
def _revision_sql() -> str:
    return (f"INSERT INTO {table(JudgmentRevision)} (judgment_id, number, user_id, at, old_grade, old_comment, "
            "grade, comment, active_seconds, source) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")


# -- import (SPEC 9 import_judgments)

@dataclass
class ImportResult:
    judgments: int
    created: int
    revised: int
    unchanged: int
    new_accounts: list[str]
    new_assignments: int


@dataclass(frozen=True)
class _Row:
    line: int
    assessor: str
    topic: str
    item: str
    grade: str
    comment: str
    kind: str
    round: int


ROUND_MAX = 2**31 - 1  # Assignment.round's column


def _import_stream(lines: BinaryIO | Iterable[str | bytes]) -> BinaryIO:
    """The import as a binary stream: a file is read as it is (line by line, each line bounded); lines given as a list
    (the tests, a caller with the text at hand) are joined into one, so that both go through the same reader."""
    if hasattr(lines, "readline"):
        return lines
    return io.BytesIO(b"".join(
        (line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")).rstrip(b"\r\n") + b"\n"
        for line in lines))


def _parse_import(lines: BinaryIO | Iterable[str | bytes], problems: Problems) -> list[_Row]:
    rows = []
    # A line is at most FIELD_MAX bytes: a longer one is reported and skipped without ever being held whole.
    for number, line in iter_lines(_import_stream(lines), problems, line_max=FIELD_MAX):
        if not line.strip():
            continue
        fields = line.split("\t")
        if number == 1 and [f.strip().lower() for f in fields[:3]] == ["assessor", "topic", "item_id"]:
            continue  # a header line
        if not 5 <= len(fields) <= 7:
            problems.add(number, f"expected 5 to 7 tab-separated columns (assessor, topic, item_id, grade, "
                                 f"comment[, kind[, round]]), found {len(fields)}")
            continue
        assessor, topic, item, grade, comment = (f.strip() for f in fields[:5])
        kind = fields[5].strip() if len(fields) > 5 and fields[5].strip() else Assignment.Kind.OFFICIAL
        round_text = fields[6].strip() if len(fields) > 6 else ""
        bad = False
        for label, value in (("assessor", assessor), ("topic", topic), ("item_id", item)):
            if not value:
                problems.add(number, f"empty {label}")
                bad = True
        if assessor and not _valid_username(assessor):
            problems.add(number, f"'{assessor[:40]}' cannot be an account name: at most 150 letters, digits and "
                                 "@ . + - _")
            bad = True
        if grade not in Grade.values:
            problems.add(number, f"'{grade}' is not a grade: use 3, 2, 1, 0, SF or DK")
            bad = True
        elif grade in GRADES_NEEDING_COMMENT and not comment:
            problems.add(number, f"a comment is required with {grade}")
            bad = True
        if kind not in Assignment.Kind.values:
            problems.add(number, f"unknown kind '{kind}': use official, training or dual")
            bad = True
        round_ = 0
        if round_text:
            round_ = parse_int(round_text)
            if round_ is None or not 1 <= round_ <= ROUND_MAX:
                problems.add(number, f"round '{shown(round_text)}' is not a number from 1 to {ROUND_MAX}")
                bad = True
            elif kind != Assignment.Kind.TRAINING:
                problems.add(number, f"a round is given for training judgments only, not for {kind}")
                bad = True
        elif kind == Assignment.Kind.TRAINING:
            round_ = 1
        if not bad:
            rows.append(_Row(number, assessor, topic, item, grade, comment, kind, round_))
    if not rows and not problems:
        problems.add(None, "the file has no rows")
    return rows


@transaction.atomic
def judgments_import(*, campaign: Campaign, lines: BinaryIO | Iterable[str | bytes],
                     user: AbstractBaseUser | None = None, filename: str = "") -> ImportResult:
    """Loads judgments from the TSV of SPEC 9 (for migrations from another tool, and tests): every line is
    checked before anything is written, and a file with any problem changes nothing."""
    problems = Problems(file=filename)
    rows = _parse_import(lines, problems)
    topics = {t.topic_id: t for t in campaign.topics.all()}
    formulas = campaign.task == Campaign.Task.FORMULAS
    # The pools: answers by post id; formulas by the instance's formula id -> (visual id, post id).
    if formulas:
        pooled = {(topic_pk, formula): (visual, post) for topic_pk, formula, visual, post in
                  PoolInstance.objects.filter(item__campaign=campaign, selected=True)
                  .values_list("item__topic_id", "formula_id", "item__item_id", "post_id")}
    else:
        pooled = {(topic_pk, item): (item, item) for topic_pk, item in
                  PoolItem.objects.filter(campaign=campaign).values_list("topic_id", "item_id")}
    seen: dict[tuple, int] = {}
    for row in rows:
        topic = topics.get(row.topic)
        if topic is None:
            problems.add(row.line, f"topic '{row.topic}' is not a topic of campaign '{campaign.name}'")
        elif (topic.pk, row.item) not in pooled:
            what = "formula instance" if formulas else "post"
            problems.add(row.line, f"{what} {row.item} is not in the pool of topic {row.topic}")
        key = (row.assessor, row.topic, row.item, row.kind, row.round)
        if key in seen:
            problems.add(row.line, f"the same judgment again (first on line {seen[key]})")
        seen.setdefault(key, row.line)
    problems.raise_if_any()

    User = get_user_model()
    names = sorted({row.assessor for row in rows})
    users = {u.username: u for u in User.objects.filter(username__in=names)}
    new_accounts = [name for name in names if name not in users]
    for name in new_accounts:
        account = User(username=name)
        account.set_unusable_password()
        account.save()
        users[name] = account

    # Official assignments first, so that dual ones in the same file find their official assessor.
    order = {Assignment.Kind.OFFICIAL: 0, Assignment.Kind.TRAINING: 1, Assignment.Kind.DUAL: 2}
    wanted = sorted({(row.kind, row.round, row.topic, row.assessor) for row in rows},
                    key=lambda k: (order[k[0]], k[1], k[2], k[3]))
    new_assignments = 0
    assignments: dict[tuple, Assignment] = {}
    for kind, round_, topic_id, name in wanted:
        try:
            result = assignments_create(campaign=campaign, assessors=[users[name]], topic_ids=[topic_id],
                                        kind=kind, round=round_ or None, user=user)
        except InputError as exc:
            lines_of = [r.line for r in rows if (r.kind, r.round, r.topic, r.assessor) == (kind, round_, topic_id,
                                                                                          name)]
            for message in exc.messages():
                problems.add(lines_of[0], f"{name}: {message}")
            continue
        new_assignments += len(result.created)
        assignments[(kind, round_, topic_id, name)] = (result.created or result.existing)[0]
    problems.raise_if_any()

    items = {(i.topic_id, i.item_id): i for i in PoolItem.objects.filter(campaign=campaign)}
    totals = SubmitResult()
    for row in rows:
        assignment = assignments[(row.kind, row.round, row.topic, row.assessor)]
        topic = topics[row.topic]
        visual, _post = pooled[(topic.pk, row.item)]
        item = items[(topic.pk, visual)]
        grade = GradeInput(grade=row.grade, comment=row.comment, formula_id=row.item if formulas else "")
        try:
            with transaction.atomic():
                r = judgment_submit(assignment=assignment, item=item, grades=[grade], user=users[row.assessor],
                                    source="import")
        except InputError as exc:
            problems.add_all(row.line, exc.messages())
            continue
        totals.created += r.created
        totals.revised += r.revised
        totals.unchanged += r.unchanged
    problems.raise_if_any()
    return ImportResult(judgments=len(rows), created=totals.created, revised=totals.revised,
                        unchanged=totals.unchanged, new_accounts=new_accounts, new_assignments=new_assignments)


def campaign_rows_delete(sender, *, campaign: Campaign, **kwargs) -> None:
    """pooling's campaign_delete, before it deletes the campaign: its assignments (and what each assessor was shown)
    and its training rounds go with it. Refused if any judgment exists: nothing an assessor submitted is ever
    deleted (campaign_delete checks first; this is the check where the judgments live)."""
    if Judgment.objects.filter(assignment__campaign=campaign).exists():
        raise InputError(f"campaign '{campaign.name}' has judgments and is kept: nothing an assessor submitted is "
                         "ever deleted")
    GoldJudgment.objects.filter(round__campaign=campaign).delete()
    TrainingRound.objects.filter(campaign=campaign).delete()
    ItemVisit.objects.filter(assignment__campaign=campaign).delete()
    Assignment.objects.filter(campaign=campaign).delete()

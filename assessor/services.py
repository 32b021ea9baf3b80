"""Writes of the judging app: assignments, what was shown, judgments with their revisions, imports."""
from __future__ import annotations

import io
import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import BinaryIO, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Expression, F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from people.services import username_valid as _valid_username
from pooling.errors import InputError, Problems
from pooling.formats.se_xml import parse_int
from pooling.formats.textio import FIELD_MAX, iter_lines, shown
from pooling.models import Campaign, PoolInstance, PoolItem, Topic

from . import rendering, rules, selectors
from .models import Assignment, GoldJudgment, ItemVisit, Judgment, JudgmentRevision, TrainingRound

log = logging.getLogger(__name__)

# Longest active time one submission may report: a page left open over a weekend is not a day of work.
MAX_ACTIVE_SECONDS = 4 * 3600


# -- assignments

@dataclass
class AssignResult:
    created: list[Assignment]
    existing: list[Assignment]


@transaction.atomic
def assignments_create(*, campaign: Campaign, assessors: Sequence[User], topic_ids: Sequence[str],
                       kind: str = Assignment.Kind.OFFICIAL, round: int | None = None,
                       user: User | None = None) -> AssignResult:
    """Gives every listed topic to every listed assessor. Assigning twice is harmless (the existing assignment is
    reported, not duplicated). Rejected as a whole: unknown topics, a second official assessor for a topic, a
    dual assignment for a topic nobody else judges officially."""
    kind, round_ = rules.kind_and_round(kind, round)
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
    # INSERT ... ON CONFLICT DO NOTHING: the unique constraint keeps the first time when the item is shown again,
    # or twice at the same moment.
    ItemVisit.objects.bulk_create([ItemVisit(assignment_id=assignment.pk, item_id=item_id,
                                             first_shown_at=at or timezone.now())], ignore_conflicts=True)


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
        problems += [unit + problem for problem in rules.grade_problems(g.grade, g.comment)]
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


@transaction.atomic
def judgment_submit(*, assignment_pk: int, item_id: str, grades: Sequence[GradeInput], user: User,
                    active_seconds: float = 0.0, source: str = "web") -> SubmitResult:
    """Saves the assessor's grades for one item (answers: one grade; formulas: one per selected instance given).

    Idempotent: the unique (assignment, item, instance) constraint keeps one judgment whatever the number of
    identical submissions, and a resubmission of the current value changes nothing. A different value is a new
    revision, and the revision rows keep the old and the new value.

    Assignment.DoesNotExist when the assignment is not the user's, PoolItem.DoesNotExist when its topic has no such
    item (a 404 to the pages and the API); InputError for grades refused or a closed topic.
    """
    # One submission of an assignment at a time: a close or a withdrawal cannot slip in between the check and the
    # write, two submissions for instances of one formula both see each other when they decide "complete", and
    # the active time adds up. Every write of a judgment goes through here, so under this lock the judgments read
    # below stay as read until the commit. Only the assignment's row: no FOR UPDATE across the joined campaign.
    assignment = (Assignment.objects.select_for_update(of=("self",)).select_related("campaign")
                  .get(pk=assignment_pk, assessor=user))
    if assignment.read_only:
        raise InputError("this topic is closed: its judgments can no longer be changed")
    item = PoolItem.objects.get(topic_id=assignment.topic_id, item_id=item_id)
    instances = None
    if assignment.campaign.task == Campaign.Task.FORMULAS:
        instances = dict(PoolInstance.objects.filter(item=item, selected=True).values_list("formula_id", "post_id"))
    problems = _check_grades(grades, instances)
    if problems:
        raise InputError(problems[0] if len(problems) == 1 else "; ".join(problems))

    now = timezone.now()
    existing = selectors.item_judgments(assignment=assignment, item_id=item_id)
    result = SubmitResult()
    new, revised = [], []
    for g in grades:
        comment = g.comment.strip()
        judgment = existing.get(g.formula_id)
        if judgment is None:
            new.append(Judgment(assignment=assignment, item_id=item_id, formula_id=g.formula_id,
                                post_id=instances[g.formula_id] if instances is not None else item_id,
                                grade=g.grade, comment=comment, revision=1, submitted_at=now, updated_at=now))
        elif judgment.grade == g.grade and judgment.comment == comment:
            result.unchanged += 1
        else:
            revised.append((judgment, g, comment))
    result.complete = judged_complete(set(existing) | {g.formula_id for g in grades}, instances)

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
    revisions = []
    if new:
        first_shown = visit.values_list("first_shown_at", flat=True).get()
        for judgment in new:
            judgment.first_shown_at = first_shown
        # Under the assignment's lock nobody else inserts these judgments; the unique constraint backs that up.
        for judgment in Judgment.objects.bulk_create(new):
            revisions.append(JudgmentRevision(judgment=judgment, number=1, user=user, at=now, grade=judgment.grade,
                                              comment=judgment.comment, active_seconds=active, source=source))
        result.created = len(new)
    for judgment, g, comment in revised:
        revisions.append(JudgmentRevision(judgment=judgment, number=judgment.revision + 1, user=user, at=now,
                                          old_grade=judgment.grade, old_comment=judgment.comment, grade=g.grade,
                                          comment=comment, active_seconds=active, source=source))
        judgment.grade, judgment.comment = g.grade, comment
        judgment.revision += 1
        judgment.updated_at = now
        judgment.save(update_fields=["grade", "comment", "revision", "updated_at"])
        result.revised += 1
    JudgmentRevision.objects.bulk_create(revisions)
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




def _import_stream(lines: BinaryIO | Iterable[str | bytes]) -> BinaryIO:
    """The import as a binary stream: a file is read as it is (line by line, each line bounded); lines given as a list
    (the tests, a caller with the text at hand) are joined into one, so that both go through the same reader."""
    if hasattr(lines, "readline"):
        return cast("BinaryIO", lines)  # a file: mypy's hasattr narrowing cannot tell it from an iterable of lines
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
        wrong = rules.grade_problems(grade, comment)
        problems.add_all(number, wrong)
        bad = bad or bool(wrong)
        round_ = 0
        round_number = None
        if round_text and (round_number := parse_int(round_text)) is None:
            problems.add(number, f"round '{shown(round_text)}' is not a number")
            bad = True
        try:
            kind, round_ = rules.kind_and_round(kind, round_number)
        except InputError as exc:
            problems.add_all(number, exc.messages())
            bad = True
        if not bad:
            rows.append(_Row(number, assessor, topic, item, grade, comment, kind, round_))
    if not rows and not problems:
        problems.add(None, "the file has no rows")
    return rows


@transaction.atomic
def judgments_import(*, campaign: Campaign, lines: BinaryIO | Iterable[str | bytes],
                     user: User | None = None, filename: str = "") -> ImportResult:
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

    user_model = get_user_model()
    names = sorted({row.assessor for row in rows})
    users = {u.username: u for u in user_model.objects.filter(username__in=names)}
    new_accounts = [name for name in names if name not in users]
    for name in new_accounts:
        account = user_model(username=name)
        account.set_unusable_password()
        account.save()
        users[name] = account

    # Official assignments first, so that dual ones in the same file find their official assessor.
    order: dict[str, int] = {Assignment.Kind.OFFICIAL: 0, Assignment.Kind.TRAINING: 1, Assignment.Kind.DUAL: 2}
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

    totals = SubmitResult()
    for row in rows:
        assignment = assignments[(row.kind, row.round, row.topic, row.assessor)]
        visual, _post = pooled[(topics[row.topic].pk, row.item)]
        grade = GradeInput(grade=row.grade, comment=row.comment, formula_id=row.item if formulas else "")
        try:
            # A savepoint of its own (judgment_submit is atomic): a refused row leaves the others to be checked.
            r = judgment_submit(assignment_pk=assignment.pk, item_id=visual, grades=[grade],
                                user=users[row.assessor], source="import")
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

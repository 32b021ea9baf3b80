"""import_judgments (docs/formats.md, Judgments): a TSV of judgments made elsewhere, or a TREC qrels file with its
assessor and kind chosen beside it (ir/formats/judgments_tsv.py reads both), checked by the same rules as the judging
page and written as judgment_submit writes them, in bulk: every check is one query for the whole file (topics, pools,
accounts, assignments, judgments, visits), and the rows are inserted in batches (docs/judging.md, "Importing
judgments")."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import BinaryIO

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.template.defaultfilters import pluralize
from django.utils import timezone

from ir.formats.judgments_tsv import (
    QRELS,
    JudgmentRecord,
    binary_lines,
    judgments_format,
    qrels_judgments,
    read_judgments,
)
from ir.grades import Scheme
from ir.problems import InputError, Problems
from judging import rules, selectors
from judging.models import Assignment, ItemVisit, Judgment
from judging.services.assignments import pairs_create
from judging.services.judgments import (
    BATCH,
    CLOSED,
    NEW,
    UNCHANGED,
    NewJudgment,
    judged_complete,
    judgment_change,
    judgments_save,
)
from people.services import username_valid as _valid_username
from pooling.bulk import NULL, bulk_insert, copy_text, stamps_upsert
from pooling.models import Campaign, PoolInstance, PoolItem, Topic
from pooling.services import pool_items_add

# What the organizer chooses for lines of items outside the pools, and for official lines of a topic another
# assessor holds officially already: the file is refused (saying so), or those lines are skipped, or added to the
# pools (OUTSIDE), or imported as dual judgments (ASSIGNED).
REFUSE, SKIP, ADD, DUAL = "refuse", "skip", "add", "dual"
OUTSIDE = (REFUSE, SKIP, ADD)
ASSIGNED = (REFUSE, DUAL, SKIP)


@dataclass
class ImportResult:
    judgments: int
    created: int
    revised: int
    unchanged: int
    new_accounts: list[str]
    new_assignments: int
    format: str = "tsv"
    outside_pool: int = 0  # lines of items that were outside the pools (skipped, or their items added, as chosen)
    added_to_pool: int = 0  # items added to the pools
    skipped_assigned: int = 0  # official lines skipped, their topic being assigned officially to another assessor
    as_dual: list[str] = field(default_factory=list)  # topics imported as dual, being assigned officially already


def _checked_rows(records: Iterable[JudgmentRecord], problems: Problems, scheme: Scheme) -> list[JudgmentRecord]:
    """The records that pass the judging page's rules (rules.py) and can name an account, with the kind and round
    their assignment is stored with; the others are reported with their line."""
    rows = []
    # A file names a few accounts and kinds many times over: each is checked once.
    names: dict[str, bool] = {}
    kinds: dict[tuple[str, int | None], tuple[str, int] | list[str]] = {}
    bare: dict[str, list[str]] = {}
    for r in records:
        bad = r.refused
        if r.assessor and r.assessor not in names:
            names[r.assessor] = _valid_username(r.assessor)
        if r.assessor and not names[r.assessor]:
            problems.add(r.line, f"'{r.assessor[:40]}' cannot be an account name: at most 150 letters, digits and "
                                 "@ . + - _")
            bad = True
        if r.comment:
            wrong = rules.grade_problems(r.grade, r.comment, scheme=scheme)
        elif r.grade in bare:  # most lines: a grade without a comment, each grade checked once
            wrong = bare[r.grade]
        else:
            wrong = bare[r.grade] = rules.grade_problems(r.grade, "", scheme=scheme)
        problems.add_all(r.line, wrong)
        bad = bad or bool(wrong)
        kind = kinds.get((r.kind, r.round))
        if kind is None:
            kind = kinds[(r.kind, r.round)] = _stored_kind(r.kind, r.round)
        if isinstance(kind, list):
            problems.add_all(r.line, kind)
        elif not bad:
            rows.append(JudgmentRecord._make((*r[:6], *kind, False)))
    return rows


def _stored_kind(kind: str, round_: int | None) -> tuple[str, int] | list[str]:
    """The kind and round an assignment of a line is stored with, or what is wrong with them."""
    try:
        stored = rules.kind_and_round(kind or Assignment.Kind.OFFICIAL, round_)
        rules.graded_kind(stored[0])
    except InputError as exc:
        return exc.messages()
    return stored


@transaction.atomic
def judgments_import(*, campaign: Campaign, lines: BinaryIO | Iterable[str | bytes],
                     user: User | None = None, filename: str = "", assessor: str = "", kind: str = "",
                     round: int | None = None, outside: str = REFUSE, assigned: str = REFUSE) -> ImportResult:
    """Loads judgments from the TSV of docs/formats.md ("Judgments") (for migrations from another tool, and tests), or
    from a TREC qrels file (4 columns), whose lines are `assessor`'s judgments in assignments of `kind` and `round`
    (official when no kind is given). Every line is checked before anything is written, and a file with any problem
    changes nothing. Lines of items outside the pools are refused, skipped or added to the pools (`outside`); official
    lines of a topic another assessor holds officially are refused, imported as dual judgments or skipped (`assigned`).
    What is written is what judgment_submit writes for each line, submitted in file order: the judgment (or its next
    revision) with its revision row, and the item's visit, completed when the item is."""
    if outside not in OUTSIDE:
        raise InputError(f"items outside the pools are {', '.join(OUTSIDE)}, not '{outside[:20]}'")
    if assigned not in ASSIGNED:
        raise InputError(f"topics assigned already are {', '.join(ASSIGNED)}, not '{assigned[:20]}'")
    problems = Problems(file=filename)
    stream = binary_lines(lines)
    fmt = judgments_format(stream)
    if fmt == QRELS:
        if not assessor.strip():
            raise InputError(f"{filename or 'the file'} is a TREC qrels file, which names no assessor: choose whose "
                             "judgments these are (an assessor's account, or 'imported'), and their kind")
        records = qrels_judgments(stream, problems, assessor=assessor.strip(), kind=kind, round_=round,
                                  filename=filename)
    else:
        records = read_judgments(stream, problems)
    rows = _checked_rows(records, problems, campaign.judging_scheme)
    topics = {t.topic_id: t for t in campaign.topics.all()}
    formulas = campaign.task == Campaign.Task.FORMULAS
    if formulas and outside == ADD:
        raise InputError(f"campaign '{campaign.name}' pools formulas, whose pool items are built with their "
                         "instances from the runs: items outside the pools can be skipped, not added")
    # The pools: answers by post id; formulas by the instance's formula id -> (visual id, post id), with each
    # visual id's selected instances (formula id -> post id) for the rule of a complete item.
    instances: dict[tuple[int, str], dict[str, str]] | None = None
    if formulas:
        pooled = {(topic_pk, formula): (visual, post) for topic_pk, formula, visual, post in
                  PoolInstance.objects.filter(item__campaign=campaign, selected=True)
                  .values_list("item__topic_id", "formula_id", "item__item_id", "post_id")}
        instances = {}
        for (topic_pk, formula), (visual, post) in pooled.items():
            instances.setdefault((topic_pk, visual), {})[formula] = post
    else:
        pooled = {(topic_pk, item): (item, item) for topic_pk, item in
                  PoolItem.objects.filter(campaign=campaign).values_list("topic_id", "item_id")}
    seen: dict[tuple, int] = {}
    kept: list[JudgmentRecord] = []
    unpooled: dict[int, dict[str, None]] = {}  # topic pk -> the items to add to its pool, in file order
    outside_lines = 0
    for row in rows:
        topic = topics.get(row.topic_id)
        if topic is None:
            problems.add(row.line, f"topic '{row.topic_id}' is not a topic of campaign '{campaign.name}'")
        elif (topic.pk, row.item_id) not in pooled:
            outside_lines += 1
            if outside == REFUSE:
                what = "formula instance" if formulas else "post"
                problems.add(row.line, f"{what} {row.item_id} is not in the pool of topic {row.topic_id}")
            elif outside == SKIP:
                continue
            else:
                unpooled.setdefault(topic.pk, {})[row.item_id] = None
        key = (row.assessor, row.topic_id, row.item_id, row.kind, row.round)
        if key in seen:
            problems.add(row.line, f"the same judgment again (first on line {seen[key]})")
        seen.setdefault(key, row.line)
        kept.append(row)
    if outside == REFUSE and outside_lines:
        problems.add(None, f"{outside_lines:,} line{pluralize(outside_lines)} name{pluralize(outside_lines, 's,')} "
                           "items outside the pools: choose to skip them or to add them to the pools (on the form, "
                           "or import_judgments --outside skip|add)")
    problems.raise_if_any()
    rows, as_dual, skipped_assigned = _assigned_elsewhere(campaign=campaign, rows=kept, assigned=assigned,
                                                          problems=problems)
    problems.raise_if_any()
    added = pool_items_add(campaign=campaign, items={pk: list(items) for pk, items in unpooled.items()}) \
        if unpooled else 0
    for topic_pk, items in unpooled.items():
        pooled.update(((topic_pk, item), (item, item)) for item in items)

    users, new_accounts = _accounts(sorted({row.assessor for row in rows}))
    assignments, given, made = _assignments(campaign=campaign, rows=rows, topics=topics, users=users, user=user,
                                            problems=problems)
    problems.raise_if_any()

    # One write of an assignment's judgments at a time: the lock judgment_submit takes, on every assignment at once.
    read_only = {pk for pk, closed, withdrawn in Assignment.objects.select_for_update(of=("self",))
                 .filter(pk__in={a.pk for a in assignments.values()}).values_list("pk", "closed_at", "withdrawn_at")
                 if closed is not None or withdrawn is not None}
    for row in rows if read_only else ():
        if assignments[_key(row)].pk in read_only:
            problems.add(row.line, CLOSED)
    problems.raise_if_any()

    written = _judgments_write(rows=rows, assignments=assignments, made=made, topics=topics, pooled=pooled,
                               instances=instances)
    return ImportResult(judgments=len(rows), created=written.created, revised=written.revised,
                        unchanged=written.unchanged, new_accounts=new_accounts, new_assignments=given, format=fmt,
                        outside_pool=outside_lines, added_to_pool=added,
                        skipped_assigned=skipped_assigned, as_dual=as_dual)


def import_notes(result: ImportResult) -> list[str]:
    """What an import did beside writing judgments, one sentence each, as the command and the job's page say it."""
    notes = []
    if result.outside_pool:
        what = (f"{result.added_to_pool:,} item{pluralize(result.added_to_pool)} added to the pools"
                if result.added_to_pool else "skipped")
        notes.append(f"{result.outside_pool:,} line{pluralize(result.outside_pool)} of items outside the pools: "
                     f"{what}.")
    if result.skipped_assigned:
        notes.append(f"{result.skipped_assigned:,} line{pluralize(result.skipped_assigned)} of topics assigned "
                     "officially to another assessor skipped.")
    if result.as_dual:
        shown = ", ".join(result.as_dual[:10]) + (", ..." if len(result.as_dual) > 10 else "")
        notes.append(f"{len(result.as_dual):,} topic{pluralize(len(result.as_dual))} assigned officially to another "
                     f"assessor imported as dual judgments ({shown}).")
    return notes


def _assigned_elsewhere(*, campaign: Campaign, rows: list[JudgmentRecord], assigned: str, problems: Problems
                        ) -> tuple[list[JudgmentRecord], list[str], int]:
    """The rows to import, the topics whose official lines go to dual assignments and how many lines were skipped:
    an official line of a topic another assessor holds officially is refused (on the topic's first such line, saying
    the choices), made a dual judgment of its assessor, or skipped, as `assigned` says."""
    wanted = {row.topic_id for row in rows if row.kind == Assignment.Kind.OFFICIAL}
    owners = dict(Assignment.objects.filter(campaign=campaign, kind=Assignment.Kind.OFFICIAL,
                                            withdrawn_at__isnull=True, topic__topic_id__in=wanted)
                  .values_list("topic__topic_id", "assessor__username")) if wanted else {}
    kept, as_dual, skipped = [], dict[str, None](), 0
    refused: set[str] = set()
    for row in rows:
        owner = owners.get(row.topic_id)
        if row.kind != Assignment.Kind.OFFICIAL or owner is None or owner == row.assessor:
            kept.append(row)
        elif assigned == SKIP:
            skipped += 1
        elif assigned == DUAL:
            as_dual[row.topic_id] = None
            kept.append(row._replace(kind=Assignment.Kind.DUAL, round=0))
        elif row.topic_id not in refused:
            refused.add(row.topic_id)
            problems.add(row.line, f"topic {row.topic_id} is already assigned officially to {owner}: withdraw that "
                                   "assignment first, or choose to import its lines as dual judgments or to skip "
                                   "them (on the form, or import_judgments --assigned dual|skip)")
    return kept, list(as_dual), skipped


def _accounts(names: list[str]) -> tuple[dict[str, User], list[str]]:
    """The accounts of these names by name, those missing created (no usable password), and the names created."""
    user_model = get_user_model()
    users = {u.username: u for u in user_model.objects.filter(username__in=names)}
    new_accounts = [name for name in names if name not in users]
    made = []
    for name in new_accounts:
        account = user_model(username=name)
        account.set_unusable_password()
        made.append(account)
    users.update((account.username, account) for account in user_model.objects.bulk_create(made))
    return users, new_accounts


AssignmentKey = tuple[str, int, str, str]  # kind, round, topic id, assessor


def _key(row: JudgmentRecord) -> AssignmentKey:
    """The assignment a checked row goes to (_checked_rows gave it its stored kind and round)."""
    return row.kind, row.round or 0, row.topic_id, row.assessor


def _assignments(*, campaign: Campaign, rows: list[JudgmentRecord], topics: dict[str, Topic],
                 users: dict[str, User], user: User | None,
                 problems: Problems) -> tuple[dict[AssignmentKey, Assignment], int, set[int]]:
    """The assignment of every row, made where missing by the assignments' rules (a refused one is reported on
    the first line that needs it), how many were given (made, or withdrawn ones given back) and the keys of those
    made now (which hold nothing yet). Official assignments first, so that dual ones in the same
    file find their official assessor; one set of queries per kind and round, whatever the number of topics."""
    first_line: dict[AssignmentKey, int] = {}
    for r in rows:
        first_line.setdefault(_key(r), r.line)
    order: dict[str, int] = {Assignment.Kind.OFFICIAL: 0, Assignment.Kind.TRAINING: 1, Assignment.Kind.DUAL: 2}
    groups: dict[tuple[str, int], list[tuple[str, str]]] = {}
    for kind, round_, topic_id, name in sorted(first_line, key=lambda k: (order[k[0]], k[1], k[2], k[3])):
        groups.setdefault((kind, round_), []).append((topic_id, name))
    assignments: dict[AssignmentKey, Assignment] = {}
    given, made = 0, set[int]()
    for (kind, round_), pairs in groups.items():
        def located(assessor: User, topic: Topic, message: str, kind: str = kind, round_: int = round_
                    ) -> tuple[int | None, str]:
            return first_line[(kind, round_, topic.topic_id, assessor.username)], f"{assessor.username}: {message}"

        try:
            # A savepoint of its own: a refused kind leaves the others to be checked.
            with transaction.atomic():
                result = pairs_create(campaign=campaign, pairs=[(users[n], topics[t]) for t, n in pairs], kind=kind,
                                      round_=round_, user=user, located=located)
        except InputError as exc:
            for p in exc.problems:
                problems.add(first_line[(kind, round_, *pairs[0])] if p.line is None else p.line, p.message)
            continue
        given += len(result.created)
        revived = {a.pk for a in result.revived}
        made.update(a.pk for a in result.created if a.pk not in revived)
        by_pair = {(a.topic_id, a.assessor_id): a for a in result.created + result.existing}
        for topic_id, name in pairs:
            assignments[(kind, round_, topic_id, name)] = by_pair[(topics[topic_id].pk, users[name].pk)]
    return assignments, given, made


@dataclass
class _Written:
    created: int = 0
    revised: int = 0
    unchanged: int = 0


def _judgments_write(*, rows: list[JudgmentRecord], assignments: dict[AssignmentKey, Assignment], made: set[int],
                     topics: dict[str, Topic], pooled: dict[tuple[int, str], tuple[str, str]],
                     instances: dict[tuple[int, str], dict[str, str]] | None) -> _Written:
    """Writes every row as judgment_submit would, submitted one after the other (the file holds each judgment once):
    a new judgment, a revision of a changed one, or nothing for one unchanged; the item's visit made when a judgment
    is new or the item complete, and marked complete once it is."""
    now = timezone.now()
    pks = {a.pk for a in assignments.values()}
    existing = selectors.judgments_by_unit(assignment_pks=pks)
    judged: dict[tuple[int, str], set[str]] = {}
    for assignment_pk, item_id, formula_id in existing:
        judged.setdefault((assignment_pk, item_id), set()).add(formula_id)
    written = _Written()
    new: list[tuple[int, str, str, str, str, str]] = []  # NewJudgment but for its first-shown time
    revised: list[tuple[Judgment, str, str]] = []
    units: dict[tuple[int, str], int] = {}  # (assignment pk, item id) -> topic pk, of the items the file judges
    with_new: set[tuple[int, str]] = set()
    assignment_pks = {key: a.pk for key, a in assignments.items()}
    topic_pks = {topic_id: t.pk for topic_id, t in topics.items()}
    for row in rows:
        assignment_pk = assignment_pks[_key(row)]
        topic_pk = topic_pks[row.topic_id]
        item_id, post_id = pooled[(topic_pk, row.item_id)]
        formula_id = row.item_id if instances is not None else ""
        unit = (assignment_pk, item_id)
        units[unit] = topic_pk
        judged.setdefault(unit, set()).add(formula_id)
        judged_unit = existing.get((assignment_pk, item_id, formula_id))
        # judgment_submit's rule; a line has no facets, so a judgment's facets are left as they are
        change = judgment_change(judged_unit, row.grade, row.comment)
        if change == NEW:
            # first_shown_at: the item's visit's, known once the visits are written
            new.append((assignment_pk, item_id, formula_id, post_id, row.grade, row.comment))
            with_new.add(unit)
        elif change == UNCHANGED:
            written.unchanged += 1
        else:
            assert judged_unit is not None
            judgment = Judgment(pk=judged_unit.pk, assignment_id=assignment_pk, grade=judged_unit.grade,
                                comment=judged_unit.comment, revision=judged_unit.revision)
            revised.append((judgment, row.grade, row.comment))
    # The judged set only grows line after line, so an item complete at its last line is complete from then on.
    complete = {unit for unit, topic_pk in units.items()
                if judged_complete(judged[unit], None if instances is None else instances.get((topic_pk, unit[1]), {}))}
    # An assignment this import made has no visit yet, and none can be made before the commit (no one else sees it);
    # one given back after a withdrawal keeps its visits, and is read.
    visits = selectors.visits_by_item(assignment_pks=pks - made)
    shown = {unit: visit.first_shown_at for unit, visit in visits.items()}
    # The visits to make (complete or not) and those to complete.
    writes = {unit: unit in complete for unit in (with_new | complete) - visits.keys()}
    writes.update((unit, True) for unit in complete & visits.keys() if visits[unit].completed_at is None)
    shown.update(_visits_write(writes=writes, made=made, at=now))
    judgments_save(new=[NewJudgment(*j, shown.get(j[:2], now)) for j in new], revised=revised,
                   assessors={a.pk: a.assessor_id for a in assignments.values()}, at=now, active_seconds=0.0,
                   source="import", copy=True)
    written.created, written.revised = len(new), len(revised)
    return written


def _visits_write(*, writes: dict[tuple[int, str], bool], made: set[int],
                  at: datetime) -> dict[tuple[int, str], datetime]:
    """Makes the visits of these items (assignment pk, item id) where missing, first shown `at`, and completes those
    marked True; returns the first-shown times other than `at`. A judging page may show one of them meanwhile: its
    visit (and time) is kept, and completed when marked. The visits of assignments made by this import (`made`, not
    those given back after a withdrawal) cannot exist yet: on PostgreSQL they are copied straight into the table."""
    if not writes:
        return {}
    if connection.vendor == "postgresql":
        stamp = copy_text(at.isoformat())  # COPY's text of `at`, as judgments_save writes it
        fresh = [(unit, complete) for unit, complete in writes.items() if unit[0] in made]
        bulk_insert(ItemVisit, ["assignment_id", "item_id", "first_shown_at", "completed_at", "active_seconds"], fresh,
                    copy_line=lambda r: f"{r[0][0]}\t{copy_text(r[0][1])}\t{stamp}\t{stamp if r[1] else NULL}\t0\n")
        writes = {unit: complete for unit, complete in writes.items() if unit[0] not in made}
        if not writes:
            return {}
        # The others by one INSERT ... ON CONFLICT (pooling.bulk.stamps_upsert): a visit there keeps its first-shown
        # time, and takes a completed time only where it has none.
        return stamps_upsert(writes.items(), model=ItemVisit, keys=("assignment", "item_id"), first="first_shown_at",
                             done="completed_at", zero=["active_seconds"], at=at)
    # Elsewhere (SQLite) the ORM's batches: a visit already there has its completed time set only when it had none
    # (the caller sends no other), and SQLite has one writer at a time, this transaction.
    ItemVisit.objects.bulk_create([ItemVisit(assignment_id=a, item_id=i, first_shown_at=at,
                                             completed_at=at if c else None) for (a, i), c in writes.items()],
                                  update_conflicts=True, unique_fields=["assignment", "item_id"],
                                  update_fields=["completed_at"], batch_size=BATCH)
    visits = selectors.visits_by_item(assignment_pks={a for a, _ in writes})
    return {unit: visits[unit].first_shown_at for unit in writes}

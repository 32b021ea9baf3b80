"""import_judgments (SPEC 9): a TSV of judgments made elsewhere (ir/formats/judgments_tsv.py reads it), checked
by the same rules as the judging page and written through the same services."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction

from ir.formats.judgments_tsv import JudgmentRecord, binary_lines, read_judgments
from ir.problems import InputError, Problems
from people.services import username_valid as _valid_username
from pooling.models import Campaign, PoolInstance, PoolItem

from .. import rules
from ..models import Assignment
from .assignments import assignments_create
from .judgments import GradeInput, SubmitResult, judgment_submit


@dataclass
class ImportResult:
    judgments: int
    created: int
    revised: int
    unchanged: int
    new_accounts: list[str]
    new_assignments: int


def _checked_rows(records: Iterable[JudgmentRecord], problems: Problems) -> list[JudgmentRecord]:
    """The records that pass the judging page's rules (rules.py) and can name an account, with the kind and round
    their assignment is stored with; the others are reported with their line."""
    rows = []
    for r in records:
        bad = r.refused
        if r.assessor and not _valid_username(r.assessor):
            problems.add(r.line, f"'{r.assessor[:40]}' cannot be an account name: at most 150 letters, digits and "
                                 "@ . + - _")
            bad = True
        wrong = rules.grade_problems(r.grade, r.comment)
        problems.add_all(r.line, wrong)
        bad = bad or bool(wrong)
        try:
            kind, round_ = rules.kind_and_round(r.kind or Assignment.Kind.OFFICIAL, r.round)
            rules.graded_kind(kind)
        except InputError as exc:
            problems.add_all(r.line, exc.messages())
            bad = True
        if not bad:
            rows.append(r._replace(kind=kind, round=round_))
    return rows


@transaction.atomic
def judgments_import(*, campaign: Campaign, lines: BinaryIO | Iterable[str | bytes],
                     user: User | None = None, filename: str = "") -> ImportResult:
    """Loads judgments from the TSV of SPEC 9 (for migrations from another tool, and tests): every line is
    checked before anything is written, and a file with any problem changes nothing."""
    problems = Problems(file=filename)
    rows = _checked_rows(read_judgments(binary_lines(lines), problems), problems)
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
        topic = topics.get(row.topic_id)
        if topic is None:
            problems.add(row.line, f"topic '{row.topic_id}' is not a topic of campaign '{campaign.name}'")
        elif (topic.pk, row.item_id) not in pooled:
            what = "formula instance" if formulas else "post"
            problems.add(row.line, f"{what} {row.item_id} is not in the pool of topic {row.topic_id}")
        key = (row.assessor, row.topic_id, row.item_id, row.kind, row.round)
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
    wanted = sorted({(row.kind, row.round, row.topic_id, row.assessor) for row in rows},
                    key=lambda k: (order[k[0]], k[1], k[2], k[3]))
    new_assignments = 0
    assignments: dict[tuple, Assignment] = {}
    for kind, round_, topic_id, name in wanted:
        try:
            result = assignments_create(campaign=campaign, assessors=[users[name]], topic_ids=[topic_id],
                                        kind=kind, round=round_ or None, user=user)
        except InputError as exc:
            lines_of = [r.line for r in rows
                        if (r.kind, r.round, r.topic_id, r.assessor) == (kind, round_, topic_id, name)]
            for message in exc.messages():
                problems.add(lines_of[0], f"{name}: {message}")
            continue
        new_assignments += len(result.created)
        assignments[(kind, round_, topic_id, name)] = (result.created or result.existing)[0]
    problems.raise_if_any()

    totals = SubmitResult()
    for row in rows:
        assignment = assignments[(row.kind, row.round, row.topic_id, row.assessor)]
        visual, _post = pooled[(topics[row.topic_id].pk, row.item_id)]
        grade = GradeInput(grade=row.grade, comment=row.comment, formula_id=row.item_id if formulas else "")
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

"""import_judgments (SPEC 9): a TSV of judgments made elsewhere, read line by line and checked by the same rules as
the judging page, written through the same services."""
from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO, cast

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction

from core.errors import InputError, Problems
from people.services import username_valid as _valid_username
from pooling.formats.se_xml import parse_int
from pooling.formats.textio import FIELD_MAX, iter_lines, shown
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

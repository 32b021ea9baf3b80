"""Reads of the judging app: an assessor's assignments and progress, the next item, the judging and thread views."""
from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import accumulate

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from pooling.models import Campaign, Collection, Comment, Formula, PoolInstance, PoolItem, Post, Topic
from pooling.permissions import is_organizer

from .models import Assignment, ItemVisit, Judgment
from .sql import sql_columns, sql_instance, table


def _subquery_count(queryset) -> Coalesce:
    counted = queryset.order_by().annotate(_n=Count("*")).values("_n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def assignment_list(*, user: AbstractBaseUser, campaign: Campaign | None = None, include_withdrawn: bool = False):
    """The user's assignments, each annotated with `total` items, `done` (complete) items and `skipped` items (skipped
    and not judged since)."""
    assignments = Assignment.objects.filter(assessor=user)
    if campaign is not None:
        assignments = assignments.filter(campaign=campaign)
    if not include_withdrawn:
        assignments = assignments.filter(withdrawn_at__isnull=True)
    skipped = ItemVisit.objects.filter(assignment=OuterRef("pk"), skipped_at__isnull=False,
                                       completed_at__isnull=True).values("assignment")
    return _with_progress(assignments.select_related("campaign", "topic")).annotate(skipped=_subquery_count(skipped))


def campaign_assignments(*, campaign: Campaign):
    """Every assignment of a campaign with its progress, for the organizer."""
    return _with_progress(Assignment.objects.filter(campaign=campaign).select_related("topic", "assessor"))


def _with_progress(assignments):
    items = PoolItem.objects.filter(topic=OuterRef("topic")).values("topic")
    done = ItemVisit.objects.filter(assignment=OuterRef("pk"), completed_at__isnull=False).values("assignment")
    return assignments.annotate(total=_subquery_count(items), done=_subquery_count(done))


@dataclass
class Progress:
    done: int
    total: int

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def assignment_progress(*, assignment: Assignment) -> Progress:
    """Items complete of the items of the assignment's topic: the `done` and `total` the assignment carries when it
    has them (judging_assignment_item and assignment_list count them in their own query), else one query."""
    if hasattr(assignment, "done") and hasattr(assignment, "total"):
        return Progress(done=assignment.done, total=assignment.total)
    counted = _with_progress(Assignment.objects.filter(pk=assignment.pk)).values("done", "total").get()
    return Progress(done=counted["done"], total=counted["total"])


# -- the judging requests' own queries, in SQL written out: they run on every page and POST of an assessor's day,
# and the ORM's building and compiling of them cost more Python than PostgreSQL spends running them.


def item_judgments(*, assignment: Assignment, item_id: str) -> dict[str, Judgment]:
    """The assignment's judgments of one item, by formula id (empty for an answer)."""
    sql, j_fields = _item_judgments_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [assignment.pk, item_id])
        rows = cursor.fetchall()
    judgments = [sql_instance(Judgment, j_fields, row) for row in rows]
    return {j.formula_id: j for j in judgments}


@functools.cache
def _item_judgments_sql() -> tuple[str, tuple]:
    j_cols, j_fields = sql_columns(Judgment, "j")
    return f"SELECT {j_cols} FROM {table(Judgment)} j WHERE j.assignment_id = %s AND j.item_id = %s", j_fields


_ITEM_FIELDS = ("id", "campaign_id", "topic_id", "item_id", "position")


@functools.cache
def _judging_sql(page: bool, lock: bool) -> tuple[str, tuple, list[int]]:
    """judging_assignment_item's statement, its column groups' fields, and where each group ends in a row."""
    a_cols, a_fields = sql_columns(Assignment, "a")
    c_cols, c_fields = sql_columns(Campaign, "c")
    t_cols, t_fields = sql_columns(Topic, "t")
    i_cols, i_fields = sql_columns(PoolItem, "i", _ITEM_FIELDS)
    extra = ""
    if page:
        extra = (f", (SELECT p.position FROM {table(PoolItem)} p WHERE p.topic_id = i.topic_id AND p.position < "
                 f"i.position ORDER BY p.position DESC LIMIT 1), (SELECT COUNT(*) FROM {table(PoolItem)} p WHERE "
                 f"p.topic_id = a.topic_id), (SELECT COUNT(*) FROM {table(ItemVisit)} v WHERE v.assignment_id = a.id "
                 "AND v.completed_at IS NOT NULL)")
    sql = (f"SELECT {a_cols}, {c_cols}, {t_cols}, {i_cols}{extra} FROM {table(Assignment)} a "
           f"INNER JOIN {table(Campaign)} c ON c.id = a.campaign_id INNER JOIN {table(Topic)} t ON t.id = a.topic_id "
           f"{'INNER' if lock else 'LEFT OUTER'} JOIN {table(PoolItem)} i ON i.topic_id = a.topic_id AND "
           "i.position = %s WHERE a.id = %s AND a.assessor_id = %s")
    if lock and connection.features.has_select_for_update_of:
        # Only the assignment row; inner joins only (no FOR UPDATE across an outer join).
        sql += " FOR UPDATE OF a"
    groups = (a_fields, c_fields, t_fields, i_fields)
    return sql, groups, list(accumulate(len(fields) for fields in groups))


_MADE_BY_THE_LOCKED_READ = object()


class LockedAssignment:
    """The proof that an assignment row is locked (read FOR UPDATE, so its closed and withdrawn times are current)
    in the transaction still open: made only by judging_assignment_item(lock=True), and the only lock
    services.judgment_submit takes from a caller instead of reading the row FOR UPDATE itself."""
    __slots__ = ("assignment", "_transaction")

    def __init__(self, assignment: Assignment, *, token: object) -> None:
        if token is not _MADE_BY_THE_LOCKED_READ:
            raise TypeError("a LockedAssignment is made only by judging_assignment_item(lock=True)")
        self.assignment = assignment
        # The outermost atomic block open at the read: the lock lasts as long as it does.
        self._transaction = connection.atomic_blocks[0] if connection.in_atomic_block else None

    def held(self) -> bool:
        """Whether the transaction the row was locked in is still the one open."""
        return (self._transaction is not None and connection.in_atomic_block
                and connection.atomic_blocks[0] is self._transaction)


def judging_assignment_item(*, user: AbstractBaseUser, pk: int, position: int, page: bool = True,
                            lock: bool = False) -> tuple[Assignment | None, PoolItem | None]:
    """The user's own assignment (with its campaign and topic) and the item at `position` of its topic, in one
    query: (None, None) when the assignment is not the user's (nobody reaches another assessor's work), (assignment,
    None) when there is no such item. With `page`, the assignment carries `done` and `total` (its progress) and the
    item `previous` (the position before it, None for the first). With `lock`, the assignment row is locked (FOR
    UPDATE) until the end of the caller's transaction, a missing item gives (None, None) too, and the assignment
    carries `lock`: the LockedAssignment that services.judgment_submit(locked=...) takes."""
    sql, (a_fields, c_fields, t_fields, i_fields), ends = _judging_sql(page, lock)
    with connection.cursor() as cursor:
        cursor.execute(sql, [position, pk, user.pk])
        row = cursor.fetchone()
    if row is None:
        return None, None
    assignment = sql_instance(Assignment, a_fields, row[:ends[0]])
    assignment.campaign = sql_instance(Campaign, c_fields, row[ends[0]:ends[1]])
    assignment.topic = sql_instance(Topic, t_fields, row[ends[1]:ends[2]])
    assignment.topic.campaign = assignment.campaign
    if lock:
        assignment.lock = LockedAssignment(assignment, token=_MADE_BY_THE_LOCKED_READ)
    item = None
    if row[ends[2]] is not None:
        item = sql_instance(PoolItem, i_fields, row[ends[2]:ends[3]])
        item.topic = assignment.topic
    if page:
        previous, assignment.total, assignment.done = row[ends[3]:]
        if item is not None:
            item.previous = previous
    return assignment, item


@functools.cache
def _next_item_sql() -> tuple[str, tuple]:
    i_cols, i_fields = sql_columns(PoolItem, "i", _ITEM_FIELDS)
    return (f"SELECT {i_cols} FROM {table(PoolItem)} i LEFT OUTER JOIN {table(ItemVisit)} v ON v.assignment_id = %s "
            "AND v.item_id = i.item_id WHERE i.topic_id = %s AND v.completed_at IS NULL ORDER BY "
            "CASE WHEN v.skipped_at IS NULL THEN 0 ELSE 1 END, "
            "CASE WHEN v.skipped_at IS NULL AND i.position > %s THEN 0 ELSE 1 END, v.skipped_at, i.position LIMIT 1",
            i_fields)


def next_item(*, assignment: Assignment, after: int | None = None) -> PoolItem | None:
    """The item to judge next: the first unjudged, unskipped item after position `after` (from the start when
    None, wrapping around); when only skipped items are left, the one skipped longest ago."""
    # One query: items not complete; the unskipped first, those after `after` first among them, then by position;
    # the skipped ones by when they were skipped.
    sql, i_fields = _next_item_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [assignment.pk, assignment.topic_id, -1 if after is None else after])
        row = cursor.fetchone()
    return None if row is None else sql_instance(PoolItem, i_fields, row)


def judged_items_of_campaign(campaign: Campaign) -> dict[int, set[str]]:
    """Topic pk -> item ids with at least one judgment (any kind): what a pool rebuild must not lose."""
    judged: dict[int, set[str]] = {}
    rows = (Judgment.objects.filter(assignment__campaign=campaign)
            .values_list("assignment__topic_id", "item_id").distinct())
    for topic_pk, item_id in rows:
        judged.setdefault(topic_pk, set()).add(item_id)
    return judged


def can_view_collection(*, user: AbstractBaseUser, collection: Collection) -> bool:
    """Thread views are for organizers and for assessors with an assignment in a campaign of that collection."""
    if is_organizer(user):
        return True
    return Assignment.objects.filter(assessor=user, campaign__collection=collection,
                                     withdrawn_at__isnull=True).exists()


# -- the judging view


@dataclass
class Instance:
    """A formula instance to judge (Task 2) with the post that holds it."""
    formula_id: str
    post: Post | None
    comment: Comment | None = None
    judgment: Judgment | None = None


@dataclass
class JudgingItem:
    assignment: Assignment
    topic: Topic
    item: PoolItem
    post: Post | None = None            # answers: the candidate answer
    question_title: str = ""            # answers: the title of the candidate answer's question
    instances: list[Instance] = field(default_factory=list)
    judgment: Judgment | None = None    # answers
    previous: int | None = None         # position of the item before, for "back"


def judging_item(*, assignment: Assignment, item: PoolItem) -> JudgingItem:
    """What the judging page shows of one item. `item` from judging_assignment_item carries the previous position
    already; another is read here."""
    campaign = assignment.campaign
    collection_id = campaign.collection_id
    view = JudgingItem(assignment=assignment, topic=assignment.topic, item=item)
    if hasattr(item, "previous"):
        view.previous = item.previous
    else:
        view.previous = (PoolItem.objects.filter(topic_id=item.topic_id, position__lt=item.position)
                         .order_by("-position").values_list("position", flat=True).first())
    if campaign.task == Campaign.Task.ANSWERS:
        _answer_and_judgment(view, collection_id)
        return view
    judgments = item_judgments(assignment=assignment, item_id=item.item_id)
    selected = list(PoolInstance.objects.filter(item=item, selected=True).order_by("-vote", "formula_id"))
    post_ids = {i.post_id for i in selected}
    posts = {p.post_id: p for p in Post.objects.filter(collection_id=collection_id, post_id__in=post_ids)}
    formulas = {f.formula_id: f for f in Formula.objects.filter(
        collection_id=collection_id, formula_id__in=[i.formula_id for i in selected]).only("formula_id", "comment_id")}
    comment_ids = {f.comment_id for f in formulas.values() if f.comment_id}
    comments = {c.comment_id: c for c in Comment.objects.filter(collection_id=collection_id,
                                                                comment_id__in=comment_ids)}
    for instance in selected:
        formula = formulas.get(instance.formula_id)
        comment = comments.get(formula.comment_id) if formula and formula.comment_id else None
        view.instances.append(Instance(formula_id=instance.formula_id, post=posts.get(instance.post_id),
                                       comment=comment, judgment=judgments.get(instance.formula_id)))
    return view


def judging_texts(*, topic: Topic) -> Iterator[str]:
    """Every piece of collection and topic HTML that the judging pages of a topic show (what judging_item reads):
    the topic's title and question; Task 1: each pooled answer's body and its question's title; Task 2: each
    selected instance's post title and body, and the comment holding the instance. Streamed, in pool order."""
    campaign = topic.campaign
    collection_id = campaign.collection_id
    yield topic.title
    yield topic.question
    items = PoolItem.objects.filter(topic=topic)
    if campaign.task == Campaign.Task.ANSWERS:
        question_title = (Post.objects.filter(collection_id=OuterRef("collection_id"), post_id=OuterRef("thread_id"))
                          .exclude(post_id=OuterRef("post_id")).values("title")[:1])
        posts = (Post.objects.filter(collection_id=collection_id, post_id__in=items.values("item_id"))
                 .annotate(question_title=Subquery(question_title)).order_by()
                 .values_list("body", "question_title"))
        for body, title in posts.iterator(chunk_size=500):
            yield body
            if title:
                yield title
        return
    instances = PoolInstance.objects.filter(item__topic=topic, selected=True)
    posts = (Post.objects.filter(collection_id=collection_id, post_id__in=instances.values("post_id")).order_by()
             .values_list("title", "body"))
    for title, body in posts.iterator(chunk_size=500):
        yield title
        yield body
    comment_ids = (Formula.objects.filter(collection_id=collection_id,
                                          formula_id__in=instances.values("formula_id"))
                   .exclude(comment_id="").values("comment_id"))
    yield from (Comment.objects.filter(collection_id=collection_id, comment_id__in=comment_ids).order_by()
                .values_list("text", flat=True).iterator(chunk_size=500))


@functools.cache
def _answer_sql() -> tuple[str, tuple, tuple]:
    p_cols, p_fields = sql_columns(Post, "p")
    j_cols, j_fields = sql_columns(Judgment, "j")
    sql = (f"SELECT {p_cols}, (SELECT q.title FROM {table(Post)} q WHERE q.collection_id = p.collection_id AND "
           f"q.post_id = p.thread_id AND q.post_id <> p.post_id LIMIT 1), {j_cols} FROM (SELECT 1 AS one) o "
           f"LEFT OUTER JOIN {table(Post)} p ON p.collection_id = %s AND p.post_id = %s "
           f"LEFT OUTER JOIN {table(Judgment)} j ON j.assignment_id = %s AND j.item_id = %s AND j.formula_id = ''")
    return sql, p_fields, j_fields


def _answer_and_judgment(view: JudgingItem, collection_id: int) -> None:
    """Task 1: the answer, its question's title and the assessor's judgment of it, in one query."""
    sql, p_fields, j_fields = _answer_sql()
    item_id = view.item.item_id
    with connection.cursor() as cursor:
        cursor.execute(sql, [collection_id, item_id, view.assignment.pk, item_id])
        row = cursor.fetchone()
    split = len(p_fields)
    if row[0] is not None:
        view.post = sql_instance(Post, p_fields, row[:split])
        view.question_title = row[split] or ""
    if row[split + 1] is not None:
        view.judgment = sql_instance(Judgment, j_fields, row[split + 1:])


@dataclass
class Thread:
    question: Post
    answers: list[Post]
    comments: dict[str, list[Comment]]


def thread_of_post(*, collection: Collection, post_id: str) -> Thread | None:
    """The whole thread a post belongs to: the question, its answers (accepted first, then by score) and the
    comments of each post in date order."""
    post = Post.objects.filter(collection=collection, post_id=post_id).only("thread_id").first()
    if post is None:
        return None
    posts = list(Post.objects.filter(collection=collection, thread_id=post.thread_id))
    question = next((p for p in posts if p.post_id == post.thread_id), None)
    if question is None:
        return None
    answers = [p for p in posts if p.post_id != question.post_id]
    answers.sort(key=lambda p: (p.post_id != question.accepted_answer_id, -(p.score or 0), p.post_id))
    comments: dict[str, list[Comment]] = {}
    for comment in (Comment.objects.filter(collection=collection, post_id__in=[p.post_id for p in posts])
                    .order_by("created_at", "comment_id")):
        comments.setdefault(comment.post_id, []).append(comment)
    return Thread(question=question, answers=answers, comments=comments)


def assessor_judgments(*, user: AbstractBaseUser, assignment: Assignment | None = None):
    """The user's own judgments only."""
    judgments = Judgment.objects.filter(assignment__assessor=user).select_related("assignment__topic")
    if assignment is not None:
        judgments = judgments.filter(assignment=assignment)
    return judgments

"""Reads of the judging app: an assessor's assignments and progress, the next item, the judging and thread views."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from pooling.models import Campaign, Collection, Comment, Formula, PoolInstance, PoolItem, Post, Topic
from pooling.permissions import is_organizer

from .models import Assignment, ItemVisit, Judgment


def _subquery_count(queryset) -> Coalesce:
    counted = queryset.order_by().annotate(_n=Count("*")).values("_n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def assignment_list(*, user: AbstractBaseUser, campaign: Campaign | None = None, include_withdrawn: bool = False):
    """The user's assignments, each annotated with `total` items and `done` (complete) items."""
    assignments = Assignment.objects.filter(assessor=user)
    if campaign is not None:
        assignments = assignments.filter(campaign=campaign)
    if not include_withdrawn:
        assignments = assignments.filter(withdrawn_at__isnull=True)
    return _with_progress(assignments.select_related("campaign", "topic"))


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
    """Items complete of the items of the assignment's topic: the annotations of own_assignment when it has them,
    else one query."""
    if hasattr(assignment, "done") and hasattr(assignment, "total"):
        return Progress(done=assignment.done, total=assignment.total)
    counted = _with_progress(Assignment.objects.filter(pk=assignment.pk)).values("done", "total").get()
    return Progress(done=counted["done"], total=counted["total"])


def own_assignment(*, user: AbstractBaseUser, pk: int, progress: bool = False) -> Assignment | None:
    """The user's own assignment with its campaign and topic, or None: nobody reaches another assessor's work.
    With `progress`, annotated with `total` and `done` in the same query (what the judging page shows)."""
    assignments = Assignment.objects.filter(pk=pk, assessor=user).select_related("campaign", "topic")
    try:
        return (_with_progress(assignments) if progress else assignments).get()
    except Assignment.DoesNotExist:
        return None


def pool_item_at(*, assignment: Assignment, position: int) -> PoolItem | None:
    """The item at a position of the assignment's topic, annotated with `previous`: the position before it (for
    "back"), or None for the first item."""
    before = (PoolItem.objects.filter(topic_id=OuterRef("topic_id"), position__lt=OuterRef("position"))
              .order_by("-position").values("position")[:1])
    try:
        return (PoolItem.objects.filter(topic_id=assignment.topic_id, position=position)
                .annotate(previous=Subquery(before, output_field=IntegerField())).get())
    except PoolItem.DoesNotExist:
        return None


def next_item(*, assignment: Assignment, after: int | None = None) -> PoolItem | None:
    """The item to judge next: the first unjudged, unskipped item after position `after` (from the start when
    None, wrapping around); when only skipped items are left, the one skipped longest ago."""
    visits = ItemVisit.objects.filter(assignment=assignment)
    complete = visits.filter(completed_at__isnull=False).values("item_id")
    skipped = visits.filter(skipped_at__isnull=False).values("item_id")
    open_items = PoolItem.objects.filter(topic_id=assignment.topic_id).exclude(item_id__in=complete)
    fresh = open_items.exclude(item_id__in=skipped).order_by("position")
    if after is not None:
        item = fresh.filter(position__gt=after).first()
        if item is not None:
            return item
    item = fresh.first()
    if item is not None:
        return item
    last_skip = visits.filter(item_id=OuterRef("item_id")).values("skipped_at")[:1]
    return open_items.annotate(skipped=Subquery(last_skip)).order_by("skipped", "position").first()


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
    """What the judging page shows of one item. `item` from pool_item_at carries the previous position already."""
    campaign = assignment.campaign
    collection_id = campaign.collection_id
    judgments = {j.formula_id: j for j in Judgment.objects.filter(assignment=assignment, item_id=item.item_id)}
    view = JudgingItem(assignment=assignment, topic=assignment.topic, item=item)
    if hasattr(item, "previous"):
        view.previous = item.previous
    else:
        view.previous = (PoolItem.objects.filter(topic_id=item.topic_id, position__lt=item.position)
                         .order_by("-position").values_list("position", flat=True).first())
    if campaign.task == Campaign.Task.ANSWERS:
        # The answer and its question's title in one query.
        question_title = (Post.objects.filter(collection_id=OuterRef("collection_id"), post_id=OuterRef("thread_id"))
                          .exclude(post_id=OuterRef("post_id")).values("title")[:1])
        view.post = (Post.objects.filter(collection_id=collection_id, post_id=item.item_id)
                     .annotate(question_title=Subquery(question_title)).order_by().first())
        view.question_title = (view.post.question_title or "") if view.post is not None else ""
        view.judgment = judgments.get("")
        return view
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

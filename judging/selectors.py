"""Reads of the judging app: an assessor's assignments and progress, the next item, the judging and thread views."""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, TypedDict

from django.contrib.auth.models import User
from django.db.models import Case, Count, Exists, IntegerField, Max, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce, Now

from core.permissions import is_organizer
from judging import ordering
from judging.models import Assignment, BrowserSubmit, CharacterisationAnswer, CheckItem, ItemVisit, Judgment, SampleItem
from pooling.models import AnswerText, Campaign, Collection, Comment, Formula, PoolInstance, PoolItem, Post, Topic
from pooling.selectors import posts_not_in_collection

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class ProgressCounts(TypedDict):
    total: int
    done: int


def _subquery_count(queryset) -> Coalesce:
    counted = queryset.order_by().annotate(_n=Count("*")).values("_n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def _counted(kind: str, *, assignment, topic, check_assignment) -> tuple[QuerySet, QuerySet]:
    """The one rule of an assignment's progress: the rows counted as its `total` and as its `done` items, by its kind
    (each a values() query fit for _subquery_count). The items of its topic's pool and those it completed
    (ItemVisit.completed_at); for a characterisation assignment, the items of its sample and those with every question
    answered (SampleItem.completed_at); for a check assignment, the pool items sent to it (CheckItem). `assignment`
    and `topic` are the assignment's pk and topic pk, as values or as references to a query of assignments;
    `check_assignment` its pk as seen from inside the total's own subquery."""
    if kind == Assignment.Kind.CHARACTERISATION:
        sample = SampleItem.objects.filter(assignment=assignment).values("assignment")
        return sample, sample.filter(completed_at__isnull=False)
    total = PoolItem.objects.filter(topic=topic)
    if kind == Assignment.Kind.CHECK:
        total = total.filter(item_id__in=CheckItem.objects.filter(assignment=check_assignment).values("item_id"))
    done = ItemVisit.objects.filter(assignment=assignment, completed_at__isnull=False).values("assignment")
    return total.values("topic"), done


def with_progress(assignments: QuerySet[Assignment]) -> QuerySet[WithAnnotations[Assignment, ProgressCounts]]:
    """Each assignment annotated with its progress (`_counted`): `total` items and `done` items, whatever its kind.
    One assignment already read counts faster with assignment_progress."""
    refs = {"assignment": OuterRef("pk"), "topic": OuterRef("topic"), "check_assignment": OuterRef(OuterRef("pk"))}
    sample, sample_done = _counted(Assignment.Kind.CHARACTERISATION, **refs)
    checks, _done = _counted(Assignment.Kind.CHECK, **refs)
    items, done = _counted(Assignment.Kind.OFFICIAL, **refs)
    characterising = Q(kind=Assignment.Kind.CHARACTERISATION)
    return assignments.annotate(
        total=Case(When(characterising, then=_subquery_count(sample)),
                   When(kind=Assignment.Kind.CHECK, then=_subquery_count(checks)), default=_subquery_count(items)),
        done=Case(When(characterising, then=_subquery_count(sample_done)), default=_subquery_count(done)))


def assignment_list(*, user: User, campaign: Campaign | None = None, include_withdrawn: bool = False):
    """The user's assignments, each annotated with `total` items, `done` (complete) items and `skipped` items (skipped
    and not judged since)."""
    assignments = Assignment.objects.filter(assessor=user)
    if campaign is not None:
        assignments = assignments.filter(campaign=campaign)
    if not include_withdrawn:
        assignments = assignments.filter(withdrawn_at__isnull=True)
    skipped = ItemVisit.objects.filter(assignment=OuterRef("pk"), skipped_at__isnull=False,
                                       completed_at__isnull=True).values("assignment")
    return with_progress(assignments.select_related("campaign", "topic")).annotate(skipped=_subquery_count(skipped))


def campaign_assignments(*, campaign: Campaign):
    """Every assignment of a campaign with its progress, for the organizer."""
    return with_progress(Assignment.objects.filter(campaign=campaign).select_related("topic", "assessor"))


@dataclass
class Progress:
    done: int
    total: int

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def assignment_progress(*, assignment: Assignment) -> Progress:
    """An assignment's progress (`_counted`), its kind and topic known: the two counts of its kind only, in one query
    (with_progress's CASE over every kind costs the judging page more to build than to run)."""
    total, done = _counted(assignment.kind, assignment=assignment.pk, topic=assignment.topic_id,
                           check_assignment=assignment.pk)
    counted = (Assignment.objects.filter(pk=assignment.pk)
               .values(total_=_subquery_count(total), done_=_subquery_count(done)).get())
    return Progress(done=counted["done_"], total=counted["total_"])


def item_judgments(*, assignment: Assignment, item_id: str) -> dict[str, Judgment]:
    """The assignment's judgments of one item, by formula id (empty for an answer)."""
    # Unordered: one judgment per unit (the unique constraint), and the models' orderings would join the assignment,
    # its campaign, topic and assessor to sort them.
    return {j.formula_id: j for j in Judgment.objects.filter(assignment=assignment, item_id=item_id).order_by()}


class JudgedUnit(NamedTuple):
    pk: int
    grade: str
    comment: str
    revision: int


def judgments_by_unit(*, assignment_pks: Iterable[int]) -> dict[tuple[int, str, str], JudgedUnit]:
    """Every judgment of these assignments, by (assignment pk, item id, formula id): an import's look-up, one query
    whatever its number of lines."""
    return {(a, item, formula): JudgedUnit(pk, grade, comment, revision)
            for a, item, formula, pk, grade, comment, revision in Judgment.objects.filter(
                assignment_id__in=list(assignment_pks)).order_by().values_list(
                "assignment_id", "item_id", "formula_id", "pk", "grade", "comment", "revision")}


class Visit(NamedTuple):
    pk: int
    first_shown_at: datetime
    completed_at: datetime | None


def visits_by_item(*, assignment_pks: Iterable[int]) -> dict[tuple[int, str], Visit]:
    """Every visit of these assignments, by (assignment pk, item id), with its first-shown and completed times."""
    return {(a, item): Visit(pk, shown, completed)
            for a, item, pk, shown, completed in ItemVisit.objects.filter(assignment_id__in=list(assignment_pks))
            .values_list("assignment_id", "item_id", "pk", "first_shown_at", "completed_at")}


def next_item(*, assignment: Assignment, after: int | None = None, excluding: Iterable[str] = ()) -> PoolItem | None:
    """The item to judge next in the campaign's judging order (docs/pooling.md, "Live order and budgets"); items
    whose ids are in `excluding` count as judged (items_ahead). Random (ARQMath's): the first unjudged, unskipped item
    after position `after` (from the start when None, wrapping around). Move-to-front or bandit: the policy's choice
    given this assignment's judgments so far (`after` plays no part). Either way, when only skipped items are left,
    the one skipped longest ago; in the LLM's filter mode, items it graded 0 come after every other unskipped one."""
    campaign = assignment.campaign
    # A check assignment judges the few items sent to it, in pool order.
    if campaign.judging_order != Campaign.JudgingOrder.RANDOM and assignment.kind != Assignment.Kind.CHECK:
        queue = ordering.queue_of(assignment=assignment, campaign=campaign)
        # "Next unjudged" from an item not judged yet moves on from it, as the random order does: that item again
        # only when nothing else is left.
        passed = {i for i, item in queue.items.items() if item.position == after} if after is not None else set()
        for left_out in ({*excluding, *passed}, set(excluding)):
            chosen = ordering.policy_choices(campaign=campaign, queue=queue, judged=queue.judged, count=1,
                                             excluding=left_out)
            if chosen:
                return chosen[0]
        return None
    return _next_in_position_order(
        assignment=assignment, after=after, excluding=excluding,
        demoted=ordering.demoted_items(campaign=campaign, topic_id=assignment.topic_id))


def _next_in_position_order(*, assignment: Assignment, after: int | None, excluding: Iterable[str],
                            demoted: set[str]) -> PoolItem | None:
    """next_item in the random order, the filter mode's `demoted` items after the others."""
    visits = ItemVisit.objects.filter(assignment=assignment, item_id=OuterRef("item_id"))
    left = (_assignment_items(assignment)
            .exclude(Exists(visits.filter(completed_at__isnull=False)))
            .alias(skipped_at=Subquery(visits.values("skipped_at")[:1])))
    judged_here = list(excluding)
    if judged_here:
        left = left.exclude(item_id__in=judged_here)
    unskipped = left.filter(skipped_at__isnull=True).order_by("position")
    for part in ((unskipped.exclude(item_id__in=demoted), unskipped.filter(item_id__in=demoted)) if demoted
                 else (unskipped,)):
        item = (part.filter(position__gt=after).first() if after is not None else None) or part.first()
        if item is not None:
            return item
    return left.order_by("skipped_at", "position").first()


@dataclass
class Ahead:
    """The items the judging page fetches ahead: `items` in turn as each is judged (the item shown judged not
    relevant, in an adaptive order), and `if_relevant`, the one that comes next instead when the item shown is
    judged relevant (None: the same as items[0], as in the random order)."""
    items: list[PoolItem]
    if_relevant: PoolItem | None = None


def _assignment_items(assignment: Assignment) -> QuerySet[PoolItem]:
    """The pool items an assignment judges: its topic's, or for a check assignment only those sent to it."""
    items = PoolItem.objects.filter(topic_id=assignment.topic_id)
    if assignment.kind == Assignment.Kind.CHECK:
        items = items.filter(item_id__in=CheckItem.objects.filter(assignment=assignment).values("item_id"))
    return items


def item_place(*, assignment: Assignment, item: PoolItem) -> int:
    """The item's place (from 1) among the items the assignment judges, in pool order: its pool position + 1, but for
    a check assignment its place among the few items sent to it (the counter says "item 2 of 2", never "9 of 2")."""
    if assignment.kind != Assignment.Kind.CHECK:
        return item.position + 1
    return _assignment_items(assignment).filter(position__lte=item.position).count()


def shown_before(*, assignment: Assignment, item: PoolItem) -> int | None:
    """The position of the item this assignment showed just before `item` ("back", in any judging order): the
    ItemVisit first shown last before this item's first showing; for an item not shown yet (being shown now, or
    fetched ahead), the item shown last. None when nothing was shown before it; an item the pools no longer hold is
    passed over."""
    visits = ItemVisit.objects.filter(assignment=assignment)
    this = visits.filter(item_id=item.item_id).values("first_shown_at")[:1]
    before = (visits.exclude(item_id=item.item_id)
              .filter(first_shown_at__lt=Coalesce(Subquery(this), Now()),
                      item_id__in=_assignment_items(assignment).values("item_id"))
              .order_by("-first_shown_at", "-pk").values("item_id")[:1])
    return (PoolItem.objects.filter(topic_id=assignment.topic_id, item_id=Subquery(before)).order_by()
            .values_list("position", flat=True).first())  # one item of that id: unordered (no ordering's joins)


def items_ahead(*, assignment: Assignment, position: int, count: int) -> list[PoolItem]:
    """ahead_of's items: what "next item" will open after the item at `position`, in turn."""
    return ahead_of(assignment=assignment, position=position, count=count).items


def ahead_of(*, assignment: Assignment, position: int, count: int) -> Ahead:
    """The items "next item" will open after the item at `position`, in turn, as each is judged (up to `count`): in
    the random order, next_item after that item with it judged, then next_item after that one with both judged, and
    so on; in an adaptive order, the policy's next choices with the item shown judged, read once. What the judging
    page fetches ahead; no items when nothing is left to judge after it."""
    campaign = assignment.campaign
    current = list(PoolItem.objects.filter(topic_id=assignment.topic_id, position=position).values_list("item_id",
                                                                                                      flat=True))
    if campaign.judging_order != Campaign.JudgingOrder.RANDOM and assignment.kind != Assignment.Kind.CHECK:
        queue = ordering.queue_of(assignment=assignment, campaign=campaign)
        if not current or current[0] in queue.judged:  # a revision, or no such item: the order as it stands
            return Ahead(ordering.policy_choices(campaign=campaign, queue=queue, judged=queue.judged, count=count,
                                                 excluding=current))
        # The item shown is judged next: the choices after it as it turns out not relevant (most are), and the one
        # after it should it be relevant, so that the page swaps the right one in at once.
        shown = current[0]
        items = ordering.policy_choices(campaign=campaign, queue=queue, judged={**queue.judged, shown: False},
                                        count=count)
        relevant = ordering.policy_choices(campaign=campaign, queue=queue, judged={**queue.judged, shown: True},
                                           count=1)
        return Ahead(items, relevant[0] if relevant and items and relevant[0].pk != items[0].pk else None)
    excluding = list(current)
    ahead: list[PoolItem] = []
    demoted = ordering.demoted_items(campaign=campaign, topic_id=assignment.topic_id)  # read once for them all
    while len(ahead) < count:
        item = _next_in_position_order(assignment=assignment, after=position, excluding=excluding, demoted=demoted)
        if item is None:
            break
        ahead.append(item)
        excluding.append(item.item_id)
        position = item.position
    return Ahead(ahead)


def judged_items_of_campaign(campaign: Campaign) -> dict[int, set[str]]:
    """Topic pk -> item ids with at least one judgment (any kind) or characterisation answer: what a pool rebuild
    must not lose. Unordered: a DISTINCT that inherited the models' orderings would sort every judgment over their
    joins."""
    judged: dict[int, set[str]] = {}
    for model in (Judgment, CharacterisationAnswer):
        rows = (model.objects.filter(assignment__campaign=campaign)
                .values_list("assignment__topic_id", "item_id").order_by().distinct())
        for topic_pk, item_id in rows:
            judged.setdefault(topic_pk, set()).add(item_id)
    return judged


def judged_items_count(campaign: Campaign) -> int:
    """How many items `judged_items_of_campaign` holds, counted by the database (one UNION of the same pairs) for
    the pages that show only the number: the 15,000 pairs of a full ARQMath-3 campaign stay in the database."""
    judgments, answers = _judged(campaign, "assignment__topic_id", "item_id")
    return judgments.union(answers).count()


def judged_topics_count(campaign: Campaign) -> int:
    """How many topics `judged_items_of_campaign` holds (topics with a judged item), counted as `judged_items_count`."""
    judgments, answers = _judged(campaign, "assignment__topic_id")
    return judgments.union(answers).count()


def _judged(campaign: Campaign, *fields: str) -> tuple[QuerySet, QuerySet]:
    """The `fields` of the campaign's judgments and characterisation answers, unordered (see
    `judged_items_of_campaign`)."""
    judgments, answers = (model.objects.filter(assignment__campaign=campaign).values_list(*fields).order_by()
                          for model in (Judgment, CharacterisationAnswer))
    return judgments, answers


@dataclass(frozen=True)
class TopicWork:
    """What assessors have done on a topic: judged items (a judgment or a characterisation answer), items shown to
    them, and the assignments there are. Any judged or shown item keeps the topic (services.topic_delete)."""

    judged_items: int
    shown_items: int
    assignments: int

    def refusal(self, topic_id: str) -> str | None:
        """Why the topic may not be deleted, or None."""
        if not (self.judged_items or self.shown_items):
            return None
        return (f"topic {topic_id} has judging work ({self.judged_items} judged items, {self.shown_items} items shown "
                "to assessors) and is kept: nothing an assessor did is ever deleted. Close the topic instead")


def topic_work(*, topic: Topic) -> TopicWork:
    judged = {item for model in (Judgment, CharacterisationAnswer)
              for item in model.objects.filter(assignment__topic=topic).order_by().values_list("item_id", flat=True)
              .distinct()}
    shown = ItemVisit.objects.filter(assignment__topic=topic).values("item_id").order_by().distinct().count()
    return TopicWork(judged_items=len(judged), shown_items=shown,
                     assignments=Assignment.objects.filter(topic=topic).count())


def can_view_collection(*, user: User, collection: Collection) -> bool:
    """Thread views are for organizers and for assessors with an assignment in a campaign of that collection."""
    if is_organizer(user):
        return True
    return Assignment.objects.filter(assessor=user, campaign__collection=collection,
                                     withdrawn_at__isnull=True).exists()


# -- the judging view


@dataclass
class Instance:
    """A formula instance to judge (Task 2) with the post that holds it (None: the collection lacks it), and what the
    formula index knows of it."""
    formula_id: str
    post: Post | None
    comment: Comment | None = None
    judgment: Judgment | None = None
    post_id: str = ""                   # the post the run (or the index) names
    formula: Formula | None = None      # the formula index's row, when it has one


@dataclass
class ItemShown:
    """What the judging page shows of an item, whoever judges it."""
    post: Post | None = None            # answers: the candidate answer
    question_title: str = ""            # answers: the title of the candidate answer's question
    answer: AnswerText | None = None    # answers: an ARQMath-3 Task 3 answer (plain text), when the item is one
    instances: list[Instance] = field(default_factory=list)   # formulas: the selected instances


@dataclass
class JudgingPage:
    """One item of an assessor's own assignment as the judging page shows it."""
    assignment: Assignment              # with its campaign and topic
    item: PoolItem
    progress: Progress
    previous: int | None                # position of the item before, for "back"
    shown: ItemShown
    judgment: Judgment | None = None    # answers: the assessor's judgment (formulas: on each instance)

    @property
    def fragments(self) -> dict[str, tuple[str, list[str]]]:
        return judging_fragments(topic=self.assignment.topic, shown=self.shown)


def judging_page(*, user: User, assignment_pk: int, position: int) -> JudgingPage | None:
    """The user's own assignment (with its campaign, topic and progress) and the item at `position` of its topic
    with what the page shows of it; None when the assignment is not the user's (nobody reaches another assessor's
    work) or the topic has no such item."""
    # The campaign's LLM endpoint read with it: the page asks for it (suggestions), and the next item (ordering).
    assignment = (Assignment.objects.filter(pk=assignment_pk, assessor=user)
                  .select_related("campaign__collection", "campaign__llm_endpoint", "topic").order_by().first())
    if assignment is None:
        return None
    return judging_page_of(assignment=assignment, position=position,
                           progress=assignment_progress(assignment=assignment))


def judging_page_of(*, assignment: Assignment, position: int, progress: Progress) -> JudgingPage | None:
    """judging_page of an assignment already fetched as its user's own (with its campaign and topic) and its
    progress: the items fetched ahead (ahead_views) share both. None when the topic has no item at `position`."""
    # The item and the one before it, in one query.
    items = list(_assignment_items(assignment).filter(position__lte=position).order_by("-position")[:2])
    if not items or items[0].position != position:
        return None
    item, *before = items
    previous = before[0].position if before else None
    shown = item_as_shown(campaign=assignment.campaign, item=item)
    judgments = item_judgments(assignment=assignment, item_id=item.item_id)
    for instance in shown.instances:
        instance.judgment = judgments.get(instance.formula_id)
    answers = assignment.campaign.task == Campaign.Task.ANSWERS
    return JudgingPage(assignment=assignment, item=item, progress=progress, previous=previous, shown=shown,
                       judgment=judgments.get("") if answers else None)


def item_id_at(*, user: User, assignment_pk: int, position: int) -> str | None:
    """The item id at `position` of the topic of the user's own assignment, else None."""
    return (PoolItem.objects.filter(topic__assignments__pk=assignment_pk, topic__assignments__assessor=user,
                                    position=position).order_by("position").values_list("item_id", flat=True)
            .first())  # one topic: its position order, without the campaign the models' ordering joins


def units_not_in_collection(*, campaign: Campaign, item: PoolItem, instances: dict[str, str] | None) -> set[str]:
    """The units of an item whose post the campaign's collection lacks ("" for an answer, else the formula ids of
    `instances`, formula id -> post id): they take only rules.GRADES_OF_MISSING. A Task 3 answer is no post; a
    campaign without a collection, or whose collection has no post yet, lacks none."""
    if campaign.collection_id is None:
        return set()
    if instances is None:
        lacking = posts_not_in_collection(collection_id=campaign.collection_id, post_ids=[item.item_id])
        if lacking and not AnswerText.objects.filter(topic_id=item.topic_id, answer_id=item.item_id).exists():
            return {""}
        return set()
    lacking = posts_not_in_collection(collection_id=campaign.collection_id, post_ids=instances.values())
    return {formula_id for formula_id, post_id in instances.items() if post_id in lacking}


def _question_title() -> Subquery:
    """An answer's question's title, beside a Post queryset."""
    return Subquery(Post.objects.filter(collection_id=OuterRef("collection_id"), post_id=OuterRef("thread_id"))
                    .exclude(post_id=OuterRef("post_id")).values("title")[:1])


def item_as_shown(*, campaign: Campaign, item: PoolItem) -> ItemShown:
    return _items_shown(campaign=campaign, items=[item])[0]


def _items_shown(*, campaign: Campaign, items: Sequence[PoolItem]) -> list[ItemShown]:
    """What the judging page of each item shows, in the order of `items`: a few queries for all of them (the cache
    warm-up reads a whole pool), not a few per item."""
    collection_id = campaign.collection_id
    if campaign.task == Campaign.Task.ANSWERS:
        ids = [item.item_id for item in items]
        # Highest pk first, so that the dict keeps the first row as .first() would.
        found = {post.post_id: post for post in Post.objects.filter(collection_id=collection_id, post_id__in=ids)
                 .annotate(question_title=_question_title()).order_by("-pk")} if collection_id is not None else {}
        # A Task 3 answer is pooled under its answer id (or a post the collection lacks).
        answers = {(a.topic_id, a.answer_id): a for a in AnswerText.objects.filter(
            topic_id__in={item.topic_id for item in items}, answer_id__in=[i for i in ids if i not in found])
            .order_by("-pk")}
        return [ItemShown(post=post, question_title=post.question_title or "") if (post := found.get(item.item_id))
                else ItemShown(answer=answers.get((item.topic_id, item.item_id))) for item in items]
    selected: dict[int, list[PoolInstance]] = {item.pk: [] for item in items}
    for instance in PoolInstance.objects.filter(item__in=list(selected), selected=True).order_by("-vote", "formula_id"):
        selected[instance.item_id].append(instance)
    every = [instance for instances in selected.values() for instance in instances]
    posts: dict[str, Post] = {}
    formulas: dict[str, Formula] = {}
    comments: dict[str, Comment] = {}
    if collection_id is not None:
        posts = {p.post_id: p for p in Post.objects.filter(collection_id=collection_id,
                                                           post_id__in={i.post_id for i in every})}
        formulas = {f.formula_id: f for f in Formula.objects.filter(
            collection_id=collection_id, formula_id__in={i.formula_id for i in every})
            .only("formula_id", "comment_id", "post_id", "type", "visual_id", "latex")}
        comment_ids = {f.comment_id for f in formulas.values() if f.comment_id}
        comments = {c.comment_id: c for c in Comment.objects.filter(collection_id=collection_id,
                                                                    comment_id__in=comment_ids)}
    shown_all = []
    for item in items:
        if collection_id is None:  # a campaign without a collection has no posts to show
            shown_all.append(ItemShown(instances=[Instance(formula_id=i.formula_id, post=None, post_id=i.post_id)
                                                  for i in selected[item.pk]]))
            continue
        shown = ItemShown()
        for instance in selected[item.pk]:
            formula = formulas.get(instance.formula_id)
            comment = comments.get(formula.comment_id) if formula and formula.comment_id else None
            shown.instances.append(Instance(formula_id=instance.formula_id, post=posts.get(instance.post_id),
                                            comment=comment, post_id=instance.post_id, formula=formula))
        shown_all.append(shown)
    return shown_all


def judging_fragments(*, topic: Topic, shown: ItemShown) -> dict[str, tuple[str, list[str]]]:
    """Every fragment of collection and topic HTML the judging page of an item shows: name -> (html, formula ids to
    highlight in it). The page sanitizes these, and the cache warm-up (judging_texts) sanitizes them ahead."""
    query_marks = [topic.formula_id] if topic.formula_id else []
    post = shown.post
    fragments = {"topic_title": (topic.title, query_marks), "topic_question": (topic.question, query_marks),
                 "post_body": (post.body if post else "", []), "question_title": (shown.question_title, []),
                 "post_title": (post.title if post else "", [])}  # a document's own title (an answer has none)
    for n, instance in enumerate(shown.instances):
        marks = [instance.formula_id]
        fragments[f"title-{n}"] = (instance.post.title if instance.post else "", marks)
        fragments[f"body-{n}"] = (instance.post.body if instance.post else "", marks)
        fragments[f"comment-{n}"] = (instance.comment.text if instance.comment else "", marks)
    return fragments


def judging_texts(*, topic: Topic) -> Iterator[str]:
    """The HTML of every fragment (judging_fragments) of the judging pages of a topic's items, in pool order (the
    same fragment may come again)."""
    items = list(PoolItem.objects.filter(topic=topic).order_by("position"))
    for shown in _items_shown(campaign=topic.campaign, items=items):
        for html, _marks in judging_fragments(topic=topic, shown=shown).values():
            if html:
                yield html


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


def assessor_judgments(*, user: User, assignment: Assignment | None = None):
    """The user's own judgments only."""
    judgments = Judgment.objects.filter(assignment__assessor=user).select_related("assignment__topic")
    if assignment is not None:
        judgments = judgments.filter(assignment=assignment)
    return judgments


class NotArrived(NamedTuple):
    """Submits a browser of the assessor made that the server has not heard (services.browser_submit_heard)."""
    browser: str
    missing: int
    last_heard: datetime


def submits_not_arrived(*, user: User) -> list[NotArrived]:
    """Per browser of the user, the numbers missing below the highest submit number heard from it, where any are
    (most recently heard first): what the server knows it lacks. A browser whose last submits never arrived, and
    which sent nothing since, is not known to lack anything."""
    rows = (BrowserSubmit.objects.filter(user=user).values("browser")
            .annotate(highest=Max("number"), heard=Count("id"), last=Max("at")).order_by("-last"))
    return [NotArrived(r["browser"], r["highest"] - r["heard"], r["last"]) for r in rows if r["highest"] > r["heard"]]

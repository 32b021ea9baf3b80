"""Assignments (an assessor x a topic), what each assessor was shown, their judgments and every revision.

Judgments name their item by its string ids (post id; visual id and formula id for formulas), not by a foreign
key to a pool row: a pool rebuild replaces pool rows, and must never take a judgment with it (docs/judging.md).
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from ir import grades
from llm.models import LlmGrade
from pooling.models import Campaign, Topic


class Assignment(models.Model):
    class Kind(models.TextChoices):
        OFFICIAL = "official"
        TRAINING = "training"
        DUAL = "dual"
        # Asks the campaign's yes/no questions of a sample of the topic's pool items instead of grades.
        CHARACTERISATION = "characterisation"
        # Grades only the items an organizer sent (CheckItem: where the LLM and the official judgment differ); a
        # second opinion, never in the qrels.
        CHECK = "check"

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="assignments")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="assignments")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.OFFICIAL)
    round = models.PositiveIntegerField(default=0, help_text="training round (1, 2, ...); 0 for other kinds")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    # Closed: read-only for the assessor (the organizer closed the topic). Withdrawn: taken away from this
    # assessor; kept, with its judgments, because nothing submitted is ever deleted.
    closed_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "topic__position", "kind", "round", "assessor__username"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "assessor", "kind", "round"], name="assignment_unique",
                                    condition=Q(withdrawn_at__isnull=True)),
            # One official assessor per topic: the qrels take that assessor's judgments.
            models.UniqueConstraint(fields=["topic"], name="assignment_one_official",
                                    condition=Q(kind="official", withdrawn_at__isnull=True)),
        ]
        indexes = [models.Index(fields=["assessor", "campaign"], name="assignment_assessor")]

    def __str__(self) -> str:
        label = f"{self.kind} round {self.round}" if self.kind == self.Kind.TRAINING else self.kind
        return f"{self.topic.topic_id} for {self.assessor} ({label})"

    @property
    def read_only(self) -> bool:
        return self.closed_at is not None or self.withdrawn_at is not None


class Grade(models.TextChoices):
    """A grade, as ir/grades.py defines it. Stored as text so that SF and DK sit beside the numeric grades."""

    HIGH = str(grades.HIGH), grades.LABELS[grades.HIGH]
    MEDIUM = str(grades.MEDIUM), grades.LABELS[grades.MEDIUM]
    LOW = str(grades.LOW), grades.LABELS[grades.LOW]
    NOT_RELEVANT = str(grades.NOT_RELEVANT), grades.LABELS[grades.NOT_RELEVANT]
    SYSTEM_FAILURE = grades.SYSTEM_FAILURE, grades.MARK_LABELS[grades.SYSTEM_FAILURE]
    DO_NOT_KNOW = grades.DO_NOT_KNOW, grades.MARK_LABELS[grades.DO_NOT_KNOW]


GRADES_NEEDING_COMMENT = frozenset({Grade.SYSTEM_FAILURE, Grade.DO_NOT_KNOW})
# The grades that are relevance levels, with their values; SF and DK are not (their items count as unjudged).
GRADE_VALUES: dict[str, int] = {str(value): value for value in grades.GRADE_VALUES}


class ItemVisit(models.Model):
    """An item as one assessor met it: when the server first showed it, whether they skipped it, and whether
    it is complete (Task 2: every selected instance judged). Progress and "next item" read this table."""

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="visits")
    item_id = models.CharField(max_length=64)
    first_shown_at = models.DateTimeField()
    skipped_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    active_seconds = models.FloatField(default=0.0, help_text="time the page was visible and in use, summed "
                                                               "over the submissions that changed a judgment")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "item_id"], name="visit_unique")]

    def __str__(self) -> str:
        return f"{self.item_id} seen by assignment {self.assignment_id}"


class Revised(models.Model):
    """What an assessor submitted and may change (a judgment, a characterisation answer): the current value in one
    row, at its latest revision; each change is a row of its Revision model."""

    revision = models.PositiveIntegerField(default=1)
    submitted_at = models.DateTimeField(help_text="first submission")
    updated_at = models.DateTimeField(help_text="latest revision")

    class Meta:
        abstract = True


class Revision(models.Model):
    """One submission that changed a Revised row: its number, who, when (the subclass says what changed)."""

    number = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField()

    class Meta:
        abstract = True


class Judgment(Revised):
    """One assessor's current grade for one item (Task 1) or one formula instance (Task 2)."""

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="judgments")
    item_id = models.CharField(max_length=64, help_text="post id (answers) or visual id (formulas)")
    formula_id = models.CharField(max_length=64, blank=True, help_text="formulas: the judged instance")
    post_id = models.CharField(max_length=64, help_text="the post shown (answers: the item itself)")
    grade = models.CharField(max_length=2, choices=Grade.choices)
    comment = models.TextField(blank=True)
    first_shown_at = models.DateTimeField(null=True, blank=True)
    # A scheme with facets: the option chosen for each facet, which `grade` is mapped from (null: none asked).
    facets = models.JSONField(null=True, blank=True, help_text="facet name -> option, when the scheme has facets")
    # A campaign in the LLM's suggest mode (docs/judging.md): the LLM grade on screen when this judgment was last
    # submitted (null with `suggested` unset: none was shown).
    suggested = models.BooleanField(default=False, db_default=False,
                                    help_text="an LLM grade was on screen at the last submission")
    suggestion = models.ForeignKey(LlmGrade, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
                                   help_text="the LLM grade that was on screen")

    class Meta:
        ordering = ["assignment", "item_id", "formula_id"]
        # The database, not a check in Python, keeps a double submit from making two judgments.
        constraints = [models.UniqueConstraint(fields=["assignment", "item_id", "formula_id"],
                                               name="judgment_unique")]

    def __str__(self) -> str:
        unit = f"{self.item_id}/{self.formula_id}" if self.formula_id else self.item_id
        return f"{unit}: {self.grade}"


class JudgmentRevision(Revision):
    """Every submission that changed a judgment: who, when, the old and the new value."""

    judgment = models.ForeignKey(Judgment, on_delete=models.PROTECT, related_name="revisions")
    old_grade = models.CharField(max_length=2, blank=True)
    old_comment = models.TextField(blank=True)
    grade = models.CharField(max_length=2, choices=Grade.choices)
    comment = models.TextField(blank=True)
    active_seconds = models.FloatField(default=0.0, help_text="active time the page reported with this submission")
    source = models.CharField(max_length=10, default="web", help_text="web, api or import")
    # A scheme with facets: the options chosen at this submission (the grade is mapped from them); null: none asked.
    facets = models.JSONField(null=True, blank=True, help_text="facet name -> option chosen at this submission")
    suggested = models.BooleanField(default=False, db_default=False,
                                    help_text="an LLM grade was on screen at this submission")
    suggestion = models.ForeignKey(LlmGrade, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["judgment", "number"]
        constraints = [models.UniqueConstraint(fields=["judgment", "number"], name="revision_unique")]

    def __str__(self) -> str:
        return f"revision {self.number} of {self.judgment_id}"


class SubmitReceipt(models.Model):
    """A judging page's submit as the server took it, under the key the page gave it. The page keeps a submit in the
    browser until the server acknowledges it and sends it again, under the same key, after a lost answer, a network
    failure or a reload: the repeat finds this receipt and changes nothing (no second judgment, revision or active
    time). Kept: one small row per submit."""

    # Bookkeeping, not work: it goes with its assignment (which only goes when nothing was judged, or with the
    # demo's reset).
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    item_id = models.CharField(max_length=64)
    at = models.DateTimeField()
    created = models.PositiveIntegerField(default=0)
    revised = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    complete = models.BooleanField(default=False)
    # The item's revision after this submit (services.item_revision), which a repeat answers again.
    revision = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "key"], name="submit_receipt_unique")]

    def __str__(self) -> str:
        return f"submit {self.key} of {self.item_id}"


class BrowserSubmit(models.Model):
    """A judging page's submit heard by the server, by the browser that made it and its number there (the browser
    numbers its submits 1, 2, 3, ...): a number missing below the highest one heard is a submit that browser made and
    still holds, which the start page reports from any browser (docs/judging.md, "Nothing lost")."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    browser = models.CharField(max_length=32, help_text="the browser's random id, kept in its localStorage")
    number = models.PositiveIntegerField()
    at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "browser", "number"], name="browser_submit_unique")]

    def __str__(self) -> str:
        return f"submit {self.number} of browser {self.browser}"






# -- characterising answers (ARQMath-3: "machine-generated?", "unrelated information?"), docs/judging.md


class CharacterisationQuestion(models.Model):
    """A yes/no question an organizer asks of a sample of a campaign's answers, with the short label the reports
    use (ARQMath-3's MG and UI)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="characterisation_questions")
    label = models.CharField(max_length=16, help_text="short name in reports and output, e.g. MG")
    text = models.CharField(max_length=500, help_text="the question as the assessor reads it")
    position = models.PositiveIntegerField(default=0, help_text="order on the page")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "position", "pk"]
        constraints = [models.UniqueConstraint(fields=["campaign", "label"], name="characterisation_question_label")]

    def __str__(self) -> str:
        return f"{self.label}: {self.text}"


class SampleItem(models.Model):
    """One pool item of a characterisation assignment's sample, in the order the page shows them (by its id, as
    judgments name items: a pool rebuild must not take it away)."""

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="sample")
    item_id = models.CharField(max_length=64)
    number = models.PositiveIntegerField(help_text="place in the sample, from 0")
    completed_at = models.DateTimeField(null=True, blank=True, help_text="when every question had an answer")

    class Meta:
        ordering = ["assignment", "number"]
        constraints = [models.UniqueConstraint(fields=["assignment", "item_id"], name="sample_item_unique"),
                       models.UniqueConstraint(fields=["assignment", "number"], name="sample_item_number")]

    def __str__(self) -> str:
        return f"{self.item_id} in the sample of assignment {self.assignment_id}"


class CheckItem(models.Model):
    """One pool item a check assignment asks its assessor to judge (docs/agreement.md: sent from the LLM
    disagreements of the review), by its id as judgments name items."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="check_items")
    item_id = models.CharField(max_length=64)
    sent_at = models.DateTimeField(auto_now_add=True)
    sent_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                related_name="+")

    class Meta:
        ordering = ["assignment", "item_id"]
        constraints = [models.UniqueConstraint(fields=["assignment", "item_id"], name="check_item_unique")]

    def __str__(self) -> str:
        return f"{self.item_id} to check in assignment {self.assignment_id}"


class CharacterisationAnswer(Revised):
    """One assessor's current yes/no to one question about one item: one per assignment (an assessor and a topic),
    item and question. A changed answer is a new revision, as a judgment's grade is."""

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="characterisations")
    item_id = models.CharField(max_length=64)
    question = models.ForeignKey(CharacterisationQuestion, on_delete=models.PROTECT, related_name="answers")
    answer = models.BooleanField(help_text="yes (true) or no (false)")

    class Meta:
        ordering = ["assignment", "item_id", "question"]
        constraints = [models.UniqueConstraint(fields=["assignment", "item_id", "question"],
                                               name="characterisation_answer_unique")]

    def __str__(self) -> str:
        return f"{self.item_id} {self.question_id}: {'yes' if self.answer else 'no'}"


class CharacterisationRevision(Revision):
    """Every submission that changed an answer: who, when, the old and the new value."""

    answer = models.ForeignKey(CharacterisationAnswer, on_delete=models.PROTECT, related_name="revisions")
    old = models.BooleanField(null=True, blank=True, help_text="the answer before (none on the first)")
    new = models.BooleanField()
    source = models.CharField(max_length=10, default="web", help_text="web or api")

    class Meta:
        ordering = ["answer", "number"]
        constraints = [models.UniqueConstraint(fields=["answer", "number"], name="characterisation_revision_unique")]

    def __str__(self) -> str:
        return f"revision {self.number} of {self.answer_id}"

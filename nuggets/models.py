"""Nugget banks and the support judging of generated answers (docs/nuggets.md): per topic, the nuggets a good answer
holds, every change to them kept; a bank frozen (versioned) when support judging starts; people's (and the LLM's)
support labels of each answer against each nugget, and of each sentence by its citations, with their revisions."""
from django.conf import settings
from django.db import models
from django.db.models import Q

from pooling.models import AnswerSentence, Campaign, RunAnswer, Topic


class Importance(models.TextChoices):
    VITAL = "vital"
    OKAY = "okay"


class Nugget(models.Model):
    """One nugget of a topic's bank. Nothing is deleted: a deleted, rejected or merged nugget keeps its row (and its
    history) with that status, out of the bank."""

    class Source(models.TextChoices):
        WRITTEN = "written", "written by an organizer"
        SELECTED = "selected", "selected from an answer's text"
        DRAFTED = "drafted", "drafted by the LLM co-assessor"
        IMPORTED = "imported", "imported from a nuggetizer file"

    class Status(models.TextChoices):
        DRAFT = "draft", "a draft awaiting acceptance"
        ACCEPTED = "accepted", "in the bank"
        REJECTED = "rejected", "a draft rejected"
        MERGED = "merged", "merged into another nugget"
        DELETED = "deleted", "deleted from the bank"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="nuggets")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="nuggets")
    text = models.TextField()
    importance = models.CharField(max_length=5, choices=Importance.choices, default=Importance.OKAY)
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.WRITTEN)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACCEPTED)
    position = models.PositiveIntegerField(default=0, help_text="order in the bank, from 0")
    model = models.CharField(max_length=200, blank=True, help_text="drafted: the LLM that drafted it")
    answer = models.ForeignKey(RunAnswer, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
                               help_text="selected: the answer its text was taken from")
    merged_into = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic__position", "position", "pk"]
        indexes = [models.Index(fields=["topic", "status", "position"], name="nugget_bank")]

    def __str__(self) -> str:
        return f"{self.topic.topic_id}: {self.text[:60]}"


class NuggetChange(models.Model):
    """One change to a nugget: who, when, what it was before and after (text, importance, status, position)."""

    class Action(models.TextChoices):
        ADD = "add"
        EDIT = "edit"
        MERGE = "merge"
        DELETE = "delete"
        MOVE = "move"
        IMPORTANCE = "importance"
        ACCEPT = "accept"
        REJECT = "reject"
        DRAFT = "draft"
        IMPORT = "import"

    nugget = models.ForeignKey(Nugget, on_delete=models.CASCADE, related_name="changes")
    action = models.CharField(max_length=10, choices=Action.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="+")
    at = models.DateTimeField()
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"{self.action} of nugget {self.nugget_id} at {self.at:%Y-%m-%d %H:%M}"


class BankVersion(models.Model):
    """A topic's bank frozen: the accepted nuggets in order, as they stood, when support judging of the topic
    started (or an organizer froze it). Support labels are of the nuggets of one version."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="nugget_versions")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="nugget_versions")
    number = models.PositiveIntegerField(help_text="1, 2, ... per topic")
    nuggets = models.JSONField(default=list, help_text="[{id, text, importance}, ...] in bank order")
    frozen_at = models.DateTimeField()
    frozen_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                  related_name="+")

    class Meta:
        ordering = ["topic__position", "-number"]
        constraints = [models.UniqueConstraint(fields=["topic", "number"], name="bank_version_number")]

    def __str__(self) -> str:
        return f"{self.topic.topic_id} bank v{self.number}"


class SupportAssignment(models.Model):
    """A topic's answers for one assessor to judge: against the nuggets of a frozen bank (`nuggets`) or sentence by
    sentence against their citations (`citations`). Official, dual (a second opinion for agreement) or training."""

    class Task(models.TextChoices):
        NUGGETS = "nuggets", "nugget support"
        CITATIONS = "citations", "citation support"

    class Kind(models.TextChoices):
        OFFICIAL = "official"
        DUAL = "dual"
        TRAINING = "training"

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="support_assignments")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="support_assignments")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                 related_name="support_assignments")
    task = models.CharField(max_length=9, choices=Task.choices, default=Task.NUGGETS)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.OFFICIAL)
    round = models.PositiveIntegerField(default=0, help_text="training round (1, 2, ...); 0 for other kinds")
    bank = models.ForeignKey(BankVersion, on_delete=models.PROTECT, null=True, blank=True, related_name="+",
                             help_text="nuggets: the frozen bank judged against")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")
    closed_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "topic__position", "task", "kind", "round", "assessor__username"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "assessor", "task", "kind", "round"],
                                    name="support_assignment_unique", condition=Q(withdrawn_at__isnull=True)),
            models.UniqueConstraint(fields=["topic", "task"], name="support_assignment_one_official",
                                    condition=Q(kind="official", withdrawn_at__isnull=True)),
        ]

    def __str__(self) -> str:
        return f"{self.topic.topic_id} {self.task} for {self.assessor} ({self.kind})"

    @property
    def read_only(self) -> bool:
        return self.closed_at is not None or self.withdrawn_at is not None


class SupportLabel(models.TextChoices):
    """nuggetizer's assignment labels (castorini/nuggetizer): partial support counts one half in its scores."""

    SUPPORT = "support"
    PARTIAL = "partial_support"
    NOT = "not_support"


class CitationLabel(models.TextChoices):
    FULL = "full"
    PARTIAL = "partial"
    NONE = "none"


class SupportJudgment(models.Model):
    """An assessor's (or, with `model`, the LLM's) label of how far one answer supports one nugget; `span` the
    part of the answer that does, when the assessor marked it. Revised in place; every revision kept."""

    assignment = models.ForeignKey(SupportAssignment, on_delete=models.PROTECT, related_name="judgments",
                                   null=True, blank=True)
    # PROTECT: a run or topic with labelled answers is refused deletion (pooling/services/undo.py), never emptied.
    answer = models.ForeignKey(RunAnswer, on_delete=models.PROTECT, related_name="support_judgments")
    nugget = models.ForeignKey(Nugget, on_delete=models.PROTECT, related_name="support_judgments")
    label = models.CharField(max_length=15, choices=SupportLabel.choices)
    span = models.TextField(blank=True)
    model = models.CharField(max_length=200, blank=True, help_text="the LLM's label: its model (no assignment)")
    suggested = models.BooleanField(default=False, help_text="the LLM's label was on screen when this one was given "
                                                             "(suggest mode)")
    revision = models.PositiveIntegerField(default=1)
    submitted_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["answer", "nugget"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "answer", "nugget"], name="support_judgment_unique",
                                    condition=Q(assignment__isnull=False)),
            models.UniqueConstraint(fields=["model", "answer", "nugget"], name="support_llm_unique",
                                    condition=Q(assignment__isnull=True)),
        ]

    def __str__(self) -> str:
        return f"{self.answer} / nugget {self.nugget_id}: {self.label}"


class SupportRevision(models.Model):
    judgment = models.ForeignKey(SupportJudgment, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="+")
    at = models.DateTimeField()
    old_label = models.CharField(max_length=15, blank=True)
    label = models.CharField(max_length=15, choices=SupportLabel.choices)
    span = models.TextField(blank=True)
    source = models.CharField(max_length=10, default="web", help_text="web, api, import or llm")
    suggested = models.BooleanField(default=False, help_text="the LLM's label was on screen (suggest mode)")

    class Meta:
        ordering = ["judgment", "number"]
        constraints = [models.UniqueConstraint(fields=["judgment", "number"], name="support_revision_number")]

    def __str__(self) -> str:
        return f"revision {self.number} of {self.judgment_id}: {self.label}"


class CitationJudgment(models.Model):
    """An assessor's label of how far one cited item supports one sentence of an answer."""

    assignment = models.ForeignKey(SupportAssignment, on_delete=models.PROTECT, related_name="citation_judgments")
    sentence = models.ForeignKey(AnswerSentence, on_delete=models.PROTECT, related_name="citation_judgments")
    citation = models.CharField(max_length=64, help_text="the cited item's id")
    label = models.CharField(max_length=7, choices=CitationLabel.choices)
    revision = models.PositiveIntegerField(default=1)
    submitted_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["sentence", "citation"]
        constraints = [models.UniqueConstraint(fields=["assignment", "sentence", "citation"],
                                               name="citation_judgment_unique")]

    def __str__(self) -> str:
        return f"{self.sentence} by {self.citation}: {self.label}"


class CitationRevision(models.Model):
    judgment = models.ForeignKey(CitationJudgment, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="+")
    at = models.DateTimeField()
    old_label = models.CharField(max_length=7, blank=True)
    label = models.CharField(max_length=7, choices=CitationLabel.choices)
    source = models.CharField(max_length=10, default="web")

    class Meta:
        ordering = ["judgment", "number"]
        constraints = [models.UniqueConstraint(fields=["judgment", "number"], name="citation_revision_number")]

    def __str__(self) -> str:
        return f"revision {self.number} of {self.judgment_id}: {self.label}"


class SupportReceipt(models.Model):
    """A submit's key, so that the outbox resending it after a lost answer writes nothing twice."""

    assignment = models.ForeignKey(SupportAssignment, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    at = models.DateTimeField()
    answer = models.JSONField(default=dict, help_text="what the server answered the first time")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "key"], name="support_receipt_key")]

    def __str__(self) -> str:
        return f"submit {self.key} of {self.assignment_id}"

"""Training rounds with their gold qrels, and adjudication: the organizer's agreed grade of a disputed item
(docs/agreement.md, "Adjudication"). The tables keep the names they had in the judging app (`db_table`).
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from judging.models import Assignment, Grade
from pooling.models import Campaign, Topic


class TrainingRound(models.Model):
    """A training round of a campaign as the organizer set it up: its topics and, when there is one, a gold qrels
    (say, last year's official qrels of those topics) to measure each assessor against. The round's assessors are
    its training assignments (kind training, this round number)."""

    # A campaign is deleted only while nothing is judged in it (judging/services/pools.py): its rounds go with it.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="training_rounds")
    number = models.PositiveIntegerField()
    topics = models.ManyToManyField(Topic, related_name="+", db_table="assessor_traininground_topics")
    gold_name = models.CharField(max_length=200, blank=True, help_text="file name of the gold qrels, if any")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")

    class Meta:
        db_table = "assessor_traininground"
        ordering = ["campaign", "number"]
        constraints = [models.UniqueConstraint(fields=["campaign", "number"], name="training_round_unique")]

    def __str__(self) -> str:
        return f"round {self.number} of {self.campaign}"


class GoldJudgment(models.Model):
    """One line of a round's gold qrels: a grade 0..3 for a post (answers) or a visual id (formulas)."""

    round = models.ForeignKey(TrainingRound, on_delete=models.CASCADE, related_name="gold")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    item_id = models.CharField(max_length=64)
    grade = models.PositiveSmallIntegerField()

    class Meta:
        db_table = "assessor_goldjudgment"
        ordering = ["round", "topic", "item_id"]
        constraints = [models.UniqueConstraint(fields=["round", "topic", "item_id"], name="gold_unique")]

    def __str__(self) -> str:
        return f"{self.item_id}: {self.grade}"


class Adjudication(models.Model):
    """The grade the organizer recorded for one unit (a post, or a formula instance) of a training round or of the
    dual assessment after the discussion, with a note: a source of its own, beside the assessors' judgments, which
    it never changes. A dual assessment's adjudication marked official is the unit's grade in the official qrels.
    Every recording is also kept as an AdjudicationRevision."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="adjudications")
    kind = models.CharField(max_length=20, choices=[(Assignment.Kind.TRAINING.value, "Training"),
                                                    (Assignment.Kind.DUAL.value, "Dual")])
    round = models.PositiveIntegerField(default=0, help_text="training round (1, 2, ...); 0 for the dual assessment")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="+")
    item_id = models.CharField(max_length=64, help_text="post id (answers) or visual id (formulas)")
    formula_id = models.CharField(max_length=64, blank=True, help_text="formulas: the judged instance")
    grade = models.CharField(max_length=2, choices=Grade.choices)
    note = models.TextField(blank=True)
    official = models.BooleanField(default=False, help_text="dual assessment: the grade of the official qrels")
    revision = models.PositiveIntegerField(default=1)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(help_text="latest revision")

    class Meta:
        db_table = "assessor_adjudication"
        ordering = ["campaign", "kind", "round", "topic__position", "item_id", "formula_id"]
        constraints = [models.UniqueConstraint(fields=["campaign", "kind", "round", "topic", "item_id", "formula_id"],
                                               name="adjudication_unique")]

    def __str__(self) -> str:
        unit = f"{self.item_id}/{self.formula_id}" if self.formula_id else self.item_id
        return f"{unit}: {self.grade} (adjudicated)"


class AdjudicationRevision(models.Model):
    """Every recording of an adjudication, the first included: who, when, the grade, the note and whether it was
    official. An official grade replaced later keeps its trace here."""

    adjudication = models.ForeignKey(Adjudication, on_delete=models.PROTECT, related_name="revisions")
    number = models.PositiveIntegerField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField()
    grade = models.CharField(max_length=2, choices=Grade.choices)
    note = models.TextField(blank=True)
    official = models.BooleanField(default=False)

    class Meta:
        db_table = "assessor_adjudicationrevision"
        ordering = ["adjudication", "number"]
        constraints = [models.UniqueConstraint(fields=["adjudication", "number"], name="adjudication_revision_unique")]

    def __str__(self) -> str:
        return f"revision {self.number} of adjudication {self.adjudication_id}"

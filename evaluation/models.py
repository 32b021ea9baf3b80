"""What evaluation keeps of its own: a campaign's topic information (categories, difficulty, ...)."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from pooling.models import Campaign


class CampaignTopicInfo(models.Model):
    """A campaign's topic information file as read (`ir.formats.topic_info.parse_topic_info`): its columns in file
    order, Topic first among them wherever it was, and per topic the other columns' values. Replaced whole by each
    ingest."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="topic_info")
    filename = models.CharField(max_length=255, blank=True)
    columns = models.JSONField(default=list, help_text="the file's header, in order")
    rows = models.JSONField(default=dict, help_text="topic id -> column -> value (the Topic column left out)")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    uploaded_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"topic information of {self.campaign}"


class ScoreSnapshot(models.Model):
    """The last scores computed for one question asked of a campaign (the leaderboard's scores with some measures
    over some topics, or the reusability table at a depth), with the judgments stamp they were computed for. Pages
    read it and never compute: a stamp that differs from the current one sends the campaign to its recompute
    (evaluation/snapshots.py)."""

    class Kind(models.TextChoices):
        LEADERBOARD = "leaderboard"
        REUSABILITY = "reusability"
        FUSION = "fusion"  # the sweep of RRF's k over the campaign's primary runs (evaluation/fusion.py)
        HYBRID = "hybrid"  # the runs under a calibrated model's hybrid qrels (evaluation/hybrid_board.py)

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="score_snapshots")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    key = models.CharField(max_length=64, help_text="a digest of `asked`")
    asked = models.JSONField(help_text="what was asked: the options the scores are computed with")
    version = models.CharField(max_length=64, blank=True, help_text="the judgments stamp the payload is for")
    payload = models.JSONField(null=True, help_text="the scores, or {'problem': why there are none}")
    computed_at = models.DateTimeField(null=True)
    asked_at = models.DateTimeField(help_text="when a page last asked for newer scores: a recompute skips the "
                                              "questions nobody asked lately")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "kind", "key"], name="one_snapshot_per_question")]

    def __str__(self) -> str:
        return f"{self.kind} scores of {self.campaign} ({self.asked})"


class EditionQrels(models.Model):
    """An earlier edition's qrels file (ARQMath 2020, 2021, ...) added to a campaign, under its label: the campaign's
    runs are scored against it beside the campaign's own judgments (report --campaign: a column group per edition;
    docs/evaluation.md, "Results across editions"). The file's lines are kept as read (small: tens of thousands)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="editions")
    label = models.CharField(max_length=100, help_text="the edition's name in the tables, such as 2021")
    filename = models.CharField(max_length=255, blank=True)
    qrels = models.TextField(help_text="the qrels file's text (topic 0 item grade lines), checked when added")
    judgments = models.PositiveIntegerField(default=0)
    topics = models.PositiveIntegerField(default=0)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["uploaded_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["campaign", "label"], name="one_edition_per_label")]

    def __str__(self) -> str:
        return f"edition {self.label} of {self.campaign}"

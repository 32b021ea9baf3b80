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

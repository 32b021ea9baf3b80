from __future__ import annotations

from django.contrib import admin

from agreement.models import GoldJudgment, TrainingRound
from judging.admin import ReadOnlyAdmin


@admin.register(TrainingRound)
class TrainingRoundAdmin(ReadOnlyAdmin):
    list_display = ["number", "campaign", "gold_name", "created_at", "created_by"]
    list_filter = ["campaign"]


@admin.register(GoldJudgment)
class GoldJudgmentAdmin(ReadOnlyAdmin):
    list_display = ["round", "topic", "item_id", "grade"]
    search_fields = ["=item_id"]

from __future__ import annotations

from django.contrib import admin

from judging.admin import ReadOnlyAdmin
from judging.models import CharacterisationAnswer, CharacterisationQuestion, CharacterisationRevision, SampleItem


@admin.register(CharacterisationQuestion)
class CharacterisationQuestionAdmin(ReadOnlyAdmin):
    list_display = ["label", "text", "position", "campaign"]
    list_filter = ["campaign"]


@admin.register(SampleItem)
class SampleItemAdmin(ReadOnlyAdmin):
    list_display = ["assignment", "number", "item_id", "completed_at"]
    search_fields = ["=item_id"]


@admin.register(CharacterisationAnswer)
class CharacterisationAnswerAdmin(ReadOnlyAdmin):
    list_display = ["assignment", "item_id", "question", "answer", "revision", "updated_at"]
    list_filter = ["question__label", "answer"]
    search_fields = ["=item_id", "assignment__assessor__username"]


@admin.register(CharacterisationRevision)
class CharacterisationRevisionAdmin(ReadOnlyAdmin):
    list_display = ["answer", "number", "user", "at", "old", "new", "source"]

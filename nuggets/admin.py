"""The nugget banks in Django's admin, read-only: every change goes through the services (docs/nuggets.md)."""
from __future__ import annotations

from django.contrib import admin

from judging.admin import ReadOnlyAdmin
from nuggets.models import BankVersion, Nugget, NuggetChange


@admin.register(Nugget)
class NuggetAdmin(ReadOnlyAdmin):
    list_display = ["topic", "position", "text", "importance", "source", "status", "campaign"]
    list_filter = ["campaign", "status", "source", "importance"]
    search_fields = ["text", "=topic__topic_id"]


@admin.register(NuggetChange)
class NuggetChangeAdmin(ReadOnlyAdmin):
    list_display = ["nugget", "action", "user", "at"]
    list_filter = ["action"]


@admin.register(BankVersion)
class BankVersionAdmin(ReadOnlyAdmin):
    list_display = ["topic", "number", "frozen_at", "frozen_by", "campaign"]
    list_filter = ["campaign"]

"""Django admin for the judging app: for looking, not for editing. Judgments change only through the services
(so that every change has its revision row), and nothing submitted may be deleted."""
from django.contrib import admin

from judging.models import Assignment, ItemVisit, Judgment, JudgmentRevision


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    list_display = ["topic", "assessor", "kind", "round", "campaign", "closed_at", "withdrawn_at"]
    list_filter = ["kind", "campaign"]
    search_fields = ["topic__topic_id", "assessor__username"]


@admin.register(ItemVisit)
class ItemVisitAdmin(ReadOnlyAdmin):
    list_display = ["assignment", "item_id", "first_shown_at", "skipped_at", "completed_at", "active_seconds"]
    search_fields = ["=item_id"]


@admin.register(Judgment)
class JudgmentAdmin(ReadOnlyAdmin):
    list_display = ["assignment", "item_id", "formula_id", "grade", "revision", "updated_at"]
    list_filter = ["grade", "assignment__kind"]
    search_fields = ["=item_id", "=formula_id", "assignment__assessor__username"]


@admin.register(JudgmentRevision)
class JudgmentRevisionAdmin(ReadOnlyAdmin):
    list_display = ["judgment", "number", "user", "at", "old_grade", "grade", "source"]













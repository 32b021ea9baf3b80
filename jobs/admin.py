"""Django admin for the Job rows (read-mostly: jobs are created and run by the runner)."""
from django.contrib import admin

from jobs.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "status", "campaign", "collection", "created_by", "created_at", "finished_at"]
    list_filter = ["kind", "status"]
    readonly_fields = ["problems", "warnings", "result", "params"]

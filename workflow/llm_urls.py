"""The campaign's LLM page, in the `llm` namespace; it lives in workflow, above llm, since it lists the campaign's
judging jobs as the other job lists do (workflow.job_pages.job_view)."""
from django.urls import path

from llm import import_views
from workflow import llm_views

app_name = "llm"
urlpatterns = [
    path("campaigns/<int:pk>/llm/", llm_views.campaign_llm, name="campaign_llm"),
    path("campaigns/<int:pk>/llm/import/", import_views.llm_grades_import_view, name="llm_grades_import"),
]

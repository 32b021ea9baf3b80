"""The campaign's LLM page, the start of an LLM judging job and the import of grades made elsewhere, in the `llm`
namespace."""
from django.urls import path

from llm import import_views, views

app_name = "llm"
urlpatterns = [
    path("campaigns/<int:pk>/llm/", views.campaign_llm, name="campaign_llm"),
    path("campaigns/<int:pk>/llm/judge/", views.llm_judge_start, name="llm_judge"),
    path("campaigns/<int:pk>/llm/import/", import_views.llm_grades_import_view, name="llm_grades_import"),
]

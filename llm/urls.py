"""The campaign's LLM page and the start of an LLM judging job from it, in the `llm` namespace."""
from django.urls import path

from llm import views

app_name = "llm"
urlpatterns = [
    path("campaigns/<int:pk>/llm/", views.campaign_llm, name="campaign_llm"),
    path("campaigns/<int:pk>/llm/judge/", views.llm_judge_start, name="llm_judge"),
]

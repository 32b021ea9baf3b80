from django.urls import path

from llm import apis

urlpatterns = [
    path("campaigns/<int:pk>/llm/", apis.CampaignLlmApi.as_view(), name="api-campaign-llm"),
]

from django.urls import path

from llm import views

app_name = "llm"
urlpatterns = [
    path("campaigns/<int:pk>/llm/", views.campaign_llm, name="campaign_llm"),
]

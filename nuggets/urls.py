"""The nugget bank pages (docs/nuggets.md, "Nugget banks"), under the campaign; organizers only."""
from django.urls import path

from nuggets import bank_views as views

app_name = "nuggets"
urlpatterns = [
    path("campaigns/<int:pk>/nuggets/", views.campaign_nuggets, name="banks"),
    path("campaigns/<int:pk>/nuggets/export/", views.nuggets_export, name="export"),
    path("campaigns/<int:pk>/nuggets/topics/<int:topic_pk>/", views.bank, name="bank"),
]

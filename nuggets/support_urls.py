"""Support judging's pages (docs/nuggets.md, "Support judging"): the assessor's under /assess/support/, the
organizer's under the campaign."""
from django.urls import path

from nuggets import support_views as views

app_name = "support"
urlpatterns = [
    path("assess/support/", views.support_mine, name="mine"),
    path("assess/support/<int:pk>/", views.support_continue, name="continue"),
    path("assess/support/<int:pk>/answers/<int:number>/", views.support_judge, name="judge"),
    path("campaigns/<int:pk>/support/", views.support_assignments, name="assignments"),
]

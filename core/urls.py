"""The help pages (core/help.py): docs/*.md of a fixed list, rendered, and their screenshots."""
from django.urls import path

from core import help as views

app_name = "help"
urlpatterns = [
    path("", views.help_index, name="index"),
    path("img/<str:name>", views.help_image, name="image"),
    path("<slug:page>/", views.help_page, name="page"),
]

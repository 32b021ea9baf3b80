from django.urls import path

from . import views

app_name = "assessor"
urlpatterns = [
    path("", views.home, name="home"),
]

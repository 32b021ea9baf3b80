from django.urls import path

from people import views

app_name = "people"
urlpatterns = [
    path("people/", views.people, name="list"),
] + [
    path(f"people/<int:pk>/{action}/", views.person_action, {"action": action}, name=action)
    for action in views.ACTIONS
]

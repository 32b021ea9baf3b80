"""The planner's judging-order curves, in the `simulation` namespace."""
from django.urls import path

from simulation import views

app_name = "simulation"
urlpatterns = [
    path("campaigns/<int:pk>/pools/simulation/", views.pool_simulation, name="pool_simulation"),
]

from django.urls import path

from agreement import views

app_name = "agreement"
urlpatterns = [
    path("campaigns/<int:pk>/training/", views.training_rounds, name="training_rounds"),
    path("campaigns/<int:pk>/agreement/", views.agreement_dashboard, name="agreement"),
    path("campaigns/<int:pk>/agreement.csv", views.agreement_csv, name="agreement_csv"),
    path("campaigns/<int:pk>/disagreements/", views.disagreements, name="disagreements"),
    path("campaigns/<int:pk>/disagreements/llm-checks/", views.llm_checks_send, name="llm_checks_send"),
    path("campaigns/<int:pk>/progress/", views.progress, name="progress"),
]

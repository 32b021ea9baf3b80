from django.urls import path

from jobs import views

app_name = "jobs"
urlpatterns = [
    path("jobs/", views.job_list, name="jobs"),
    path("jobs/<int:pk>/", views.job_detail, name="job"),
    path("jobs/<int:pk>/retry/", views.job_retry_view, name="job_retry"),
    path("jobs/<int:pk>/cancel/", views.job_cancel_view, name="job_cancel"),
]

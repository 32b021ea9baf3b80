from django.urls import path

from . import views

app_name = "pooling"
urlpatterns = [
    path("campaigns/", views.campaign_list, name="campaigns"),
    path("campaigns/<int:pk>/", views.campaign_detail, name="campaign"),
    path("campaigns/<int:pk>/runs/upload/", views.run_upload, name="run_upload"),
    path("campaigns/<int:pk>/topics/upload/", views.topics_upload, name="topics_upload"),
    path("campaigns/<int:pk>/pools/", views.pool_detail, name="pools"),
    path("campaigns/<int:pk>/pools/build/", views.pool_build, name="pool_build"),
    path("campaigns/<int:pk>/runs/<int:run_pk>/depth/", views.run_depth, name="run_depth"),
    path("collections/", views.collection_list, name="collections"),
    path("jobs/", views.job_list, name="jobs"),
    path("jobs/<int:pk>/", views.job_detail, name="job"),
    path("jobs/<int:pk>/retry/", views.job_retry_view, name="job_retry"),
]

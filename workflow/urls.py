from django.urls import path

from workflow import (
    fusion_views,
    judgment_views,
    scheme_views,
    simulation_views,
    topic_views,
    undo_views,
    views,
)

app_name = "workflow"
urlpatterns = [
    path("campaigns/", views.campaign_list, name="campaigns"),
    path("campaigns/<int:pk>/", views.campaign_detail, name="campaign"),
    path("campaigns/<int:pk>/runs/upload/", views.run_upload, name="run_upload"),
    path("campaigns/<int:pk>/runs/fuse/", fusion_views.run_fuse, name="run_fuse"),
    path("campaigns/<int:pk>/topics/upload/", views.topics_upload, name="topics_upload"),
    path("campaigns/<int:pk>/judgments/import/", judgment_views.judgments_upload, name="judgments_upload"),
    path("campaigns/<int:pk>/pools/", views.pool_detail, name="pools"),
    path("campaigns/<int:pk>/pools/build/", views.pool_build, name="pool_build"),
    path("campaigns/<int:pk>/pools/simulation/", simulation_views.pool_simulation, name="pool_simulation"),
    path("campaigns/<int:pk>/pools/topics/<int:topic_pk>/", views.pool_topic, name="pool_topic"),
    path("campaigns/<int:pk>/runs/<int:run_pk>/depth/", views.run_depth, name="run_depth"),
    path("campaigns/<int:pk>/runs/<int:run_pk>/matches/", views.run_matches, name="run_matches"),
    path("campaigns/<int:pk>/runs/<int:run_pk>/delete/", undo_views.run_delete, name="run_delete"),
    path("campaigns/<int:pk>/runs/<int:run_pk>/replace/", undo_views.run_replace, name="run_replace"),
    path("campaigns/<int:pk>/settings/", undo_views.campaign_settings, name="campaign_settings"),
    path("campaigns/<int:pk>/scheme/", scheme_views.scheme_edit, name="scheme_edit"),
    path("campaigns/<int:pk>/delete/", undo_views.campaign_delete, name="campaign_delete"),
    path("campaigns/<int:pk>/topics/<int:topic_pk>/edit/", topic_views.topic_edit, name="topic_edit"),
    path("campaigns/<int:pk>/topics/<int:topic_pk>/delete/", topic_views.topic_delete, name="topic_delete"),
    path("collections/", views.collection_list, name="collections"),
    path("collections/<int:pk>/delete/", views.collection_delete, name="collection_delete"),
]

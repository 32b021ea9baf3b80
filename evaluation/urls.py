from django.urls import path

from evaluation import analysis_views, edition_views, fact_views, fusion_views, views

app_name = "evaluation"
urlpatterns = [
    path("campaigns/<int:pk>/runs/fuse/", fusion_views.run_fuse, name="run_fuse"),
    path("campaigns/<int:pk>/leaderboard/", views.leaderboard, name="leaderboard"),
    path("campaigns/<int:pk>/leaderboard.csv", views.leaderboard_csv, name="leaderboard_csv"),
    path("campaigns/<int:pk>/leaderboard/runs/<int:run_pk>/", views.run_scores, name="run_scores"),
    path("campaigns/<int:pk>/qrels.txt", views.qrels_download, name="qrels"),
    path("campaigns/<int:pk>/runs/<int:run_pk>/facts/", fact_views.run_facts, name="run_facts"),
    path("campaigns/<int:pk>/topic-info/", fact_views.topic_info, name="topic_info"),
    path("campaigns/<int:pk>/editions/", edition_views.editions_page, name="editions"),
    path("campaigns/<int:pk>/reusability/", analysis_views.reusability_page, name="reusability"),
    path("campaigns/<int:pk>/report/", analysis_views.report_download, name="report"),
]

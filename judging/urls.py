from django.urls import path

from judging import ahead_views, views

app_name = "judging"
urlpatterns = [
    path("assess/", views.home, name="home"),
    path("assess/assignments/<int:pk>/", views.assignment_continue, name="continue"),
    path("assess/assignments/<int:pk>/topic/", views.topic_view, name="topic"),
    path("assess/assignments/<int:pk>/items/<int:position>/", views.judge, name="judge"),
    path("assess/assignments/<int:pk>/items/<int:position>/skip/", views.skip, name="skip"),
    path("assess/assignments/<int:pk>/items/<int:position>/history/", views.judgment_history, name="history"),
    path("assess/assignments/<int:pk>/items/<int:position>/ahead/", ahead_views.ahead, name="ahead"),
    path("assess/assignments/<int:pk>/items/<int:position>/shown/", ahead_views.shown, name="shown"),
    path("assess/collections/<int:collection_pk>/posts/<str:post_id>/", views.thread, name="thread"),
    path("campaigns/<int:pk>/assignments/", views.campaign_assignments, name="campaign_assignments"),
    path("campaigns/<int:pk>/assignments/<int:assignment_pk>/withdraw/", views.assignment_withdraw,
         name="assignment_withdraw"),
    path("campaigns/<int:pk>/topics/<int:topic_pk>/close/", views.topic_close, name="topic_close"),
]

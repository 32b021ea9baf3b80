from django.urls import path

from assessor import ahead_views, characterisation_views, dashboard_views, views

app_name = "assessor"
urlpatterns = [
    path("assess/", views.home, name="home"),
    path("assess/assignments/<int:pk>/", views.assignment_continue, name="continue"),
    path("assess/assignments/<int:pk>/topic/", views.topic_view, name="topic"),
    path("assess/assignments/<int:pk>/items/<int:position>/", views.judge, name="judge"),
    path("assess/assignments/<int:pk>/items/<int:position>/skip/", views.skip, name="skip"),
    path("assess/assignments/<int:pk>/items/<int:position>/history/", views.judgment_history, name="history"),
    path("assess/assignments/<int:pk>/items/<int:position>/ahead/", ahead_views.ahead, name="ahead"),
    path("assess/assignments/<int:pk>/items/<int:position>/shown/", ahead_views.shown, name="shown"),
    path("assess/characterisations/<int:pk>/", characterisation_views.characterise_continue,
         name="characterise_continue"),
    path("assess/characterisations/<int:pk>/items/<int:number>/", characterisation_views.characterise,
         name="characterise"),
    path("assess/collections/<int:collection_pk>/posts/<str:post_id>/", views.thread, name="thread"),
    path("campaigns/<int:pk>/assignments/", views.campaign_assignments, name="campaign_assignments"),
    path("campaigns/<int:pk>/assignments/<int:assignment_pk>/withdraw/", views.assignment_withdraw,
         name="assignment_withdraw"),
    path("campaigns/<int:pk>/topics/<int:topic_pk>/close/", views.topic_close, name="topic_close"),
    path("campaigns/<int:pk>/characterisation/", characterisation_views.characterisation_page,
         name="characterisation"),
    path("campaigns/<int:pk>/training/", dashboard_views.training_rounds, name="training_rounds"),
    path("campaigns/<int:pk>/agreement/", dashboard_views.agreement_dashboard, name="agreement"),
    path("campaigns/<int:pk>/agreement.csv", dashboard_views.agreement_csv, name="agreement_csv"),
    path("campaigns/<int:pk>/disagreements/", dashboard_views.disagreements, name="disagreements"),
    path("campaigns/<int:pk>/disagreements/llm-checks/", dashboard_views.llm_checks_send, name="llm_checks_send"),
    path("campaigns/<int:pk>/progress/", dashboard_views.progress, name="progress"),
]

from django.urls import path

from . import apis

urlpatterns = [
    path("campaigns/<int:pk>/qrels/", apis.QrelsApi.as_view(), name="api-qrels"),
    path("campaigns/<int:pk>/evaluation/", apis.EvaluationApi.as_view(), name="api-evaluation"),
    path("campaigns/<int:pk>/analysis/", apis.AnalysisApi.as_view(), name="api-analysis"),
]

from django.urls import path
from rest_framework.routers import SimpleRouter

from . import apis, dashboard_apis

router = SimpleRouter()
router.register("assignments", apis.AssignmentViewSet, basename="assignment")
router.register("judgments", apis.JudgmentViewSet, basename="judgment")
urlpatterns = router.urls + [
    path("campaigns/<int:pk>/agreement/", dashboard_apis.AgreementApi.as_view(), name="api-agreement"),
    path("campaigns/<int:pk>/progress/", dashboard_apis.ProgressApi.as_view(), name="api-progress"),
]

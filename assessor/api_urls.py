from django.urls import path
from rest_framework.routers import SimpleRouter

from assessor import apis, characterisation_apis, dashboard_apis

router = SimpleRouter()
router.register("assignments", apis.AssignmentViewSet, basename="assignment")
router.register("judgments", apis.JudgmentViewSet, basename="judgment")
router.register("characterisations", characterisation_apis.CharacterisationViewSet, basename="characterisation")
urlpatterns = router.urls + [
    path("campaigns/<int:pk>/agreement/", dashboard_apis.AgreementApi.as_view(), name="api-agreement"),
    path("campaigns/<int:pk>/progress/", dashboard_apis.ProgressApi.as_view(), name="api-progress"),
    path("campaigns/<int:pk>/characterisation/", characterisation_apis.CharacterisationApi.as_view(),
         name="api-characterisation"),
    path("campaigns/<int:pk>/assignments/", apis.AssignmentsCreateApi.as_view(), name="api-assignments-create"),
    path("campaigns/<int:pk>/training-rounds/", apis.TrainingRoundsApi.as_view(), name="api-training-rounds"),
    path("campaigns/<int:pk>/characterisation/assign/", characterisation_apis.CharacterisationAssignApi.as_view(),
         name="api-characterisation-assign"),
]

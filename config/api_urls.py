"""The API's one router (docs/architecture.md): every app's viewsets and views under /api/, named here so that the
whole API reads in one place. No format suffixes (`/api/campaigns/1.json`): the actions do not take one, and
`?format=json` or an Accept header chooses the format instead."""
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from agreement import apis as agreement
from characterisation import apis as characterisation
from core.permissions import organizer_required
from evaluation import apis as evaluation
from jobs import apis as jobs
from judging import apis as judging
from llm import apis as llm
from nuggets import apis as nuggets
from nuggets import support_apis as support
from people.apis import TokenObtainApi
from workflow import apis as workflow
from workflow import topic_apis

# The API's documentation: Swagger UI from drf-spectacular-sidecar's static files, its start-up script served
# from this same URL (?script) so that the page needs no inline script. Organizers only, like /api/schema/; the
# wrapper sends anyone else to the login page or the site's 403 page rather than DRF's.
api_docs = organizer_required(SpectacularSwaggerSplitView.as_view(url_name="api-schema"))

router = DefaultRouter()
router.include_format_suffixes = False
router.register("campaigns", workflow.CampaignViewSet, basename="campaign")
router.register(r"campaigns/(?P<pk>[0-9]+)/runs", workflow.RunViewSet, basename="campaign-run")
router.register("collections", workflow.CollectionViewSet, basename="collection")
router.register("jobs", jobs.JobViewSet, basename="job")
router.register("assignments", judging.AssignmentViewSet, basename="assignment")
router.register("judgments", judging.JudgmentViewSet, basename="judgment")
router.register("characterisations", characterisation.CharacterisationViewSet, basename="characterisation")

urlpatterns = router.urls + [
    path("campaigns/<int:pk>/topics/<str:topic_id>/", topic_apis.TopicApi.as_view(), name="api-topic"),
    path("campaigns/<int:pk>/assignments/", judging.AssignmentsCreateApi.as_view(), name="api-assignments-create"),
    path("campaigns/<int:pk>/training-rounds/", agreement.TrainingRoundsApi.as_view(), name="api-training-rounds"),
    path("campaigns/<int:pk>/agreement/", agreement.AgreementApi.as_view(), name="api-agreement"),
    path("campaigns/<int:pk>/progress/", agreement.ProgressApi.as_view(), name="api-progress"),
    path("campaigns/<int:pk>/characterisation/", characterisation.CharacterisationApi.as_view(),
         name="api-characterisation"),
    path("campaigns/<int:pk>/characterisation/assign/", characterisation.CharacterisationAssignApi.as_view(),
         name="api-characterisation-assign"),
    path("campaigns/<int:pk>/qrels/", evaluation.QrelsApi.as_view(), name="api-qrels"),
    path("campaigns/<int:pk>/evaluation/", evaluation.EvaluationApi.as_view(), name="api-evaluation"),
    path("campaigns/<int:pk>/analysis/", evaluation.AnalysisApi.as_view(), name="api-analysis"),
    path("campaigns/<int:pk>/llm/", llm.CampaignLlmApi.as_view(), name="api-campaign-llm"),
    path("campaigns/<int:pk>/llm/judge/", llm.CampaignLlmJudgeApi.as_view(), name="api-campaign-llm-judge"),
    path("support-judgments/", support.SupportJudgmentsApi.as_view(), name="api-support-judgments"),
    path("campaigns/<int:pk>/support-assignments/", support.SupportAssignmentsApi.as_view(),
         name="api-support-assignments"),
    path("campaigns/<int:pk>/support-assignments/import/", support.SupportAssignmentsImportApi.as_view(),
         name="api-support-assignments-import"),
    path("campaigns/<int:pk>/nuggets/", nuggets.CampaignNuggetsApi.as_view(), name="api-campaign-nuggets"),
    path("token/", TokenObtainApi.as_view(), name="api-token"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", api_docs, name="api-docs"),
]

from django.urls import path
from rest_framework.routers import DefaultRouter

from workflow import apis, llm_views, topic_apis

# No format suffixes (`/api/campaigns/1.json`): the actions do not take one (a 500 before), and `?format=json` or
# an Accept header chooses the format instead.
router = DefaultRouter()
router.include_format_suffixes = False
router.register("campaigns", apis.CampaignViewSet, basename="campaign")
router.register(r"campaigns/(?P<pk>[0-9]+)/runs", apis.RunViewSet, basename="campaign-run")
router.register("collections", apis.CollectionViewSet, basename="collection")
router.register("jobs", apis.JobViewSet, basename="job")
urlpatterns = router.urls + [
    path("campaigns/<int:pk>/topics/<str:topic_id>/", topic_apis.TopicApi.as_view(), name="api-topic"),
    path("campaigns/<int:pk>/llm/judge/", llm_views.CampaignLlmJudgeApi.as_view(), name="api-campaign-llm-judge")]

from rest_framework.routers import DefaultRouter

from . import apis

router = DefaultRouter()
router.register("campaigns", apis.CampaignViewSet, basename="campaign")
router.register("collections", apis.CollectionViewSet, basename="collection")
router.register("jobs", apis.JobViewSet, basename="job")
urlpatterns = router.urls

from rest_framework.routers import SimpleRouter

from . import apis

router = SimpleRouter()
router.register("assignments", apis.AssignmentViewSet, basename="assignment")
router.register("judgments", apis.JudgmentViewSet, basename="judgment")
urlpatterns = router.urls

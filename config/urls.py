"""URL map: organizer pages under /campaigns, /collections, /jobs; assessors under /assess; the API under /api."""
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.authtoken.views import obtain_auth_token

from pooling import apis as pooling_apis
from pooling import views as pooling_views

urlpatterns = [
    path("", pooling_views.home, name="home"),
    path("healthz/", pooling_views.healthz, name="healthz"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("pooling.urls")),
    path("", include("assessor.urls")),
    path("", include("evaluation.urls")),
    path("admin/", admin.site.urls),
    path("api/", include("pooling.api_urls")),
    path("api/", include("assessor.api_urls")),
    path("api/", include("evaluation.api_urls")),
    path("api/token/", obtain_auth_token, name="api-token"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Last: an /api/ address that nothing above takes (a malformed id, say) is a JSON 404, as the schema says. Only
    # addresses ending in a slash, so that APPEND_SLASH still redirects /api/campaigns to /api/campaigns/.
    re_path(r"^api/.*/$", pooling_apis.not_found),
]

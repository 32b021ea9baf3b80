"""URL map: organizer pages under /campaigns, /collections, /jobs; assessors under /assess; the API under /api."""
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from core.api import not_found
from workflow import views as workflow_views

urlpatterns = [
    path("", workflow_views.home, name="home"),
    path("healthz/", workflow_views.healthz, name="healthz"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("", include("people.urls")),
    path("", include("workflow.urls")),
    path("", include("jobs.urls")),
    path("", include("judging.urls")),
    path("", include("agreement.urls")),
    path("", include("characterisation.urls")),
    path("", include("evaluation.urls")),
    path("", include("simulation.urls")),
    path("", include("llm.urls")),
    path("", include("nuggets.support_urls")),
    path("", include("nuggets.urls")),
    path("help/", include("core.urls")),
    path("admin/", admin.site.urls),
    path("api/", include("config.api_urls")),  # the one API router
    # Last: an /api/ address that nothing above takes (a malformed id, say) is a JSON 404, as the schema says. Only
    # addresses ending in a slash, so that APPEND_SLASH still redirects /api/campaigns to /api/campaigns/.
    re_path(r"^api/[\s\S]*/$", not_found),  # [\s\S], not ".": a segment holding a newline is still under /api/
]

# The error pages (templates/400.html, 403.html, 404.html) are Django's own handlers with the site's templates; the
# 500 page tries the navigation first.
handler500 = "config.errors.server_error"

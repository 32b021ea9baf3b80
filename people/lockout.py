"""What a locked-out login gets (django-axes' AXES_LOCKOUT_CALLABLE): the site's page, or JSON under /api/."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    minutes = max(1, round(seconds / 60))
    message = (f"Too many failed logins for this account or from this address: try again in {minutes} minutes, "
               "or ask an organizer.")
    status = settings.AXES_HTTP_RESPONSE_CODE
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=status)
    else:
        response = render(request, "registration/lockout.html", {"message": message, "minutes": minutes},
                          status=status)
    response["Retry-After"] = str(seconds)
    return response

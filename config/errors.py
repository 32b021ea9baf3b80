"""The 500 page in the site's layout, with the navigation when the request can still render it."""
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import defaults


def server_error(request: HttpRequest) -> HttpResponse:
    # Whatever broke the view may break the navigation's own queries too (the database gone): then the same page
    # as Django renders it, with no context, so that this handler cannot fail in turn.
    try:
        return render(request, "500.html", status=500)
    except Exception:
        return defaults.server_error(request)

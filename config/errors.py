"""The 500 page in the site's layout, with the navigation when the request can still render it, and the 503 page of
a service that does not answer (the job queue's broker)."""
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core.errors import ServiceUnavailable

# What the cache raises when Redis (the production cache) is down: the page answers 503, like a lost broker.
CACHE_DOWN = (RedisConnectionError, RedisTimeoutError)


def server_error(request: HttpRequest) -> HttpResponse:
    # Whatever broke the view may break the navigation's own queries too (the database gone): then the same page
    # as Django renders it, with no context, so that this handler cannot fail in turn.
    try:
        return render(request, "500.html", status=500)
    except Exception:
        return defaults.server_error(request)


class ServiceUnavailableMiddleware:
    """A page whose request needs a service that does not answer (core.errors.ServiceUnavailable, raised before
    anything is saved; or the cache's Redis, gone) answers 503 with the site's page, or JSON under /api/ (where DRF
    does not catch it itself), with Retry-After."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if isinstance(exc, CACHE_DOWN):
            exc = ServiceUnavailable("the cache (Redis) does not answer; try again in a minute")
        if not isinstance(exc, ServiceUnavailable):
            return None
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse({"detail": str(exc.detail)}, status=503)
        else:
            response = render(request, "503.html", {"detail": str(exc.detail)}, status=503)
        response["Retry-After"] = "30"
        return response

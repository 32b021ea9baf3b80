"""The REST API's shared plumbing, for every app's endpoints: the mapping of InputError to HTTP 400 (settings'
EXCEPTION_HANDLER), the JSON 404 of an unrouted /api/ address, the TSV renderer, and the reading of a boolean
parameter."""
from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import status
from rest_framework.renderers import BaseRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import ServiceUnavailable
from ir.problems import InputError


def exception_handler(exc, context):
    """InputError is the client's mistake: 400 with every problem and its line, problems of a frequent kind grouped:
    `problems` the lines as text, `problem_groups` the same lines structured (as a job's `problems`), `total` the
    number of problems."""
    if isinstance(exc, InputError):
        return Response({"detail": "rejected input", "problems": exc.messages(), "problem_groups": exc.as_dicts(),
                         "total": exc.total}, status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if isinstance(exc, ServiceUnavailable) and response is not None:
        response["Retry-After"] = "30"
    return response


@csrf_exempt  # a 404 whatever the method: nothing to protect, and no HTML CSRF page in the API
def not_found(request, *args, **kwargs) -> JsonResponse:
    """Any address under /api/ that no route takes: a JSON 404 like the API's own (not the site's HTML page)."""
    return JsonResponse({"detail": "Not found."}, status=404)


def flag(value) -> bool:
    """A boolean from JSON (true) or a form ("true", "1", "on")."""
    return value is True or str(value).lower() in ("true", "1", "on", "yes")



class TSVRenderer(BaseRenderer):
    """Lets a client ask for `Accept: text/tab-separated-values`; error bodies are then plain text."""
    media_type = "text/tab-separated-values"
    format = "tsv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, bytes | str):
            return data
        if isinstance(data, dict) and "detail" in data:
            return str(data["detail"])
        return str(data)

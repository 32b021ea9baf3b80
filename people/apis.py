"""/api/token/: a username and password for the account's API token, counted by django-axes like any login."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.response import Response

from . import services
from .selectors import token_expires


class TokenObtainApi(ObtainAuthToken):
    """POST a username and password; answers the account's token and when it expires."""

    def get_serializer_context(self):
        # django-axes flags a lockout on the request it is given and its middleware reads the flag from Django's
        # request: hand it that one, not DRF's wrapper around it.
        return {**super().get_serializer_context(), "request": self.request._request}

    @extend_schema(
        request=inline_serializer("TokenRequest", {"username": serializers.CharField(),
                                                   "password": serializers.CharField()}),
        responses={200: inline_serializer("TokenResponse", {"token": serializers.CharField(),
                                                            "expires": serializers.DateTimeField()}),
                   400: OpenApiResponse(description="the username and password do not match"),
                   429: OpenApiResponse(description="too many failed logins for this account or address")},
        auth=[],
    )
    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = services.token_issue(user=serializer.validated_data["user"])
        return Response({"token": token.key, "expires": token_expires(token)})

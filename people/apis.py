"""/api/token/: a username and password for the account's API token, counted by django-axes like any login."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.response import Response

from people import services
from people.selectors import token_expires


class TokenRequestSerializer(AuthTokenSerializer):
    # Bounded like the login form's fields: a longer name is no account's, and django-axes keeps the name it is given
    # in a column of 255 characters.
    username = serializers.CharField(label="Username", max_length=150, write_only=True)
    password = serializers.CharField(label="Password", max_length=4096, style={"input_type": "password"},
                                     trim_whitespace=False, write_only=True)


class TokenObtainApi(ObtainAuthToken):
    """POST a username and password; answers the account's token and when it expires."""

    serializer_class = TokenRequestSerializer

    def get_serializer_context(self):
        # django-axes flags a lockout on the request it is given and its middleware reads the flag from Django's
        # request: hand it that one, not DRF's wrapper around it.
        return {**super().get_serializer_context(), "request": self.request._request}

    @extend_schema(
        request=TokenRequestSerializer,
        responses={200: inline_serializer("TokenResponse", {"token": serializers.CharField(),
                                                            "expires": serializers.DateTimeField()}),
                   400: OpenApiResponse(description="the username and password do not match, or are missing"),
                   429: OpenApiResponse(description="too many failed logins for this account or address")},
        auth=[],
    )
    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = services.token_issue(user=serializer.validated_data["user"])
        return Response({"token": token.key, "expires": token_expires(token)})

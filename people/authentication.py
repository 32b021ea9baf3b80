"""API token authentication with a lifetime: a token older than TOKEN_LIFETIME answers 401.

Its own module, without views: DRF imports it while its own views module is loading.
"""
from __future__ import annotations

from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from people.selectors import token_expires


class ExpiringTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if token_expires(token) <= timezone.now():
            raise exceptions.AuthenticationFailed("Token expired: ask /api/token/ for a new one.")
        return user, token

"""Production: SECRET_KEY must come from the environment; HTTPS only (secure cookies, redirect, HSTS) unless told
otherwise; the proxy's X-Forwarded-Proto is believed only when a proxy is declared (BEHIND_PROXY=1).

docs/security.md and docs/deploy.md describe the switches; tests/security/test_hardening.py checks them.
"""
import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import SECRET_KEY, env_bool

if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set in the environment in production")
DEBUG = False

# SECURE_COOKIES=false is a plain-HTTP trial: then, unless set explicitly, no redirect to HTTPS and no HSTS either.
SECURE_COOKIES = env_bool("SECURE_COOKIES", True)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
# Plain HTTP is redirected to HTTPS, and browsers are told to use HTTPS only (a year). A proxy that terminates TLS and
# does both itself (or cannot pass X-Forwarded-Proto): SECURE_SSL_REDIRECT=false and SECURE_HSTS_SECONDS=0.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", SECURE_COOKIES)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS") or (365 * 24 * 3600 if SECURE_COOKIES else 0))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
# Health checks (compose, a load balancer) ask over plain HTTP from inside.
SECURE_REDIRECT_EXEMPT = [r"^healthz/$"]
# Only a declared proxy may say that a request came over HTTPS: anyone can send the header to a bare port.
BEHIND_PROXY = env_bool("BEHIND_PROXY", False)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# Static files under names with a hash of their content (served with a far-future expiry by WhiteNoise), and
# compressed; the templates' {% static %} gives the hashed names.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}}  # noqa: F405

"""The test suite. Uses PostgreSQL and Redis when they answer (or DATABASE_URL / REDIS_URL say where).

SERVICES records what was found so that the suite can say loudly what it skipped.
"""
import atexit
import os
import shutil
import socket
import tempfile
from pathlib import Path

import dj_database_url

from .base import *  # noqa: F403
from .base import PG_CLIENT_CHECK, SECRET_KEY

PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/assess"
REDIS_DEFAULT = "redis://127.0.0.1:6379/15"


def _answers(url: str, default_port: int) -> bool:
    from urllib.parse import urlparse

    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or default_port), timeout=1):
            return True
    except OSError:
        return False


_db_url = os.environ.get("DATABASE_URL") or (PG_DEFAULT if _answers(PG_DEFAULT, 5432) else "")
if _db_url:
    DATABASES = {"default": dj_database_url.parse(_db_url, conn_max_age=0)}
    DATABASES["default"].setdefault("OPTIONS", {}).update(PG_CLIENT_CHECK)
else:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
TEST_REDIS_URL = os.environ.get("REDIS_URL") or (REDIS_DEFAULT if _answers(REDIS_DEFAULT, 6379) else "")
SERVICES = {
    "postgresql": DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql",
    "redis": bool(TEST_REDIS_URL),
}

# Tasks run in-process unless a test sends them through a real worker (tests/jobs/test_celery_worker.py).
CELERY_BROKER_URL = TEST_REDIS_URL or "memory://"
# A worker the tests start says CELERY_TASK_ALWAYS_EAGER=0: its sweep sends jobs through the broker.
CELERY_TASK_ALWAYS_EAGER = os.environ.get("CELERY_TASK_ALWAYS_EAGER", "1") == "1"
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TEST_QUEUE", "celery")
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

SECRET_KEY = SECRET_KEY or "test-only-not-secret"
DEBUG = False
# The suite signs in thousands of times (Client.login passes no request, which django-axes refuses): axes is off,
# except in tests/test_login_throttle.py, which turns the real thing on.
AXES_ENABLED = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
MEDIA_ROOT = Path(os.environ.get("TEST_MEDIA_ROOT") or tempfile.mkdtemp(prefix="assess-media-"))
if not os.environ.get("TEST_MEDIA_ROOT"):    # made here: gone when this process ends (a worker given one keeps it)
    atexit.register(shutil.rmtree, MEDIA_ROOT, ignore_errors=True)
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
STATIC_ROOT = Path(tempfile.mkdtemp(prefix="assess-static-"))
atexit.register(shutil.rmtree, STATIC_ROOT, ignore_errors=True)
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# The warm-up's tests run on the local-memory cache.
JUDGING_CACHE_WARM = True

# Reusability and the sweep follow each judgment here, as the leaderboard does (their schedule is tested apart).
SCORES_ANALYSES_SECONDS = 0

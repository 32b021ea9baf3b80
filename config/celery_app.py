"""The Celery application. With no REDIS_URL set, tasks run in-process (see settings).

Like config/wsgi.py, it falls back to the production settings, never to the development ones: a worker started
without DJANGO_SETTINGS_MODULE (the image sets it; a shell may not) then refuses to start without SECRET_KEY instead
of running with DEBUG and a known key. A development worker says so: DJANGO_SETTINGS_MODULE=config.settings.local.
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

app = Celery("assess")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

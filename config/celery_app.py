"""The Celery application. With no REDIS_URL set, tasks run in-process (see settings)."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("assess")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

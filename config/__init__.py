"""Project configuration; loads the Celery app so shared tasks bind to it."""
from config.celery_app import app as celery_app

__all__ = ("celery_app",)

from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every app uses: the error type of rejected input, the organizer checks, the API's plumbing, the base of
    the management commands, downloads. No models; it imports no other app of the project."""

    name = "core"
    verbose_name = "Shared"

from django.apps import AppConfig


class JobsConfig(AppConfig):
    """The Job rows and the one runner every long operation goes through (jobs/runner.py), its pages and API. Each
    app registers the kinds it owns from its tasks.py (jobs/registry.py); this app those whose work is pooling's."""

    name = "jobs"
    verbose_name = "Background jobs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from jobs import tasks  # noqa: F401 (registers pooling's kinds)

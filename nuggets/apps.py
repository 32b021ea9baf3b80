from django.apps import AppConfig


class NuggetsConfig(AppConfig):
    name = "nuggets"
    verbose_name = "Nuggets"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from nuggets import tasks  # noqa: F401 (registers nugget drafting's kind of job)

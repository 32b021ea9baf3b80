from django.apps import AppConfig


class JudgingConfig(AppConfig):
    name = "judging"
    # The label the app had before the house was split by feature: its tables (assessor_*), migrations and
    # content types keep their names (docs/architecture.md).
    label = "assessor"
    verbose_name = "Judging"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from judging import tasks  # noqa: F401 (registers judging's kinds of job)

from django.apps import AppConfig


class AgreementConfig(AppConfig):
    name = "agreement"
    verbose_name = "Agreement"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from agreement import tasks  # noqa: F401 (registers agreement's kind of job)

from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Qrels and run evaluation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from evaluation import tasks  # noqa: F401 (registers evaluation's kinds of job)

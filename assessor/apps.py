from django.apps import AppConfig


class AssessorConfig(AppConfig):
    name = "assessor"
    verbose_name = "Assessment"
    default_auto_field = "django.db.models.BigAutoField"

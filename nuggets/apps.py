from django.apps import AppConfig


class NuggetsConfig(AppConfig):
    name = "nuggets"
    verbose_name = "Nuggets"
    default_auto_field = "django.db.models.BigAutoField"

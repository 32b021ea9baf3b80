from django.apps import AppConfig


class PoolingConfig(AppConfig):
    name = "pooling"
    verbose_name = "Collections, campaigns, runs and pools"
    default_auto_field = "django.db.models.BigAutoField"

from django.apps import AppConfig


class LlmConfig(AppConfig):
    name = "llm"
    verbose_name = "LLM co-assessor"
    default_auto_field = "django.db.models.BigAutoField"

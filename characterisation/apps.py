from django.apps import AppConfig


class CharacterisationConfig(AppConfig):
    name = "characterisation"
    verbose_name = "Characterisation"
    default_auto_field = "django.db.models.BigAutoField"

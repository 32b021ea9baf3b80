"""Django's template engine, with one start-up warning fewer: `static` is replaced on purpose by config/static_tags.py
(settings.TEMPLATES "libraries"), which Django's check reports as templates.W003 on every start (issue 13.13). Any
other library name used twice is still reported."""
from django.template.backends.django import DjangoTemplates as BaseDjangoTemplates

# Library names this project replaces on purpose, and the module that replaces each.
REPLACED = {"static": "config.static_tags"}


class DjangoTemplates(BaseDjangoTemplates):
    def _check_for_template_tags_with_the_same_name(self):
        replaced = {name for name, module in REPLACED.items() if self.engine.libraries.get(name) == module}
        # A private method of Django's backend (since 5.1) that django-stubs does not declare.
        return [w for w in super()._check_for_template_tags_with_the_same_name()  # type: ignore[misc]
                if not any(w.msg.startswith(f"{name!r} is used") for name in replaced)]

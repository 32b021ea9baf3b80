"""The server starts without a warning (issue 13.13): Django's system checks report nothing about the templates,
while a template library really named twice is still reported."""
from django.core import checks

from config.template_backend import DjangoTemplates


def test_the_system_checks_report_no_template_warning():
    assert [m for m in checks.run_checks() if m.id.startswith("templates.")] == []


def test_a_library_named_twice_by_mistake_is_still_reported():
    engine = DjangoTemplates({"NAME": "t", "DIRS": [], "APP_DIRS": False, "OPTIONS": {
        "libraries": {"static": "config.static_tags", "i18n": "config.static_tags"}}})
    warnings = engine.check()
    assert [w.id for w in warnings] == ["templates.W003"]
    assert warnings[0].msg.startswith("'i18n' is used")

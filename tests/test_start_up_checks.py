"""The server starts without a warning (issue 13.13): Django's system checks report nothing about the templates."""
from django.core import checks


def test_the_system_checks_report_no_template_warning():
    assert [m for m in checks.run_checks() if m.id.startswith("templates.")] == []

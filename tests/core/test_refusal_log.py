"""A 403 is logged in one line: the refusal is the permission checks' own answer, not an error with a traceback."""
import logging

import pytest

pytestmark = pytest.mark.django_db


def test_a_refused_page_is_logged_without_its_traceback(client, ada, answers, caplog):
    client.force_login(ada)  # an assessor, on an organizer's page
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get(f"/campaigns/{answers.pk}/settings/").status_code == 403
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.status_code == 403 and record.exc_info is None
    assert "Forbidden" in record.getMessage() and "Traceback" not in caplog.text

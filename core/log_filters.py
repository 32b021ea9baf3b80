"""Log filters the settings' LOGGING names."""
from __future__ import annotations

import logging


class RefusalWithoutTraceback(logging.Filter):
    """django.request logs a 403 with the PermissionDenied's traceback, a dozen lines for a refusal the permission
    checks meant (an assessor opening an organizer's page): the one line of it is kept, the traceback dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403:
            record.exc_info, record.exc_text = None, None
        return True

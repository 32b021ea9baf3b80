"""Uploaded files: size limit, and a place under MEDIA_ROOT where the workers can read them."""
from __future__ import annotations

import re
import uuid
from pathlib import Path

from django.conf import settings
from django.core.files.move import file_move_safe
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from .errors import InputError


def upload_save(*, file: UploadedFile) -> Path:
    """Stores an upload and returns its path; refuses files over UPLOAD_MAX_BYTES."""
    limit = settings.UPLOAD_MAX_BYTES
    if file.size is not None and file.size > limit:
        raise InputError(f"{file.name}: the file is {file.size:,} bytes, more than the upload limit of {limit:,} bytes")
    folder = Path(settings.MEDIA_ROOT) / "uploads" / timezone.now().strftime("%Y/%m")
    folder.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(file.name or "upload").name)[-100:]
    path = folder / f"{uuid.uuid4().hex}_{safe}"
    if hasattr(file, "temporary_file_path"):
        # A large upload is already on disk: move it rather than write it a second time.
        file_move_safe(file.temporary_file_path(), path)
        return path
    with open(path, "wb") as out:
        for chunk in file.chunks():
            out.write(chunk)
    return path


class UploadLimitMiddleware:
    """Refuses a request body larger than UPLOAD_MAX_BYTES (plus room for the form) before reading it."""

    FORM_ALLOWANCE = 1 << 20

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.UPLOAD_MAX_BYTES
        if length > limit + self.FORM_ALLOWANCE:
            return HttpResponse(f"The upload is {length:,} bytes, more than the limit of {limit:,} bytes.\n",
                                status=413, content_type="text/plain")
        return self.get_response(request)

"""Uploaded files: size limit, and a place under MEDIA_ROOT where the workers can read them."""
from __future__ import annotations

import re
import uuid
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
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
    with open(path, "wb") as out:
        for chunk in file.chunks():
            out.write(chunk)
    return path

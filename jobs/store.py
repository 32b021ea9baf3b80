"""Uploads in the store (Django's default storage: a folder under MEDIA_ROOT, or with MEDIA_STORAGE=s3 an S3-compatible
bucket): saved by the web under a name the job keeps, read by the worker that runs the job, deleted once it is done."""
from __future__ import annotations

import logging
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.utils import timezone

from core.bounds import upload_size_check
from ir.formats.textio import CHUNK

log = logging.getLogger(__name__)


def upload_save(*, file: File) -> str:
    """Stores a file (an upload, or one of the demo's) and returns its name in the store; refuses files over
    UPLOAD_MAX_BYTES. A local store moves a large upload's temporary file rather than write it a second time."""
    upload_size_check(file)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(file.name or "upload").name)[-100:]
    return default_storage.save(f"uploads/{timezone.now():%Y/%m}/{uuid.uuid4().hex}_{safe}", file)


@contextmanager
def upload_local(name: str) -> Iterator[Path]:
    """A local path to the stored file `name`, for the readers (which take paths): the file itself in a local store;
    from a remote one a temporary copy, streamed in chunks and deleted afterwards (the store's own file object keeps
    at most AWS_S3_MAX_MEMORY_SIZE in memory)."""
    try:
        local = default_storage.path(name)
    except NotImplementedError:  # not on this host's disk
        pass
    else:
        yield Path(local)
        return
    with tempfile.TemporaryDirectory(prefix="assess-upload-", dir=settings.FILE_UPLOAD_TEMP_DIR) as folder:
        path = Path(folder) / Path(name).name  # the name as stored: a reader may go by its suffix
        with default_storage.open(name, "rb") as source, open(path, "wb") as out:
            shutil.copyfileobj(source, out, CHUNK)
        yield path


def uploads_delete(names: list[str]) -> None:
    """Deletes stored files that no job will read again; one that cannot be deleted is logged, not raised (the job's
    outcome is stored already)."""
    for name in names:
        try:
            default_storage.delete(name)
        except Exception:
            log.warning("the stored upload %s was not deleted", name, exc_info=True)

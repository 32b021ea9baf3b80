"""A request body larger than REQUEST_BODY_MAX_BYTES is refused (413) before anything reads it, unless it is an
organizer's upload to an upload URL: an anonymous or an assessor's 200 MiB POST leaves nothing on disk.

The requests go through the whole middleware chain with CSRF checks on (an attacker brings their own CSRF cookie), and
the body is a generated stream that counts what was read of it, so nothing of 200 MiB is ever held by the test.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from rest_framework.authtoken.models import Token

from jobs.models import Job
from tests.factories import CampaignFactory

MiB = 1024 * 1024
BOUNDARY = "----assess-test-boundary"
CSRF = "a" * 32  # a CSRF secret of the attacker's own choosing, as cookie and as form field


class GeneratedBody:
    """A multipart body of `size` bytes in all, made as it is read: a CSRF field and one file of filler."""

    def __init__(self, size: int, field: str = "file") -> None:
        self.head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"csrfmiddlewaretoken\"\r\n\r\n{CSRF}\r\n"
                     f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"run.tsv\"\r\n"
                     "Content-Type: text/plain\r\n\r\n").encode()
        self.tail = f"\r\n--{BOUNDARY}--\r\n".encode()
        self.size = size
        self.read_bytes = 0

    def _byte_range(self, start: int, end: int) -> bytes:
        out = bytearray()
        filler_end = self.size - len(self.tail)
        for part, begin, stop in ((self.head, 0, len(self.head)), (None, len(self.head), filler_end),
                                  (self.tail, filler_end, self.size)):
            lo, hi = max(start, begin), min(end, stop)
            if lo < hi:
                out += part[lo - begin:hi - begin] if part is not None else b"x" * (hi - lo)
        return bytes(out)

    def read(self, size: int = -1) -> bytes:
        end = self.size if size is None or size < 0 else min(self.size, self.read_bytes + size)
        data = self._byte_range(self.read_bytes, end)
        self.read_bytes = end
        return data

    def readline(self, size: int = -1) -> bytes:
        data = self.read(size if size and size > 0 else 64 * 1024)
        cut = data.find(b"\n")
        if cut >= 0 and cut + 1 < len(data):
            self.read_bytes -= len(data) - cut - 1
            data = data[:cut + 1]
        return data


@pytest.fixture
def temp_dir(settings, monkeypatch, tmp_path):
    """Uploads' temporary files land in a directory of their own, to be measured."""
    folder = tmp_path / "upload-tmp"
    folder.mkdir()
    settings.FILE_UPLOAD_TEMP_DIR = str(folder)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _largest_file(folder: Path) -> int:
    return max((p.stat().st_size for p in folder.rglob("*") if p.is_file()), default=0)


def _post(client: Client, path: str, size: int, field: str = "file", **headers):
    body = GeneratedBody(size, field)
    client.cookies["csrftoken"] = CSRF
    response = client.request(**{"REQUEST_METHOD": "POST", "PATH_INFO": path, "CONTENT_LENGTH": str(size),
                                 "CONTENT_TYPE": f"multipart/form-data; boundary={BOUNDARY}", "wsgi.input": body,
                                 **headers})
    return response, body


@pytest.fixture
def campaign(db):
    return CampaignFactory()


@pytest.mark.parametrize("path", ["/campaigns/{pk}/runs/upload/", "/login/", "/campaigns/{pk}/topics/upload/",
                                  "/api/campaigns/{pk}/runs/"])
def test_anonymous_200_mib_post_is_refused_unread(campaign, temp_dir, path):
    response, body = _post(Client(enforce_csrf_checks=True), path.format(pk=campaign.pk), 200 * MiB)
    assert response.status_code == 413
    assert body.read_bytes == 0
    assert _largest_file(temp_dir) == 0


@pytest.mark.parametrize("path", ["/campaigns/{pk}/runs/upload/", "/collections/"])
def test_assessor_200_mib_upload_is_refused_unread(campaign, assessor_user, temp_dir, path):
    client = Client(enforce_csrf_checks=True)
    client.force_login(assessor_user)
    response, body = _post(client, path.format(pk=campaign.pk), 200 * MiB,
                           field="files" if path == "/collections/" else "file")
    assert response.status_code == 413
    assert body.read_bytes == 0
    assert _largest_file(temp_dir) == 0


def test_assessor_token_200_mib_api_upload_is_refused_unread(campaign, assessor_user, temp_dir):
    token = Token.objects.create(user=assessor_user)
    response, body = _post(Client(), f"/api/campaigns/{campaign.pk}/runs/", 200 * MiB,
                           HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 413
    assert body.read_bytes == 0


def test_a_bad_token_is_refused_unread(campaign, temp_dir):
    response, body = _post(Client(), f"/api/campaigns/{campaign.pk}/runs/", 200 * MiB,
                           HTTP_AUTHORIZATION="Token not-a-token")
    assert response.status_code == 413
    assert body.read_bytes == 0


def test_organizer_large_body_elsewhere_is_refused(campaign, organizer, temp_dir):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    response, body = _post(client, "/campaigns/", 200 * MiB)
    assert response.status_code == 413
    assert body.read_bytes == 0


def test_organizer_large_upload_still_works(campaign, organizer, temp_dir, settings):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    size = 3 * MiB  # past REQUEST_BODY_MAX_BYTES and past the size Django keeps in memory
    response, body = _post(client, f"/campaigns/{campaign.pk}/runs/upload/", size)
    assert response.status_code == 302, response.content[:500]
    job = Job.objects.get(campaign=campaign, kind=Job.Kind.RUN_INGEST)
    assert response["Location"] == f"/jobs/{job.pk}/"
    assert body.read_bytes == size
    assert default_storage.size(job.params["upload"]) == size - len(body.head) - len(body.tail)


def test_organizer_token_large_api_upload_still_works(campaign, organizer, temp_dir):
    token = Token.objects.create(user=organizer)
    size = 3 * MiB
    response, body = _post(Client(), f"/api/campaigns/{campaign.pk}/runs/", size,
                           HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 202, response.content[:500]
    assert body.read_bytes == size


def test_small_posts_pass_as_before(client, assessor_user):
    response = client.post("/login/", {"username": "ada", "password": "assessor-pass-1"})
    assert response.status_code == 302


def test_a_pages_413_is_in_the_sites_layout(campaign, temp_dir):
    response, body = _post(Client(enforce_csrf_checks=True), "/login/", 200 * MiB)
    page = response.content.decode()
    assert response.status_code == 413 and body.read_bytes == 0
    assert "<title>Request too large" in page and '<main' in page and "209,715,200 bytes" in page


def test_the_topic_information_page_is_an_upload_address(campaign, organizer, temp_dir):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    response, body = _post(client, f"/campaigns/{campaign.pk}/topic-info/", 3 * MiB)
    assert response.status_code == 400  # read: the filler is no topic information CSV, a form error
    assert body.read_bytes == 3 * MiB

"""The organizer's clients the LLM page and API tests share."""
import pytest
from rest_framework.test import APIClient


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client


@pytest.fixture
def api(organizer):
    api = APIClient()
    api.force_authenticate(organizer)
    return api


@pytest.fixture(autouse=True)
def no_real_dns(monkeypatch):
    """Base URLs are resolved when checked and when requested (llm.client.host_refusal): here a name other than
    localhost resolves to nothing, without asking a DNS server; a test that needs a name patches it."""
    import socket

    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        text = host.decode() if isinstance(host, bytes) else str(host or "")
        if text in ("localhost", "") or all(c in "0123456789abcdefABCDEF.:%" for c in text):
            return real(host, *args, **kwargs)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

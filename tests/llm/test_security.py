"""What a security probe of the LLM judge found (docs/security.md, "The LLM endpoint's address" and "The LLM key's
variable"): each test failed before its fix."""
from __future__ import annotations

import ipaddress
import socket

import pytest

from ir.problems import InputError
from llm import services
from llm.client import EndpointSettings, base_url_normalised
from llm.models import Endpoint, LlmGrade
from llm.tasks import LlmJudgeParams
from tests.commands import rejected
from tests.llm.server import Answer, ChatServer
from workflow.tasks import campaign_llm_judge

pytestmark = pytest.mark.django_db

SECRET = "django-insecure-the-servers-own-secret-key"
ENDPOINT = {"action": "endpoint", "model": "m", "temperature": "0", "concurrency": "4", "timeout": "60",
            "retries": "3", "samples": "1", "mode": "blind"}


def settings_for(url: str, **more) -> EndpointSettings:
    return EndpointSettings(**{"base_url": url, "model": "m", "retries": 0, "timeout": 5.0, **more})


# The key's variable ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["SECRET_KEY", "DATABASE_URL", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY"])
def test_the_api_refuses_a_key_variable_that_is_not_an_llm_key(answers, api, name):
    answered = api.put(f"/api/campaigns/{answers.pk}/llm/", {"base_url": "http://127.0.0.1:8191/v1", "model": "p",
                                                             "api_key_env": name}, format="json")
    assert answered.status_code == 400
    assert "must be named ASSESS_LLM_KEY_<NAME>" in str(answered.json())
    assert not Endpoint.objects.exists()


def test_the_judging_api_refuses_a_key_variable_that_is_not_an_llm_key(answers, api):
    Endpoint.objects.create(campaign=answers, base_url="http://127.0.0.1:9/v1", model="m")
    answered = api.post(f"/api/campaigns/{answers.pk}/llm/judge/", {"api_key_env": "DATABASE_URL"}, format="json")
    assert answered.status_code == 400 and "ASSESS_LLM_KEY_" in str(answered.json())


def test_the_page_refuses_a_key_variable_that_is_not_an_llm_key_and_takes_one_that_is(answers, organizer_client):
    page = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {
        **ENDPOINT, "base_url": "http://127.0.0.1:11434/v1", "api_key_env": "SECRET_KEY"})
    assert page.status_code == 200 and b"must be named ASSESS_LLM_KEY_&lt;NAME&gt;" in page.content
    assert not Endpoint.objects.exists()
    saved = organizer_client.post(f"/campaigns/{answers.pk}/llm/", {
        **ENDPOINT, "base_url": "http://127.0.0.1:11434/v1", "api_key_env": "ASSESS_LLM_KEY_OPENAI"})
    assert saved.status_code == 302 and Endpoint.objects.get().api_key_env == "ASSESS_LLM_KEY_OPENAI"


def test_the_command_refuses_a_key_variable_that_is_not_an_llm_key(answers, monkeypatch):
    monkeypatch.setenv("SECRET_KEY", SECRET)
    with ChatServer() as server:
        lines = rejected("llm_judge", "--campaign", "answers", "--base-url", server.url, "--model", "m",
                         "--api-key-env", "SECRET_KEY")
    assert server.requests == 0 and "must be named ASSESS_LLM_KEY_<NAME>" in lines[0]


def test_an_endpoint_stored_before_the_check_sends_no_secret(answers, monkeypatch):
    monkeypatch.setenv("SECRET_KEY", SECRET)
    with ChatServer() as server:
        Endpoint.objects.create(campaign=answers, base_url=server.url, model="m", api_key_env="SECRET_KEY")
        with pytest.raises(InputError, match="ASSESS_LLM_KEY_"):
            campaign_llm_judge(campaign=answers, params=LlmJudgeParams())
    assert server.requests == 0 and server.keys == [] and not LlmGrade.objects.exists()


def test_a_key_in_an_llm_key_variable_is_sent(answers, monkeypatch):
    monkeypatch.setenv("ASSESS_LLM_KEY_LOCAL", "the-llm-key")
    with ChatServer() as server:
        services.llm_judge(campaign=answers, settings=settings_for(server.url, api_key_env="ASSESS_LLM_KEY_LOCAL"),
                           topics=["A.1"])
    assert set(server.keys) == {"Bearer the-llm-key"}


# Redirects and error bodies ---------------------------------------------------------------------------------------

def test_a_redirect_is_a_failure_and_is_not_followed(answers):
    with ChatServer() as elsewhere:
        target = elsewhere.url + "/chat/completions"
        with ChatServer(lambda prompt, n: Answer("moved", status=307, headers={"Location": target})) as base:
            result = services.llm_judge(campaign=answers, settings=settings_for(base.url), topics=["A.1"])
        assert base.requests == 3 and elsewhere.requests == 0
    assert result.judged == 0 and result.failed == 3
    failure = LlmGrade.objects.filter(grade__isnull=True).first()
    assert failure is not None and failure.failure.startswith("HTTP 307: a redirect, not followed")


def test_an_error_body_is_kept_short_without_markup_or_control_characters(answers):
    body = "<html><script>alert(1)</script><h1>Bad\x1b[31m gateway\u202e</h1></html>" + "x" * 5000
    with ChatServer(lambda prompt, n: Answer(body, status=502)) as server:
        services.llm_judge(campaign=answers, settings=settings_for(server.url), topics=["A.1"])
    failure = LlmGrade.objects.filter(grade__isnull=True).first()
    assert failure is not None and failure.failure.startswith("HTTP 502 after 1 try: ")
    assert "Bad [31m gateway xxx" in failure.failure and len(failure.failure) < 250
    assert not any(c in failure.failure for c in "<>\x1b\u202e")


# Addresses --------------------------------------------------------------------------------------------------------

LINK_LOCAL = ipaddress.IPv4Address("169.254.169.254")


@pytest.mark.parametrize("url", [
    "http://[::a9fe:a9fe]/v1",                 # IPv4-compatible
    "http://[64:ff9b::a9fe:a9fe]/v1",          # NAT64
    "http://[64:ff9b:1:a9fe:a9:fe00::]/v1",    # local-use NAT64, a /48 prefix (RFC 6052)
    "http://[64:ff9b:1::a9fe:a9fe]/v1",        # local-use NAT64, a /96 prefix
    "http://[2002:a9fe:a9fe::1]/v1",           # 6to4
    f"http://[{ipaddress.IPv6Address((0x20010000 << 96) | (int(ipaddress.IPv4Address('192.0.2.1')) << 64) | (~int(LINK_LOCAL) & 0xFFFFFFFF))}]/v1",  # noqa: E501  Teredo
    "http://[::ffff:169.254.169.254]/v1",      # IPv4-mapped
])
def test_link_local_under_another_spelling_is_refused(url):
    with pytest.raises(InputError, match="link-local address or a cloud metadata service"):
        base_url_normalised(url)


@pytest.mark.parametrize("url", ["http://[::1]:8000/v1", "http://[64:ff9b::a00:1]/v1", "http://[2002:a00:1::]/v1"])
def test_loopback_and_private_addresses_in_ipv6_stay_allowed(url):
    assert base_url_normalised(url) == url


def resolving(monkeypatch, names: dict[str, str]) -> None:
    def getaddrinfo(host, port, *args, **kwargs):
        host = host.decode() if isinstance(host, bytes) else host
        address = names.get(host, host)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port or 0))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_name_that_resolves_to_link_local_is_refused(monkeypatch):
    resolving(monkeypatch, {"169.254.169.254.nip.io": "169.254.169.254", "gpu.example": "10.0.0.7"})
    with pytest.raises(InputError, match="resolves to 169.254.169.254: a link-local address"):
        base_url_normalised("http://169.254.169.254.nip.io/v1")
    assert base_url_normalised("gpu.example:8000/v1") == "http://gpu.example:8000/v1"


def test_a_name_that_resolves_to_link_local_when_requested_gets_no_request(answers, monkeypatch):
    with ChatServer() as server:
        port = server.httpd.server_address[1]
        resolving(monkeypatch, {"llm.example": "127.0.0.1"})
        settings = settings_for(f"http://llm.example:{port}/v1")
        done = services.llm_judge(campaign=answers, settings=settings, topics=["A.1"], limit_per_topic=1)
        assert server.requests == 1 and done.judged == 1
        # The name now resolves elsewhere (its DNS changed after the check): each request resolves it again.
        resolving(monkeypatch, {"llm.example": "::ffff:169.254.169.254"})
        judged = services.llm_judge(campaign=answers, settings=settings, topics=["A.1"])
    assert server.requests == 1 and judged.judged == 0 and judged.failed == 2
    failure = LlmGrade.objects.filter(grade__isnull=True).first()
    assert failure is not None and failure.failure.startswith("nothing was sent: 'llm.example' resolves to")

"""The deployment as docker-compose.yml runs it: its web and worker commands, started here with its environment (the
container names and volume put on this machine), serve the site behind the TLS proxy and ingest an upload that the
web server stored in the worker."""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.db import connection
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from people.services import token_issue
from pooling.models import RunEntry
from tests.factories import TopicFactory
from tests.pooling.run_files import task1_lines
from tests.security.test_hardening import static_root  # noqa: F401 (fixture: collected as the image does)

ROOT = Path(__file__).resolve().parent.parent
SECRET = "s" * 50
VARIABLE = re.compile(r"\$\{(\w+)(?::([-?])([^}]*))?\}")
pytestmark = [pytest.mark.postgresql, pytest.mark.redis]


def interpolate(value: str, given: dict[str, str]) -> str:
    """Compose's ${NAME:-default} and ${NAME:?message}, from `given` (what the .env file holds)."""
    def one(match: re.Match) -> str:
        name, kind, text = match.groups()
        if name in given:
            return given[name]
        if kind == "?":
            raise KeyError(f"{name}: {text}")
        return text or ""

    return VARIABLE.sub(one, str(value))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(service: dict, env: dict[str, str], log: Path, port: int) -> subprocess.Popen:
    """The service's command as compose gives it, published on the loopback port instead of the container's 8000."""
    command = [part.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for part in service["command"]]
    with open(log, "wb") as sink:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True)


def stop(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)  # its own session: sh and the gunicorn it started, or celery's children
    except ProcessLookupError:
        pass  # it had already exited (the failure the test reports, from its log), and its group with it
    process.wait(timeout=30)


def ask(url: str, *, https: bool = True, data: bytes | None = None, headers: dict | None = None):
    """(status, headers, body) of one request; https=True sends it as the proxy does (X-Forwarded-Proto)."""
    request = urllib.request.Request(url, data=data, headers={**(headers or {}),
                                                              **({"X-Forwarded-Proto": "https"} if https else {})})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def environment(service: dict, here: dict[str, str], volumes: Path) -> dict[str, str]:
    """The service's environment with the .env values, on this machine: its volumes are folders of `volumes` (a path
    inside a mounted volume becomes the same path in that folder), and `here` says what the container names stand
    for."""
    given = {"SECRET_KEY": SECRET, "POSTGRES_PASSWORD": "unused"}
    env = {name: interpolate(value, given) for name, value in service["environment"].items()}
    for mount in service.get("volumes", []):
        volume, inside = mount.split(":", 1)
        for name, value in env.items():
            if value == inside or value.startswith(inside + "/"):
                env[name] = str(volumes / volume) + value[len(inside):]
    return {**env, **here}


@pytest.fixture(scope="module")
def deployment(django_db_setup, django_db_blocker, static_root, tmp_path_factory):  # noqa: F811
    """web and worker started by compose's commands, with compose's environment; yields the web server's URL."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    with django_db_blocker.unblock():
        db = connection.settings_dict
    here = {"DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
                            f"{db['PORT'] or 5432}/{db['NAME']}",
            "REDIS_URL": settings.TEST_REDIS_URL, "STATIC_ROOT": static_root,
            "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
            "HOME": str(tmp_path_factory.mktemp("home"))}
    volumes = tmp_path_factory.mktemp("volumes")
    for name in compose["volumes"]:
        (volumes / name).mkdir()
    web, worker = (compose["services"][name] for name in ("web", "worker"))
    logs = tmp_path_factory.mktemp("logs")
    port = free_port()
    processes = [start(service, environment(service, here, volumes), logs / f"{name}.log", port)
                 for name, service in (("web", web), ("worker", worker))]
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                ask(f"{base}/healthz/", https=False)
                break
            except OSError:
                assert all(p.poll() is None for p in processes), (logs / "web.log").read_text()[-3000:]
                assert time.monotonic() < deadline, (logs / "web.log").read_text()[-3000:]
                time.sleep(0.3)
        yield base, logs
    finally:
        for process in processes:
            stop(process)


def test_the_web_service_serves_the_site_behind_the_proxy_and_redirects_plain_http(deployment):
    base, _ = deployment
    status, headers, body = ask(f"{base}/login/")
    assert status == 200 and b"Log in" in body
    assert "secure" in headers["Set-Cookie"].lower()  # cookies over HTTPS only
    assert ask(f"{base}/static/css/site.css")[0] == 200  # the image's collected static files, served
    status, headers, _ = ask(f"{base}/login/", https=False)  # straight to the port: sent to HTTPS
    assert status == 301 and headers["Location"].startswith("https://")
    assert ask(f"{base}/healthz/", https=False)[0] == 200  # a health check asks over plain HTTP from inside
    assert ask(f"{base}/api/campaigns/")[0] in (401, 403)


@pytest.mark.django_db(transaction=True)
def test_a_run_uploaded_to_the_web_service_is_ingested_by_the_worker(deployment, organizer, tmp_path):
    base, logs = deployment
    campaign = TopicFactory(topic_id="A.1").campaign
    # The token issued here: the tests' password hasher is not production's.
    token = {"Authorization": f"Token {token_issue(user=organizer).key}"}
    run = tmp_path / "deployed.tsv"
    run.write_text("".join("\t".join(line) + "\n" for line in task1_lines("A.1", ["10", "11", "12"], "deployed")))
    with open(run, "rb") as f:
        upload = encode_multipart(BOUNDARY, {"file": f})
    status, _, body = ask(f"{base}/api/campaigns/{campaign.pk}/runs/", data=upload,
                          headers={**token, "Content-Type": MULTIPART_CONTENT})
    assert status == 202, body
    job = json.loads(body)
    deadline = time.monotonic() + 90
    while job["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, (logs / "worker.log").read_text()[-3000:]
        time.sleep(0.3)
        job = json.loads(ask(f"{base}/api/jobs/{job['id']}/", headers=token)[2])
    assert job["status"] == "done", (job, (logs / "worker.log").read_text()[-3000:])
    assert sorted(RunEntry.objects.filter(run__campaign=campaign).values_list("item_id", flat=True)) == [
        "10", "11", "12"]


def token_attempts(base: str, *, source: str, times: int) -> list[int]:
    """The statuses of failed /api/token/ logins sent to gunicorn from the `source` address, each forging another
    X-Forwarded-For."""
    host, port = base.removeprefix("http://").split(":")
    statuses = []
    for i in range(times):
        connection_ = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
        try:
            connection_.request("POST", "/api/token/", body=json.dumps({"username": "mallory", "password": "wrong"}),
                                headers={"Content-Type": "application/json", "X-Forwarded-Proto": "https",
                                         "X-Forwarded-For": f"192.0.2.{i}"})
            statuses.append(connection_.getresponse().status)
        finally:
            connection_.close()
    return statuses


@pytest.mark.django_db(transaction=True)
def test_a_forged_forwarded_for_sent_to_gunicorn_directly_is_locked_out(deployment):
    """Compose declares a proxy (BEHIND_PROXY=1): from the proxy's address the header is believed, but a peer outside
    TRUSTED_PROXY_ADDRESSES (127.0.0.2 here, as a host on the network would be) is counted under its own address."""
    base, _ = deployment
    limit = settings.AXES_FAILURE_LIMIT  # compose leaves LOGIN_FAILURE_LIMIT at its default
    assert token_attempts(base, source="127.0.0.1", times=limit + 2) == [400] * (limit + 2)  # the proxy's clients
    assert token_attempts(base, source="127.0.0.2", times=limit + 2) == [400] * (limit - 1) + [429] * 3

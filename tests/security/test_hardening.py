"""Production hardening, checked as the deployment would meet it: the production settings imported in a fresh process
with the environment a deployment gives them, the compose file's published ports, and the Celery app's settings in
the production image's environment."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
BASE_ENV = {"PATH": os.environ.get("PATH", ""), "SECRET_KEY": "k" * 50, "ALLOWED_HOSTS": "assess.example.org"}

# Runs in the child: the settings' values, and what a request over the proxy (or straight to the port) gets.
PROBE = """
import json, django
from django.conf import settings
django.setup()
from django.test import Client
def ask(path, **headers):
    r = Client(HTTP_HOST="assess.example.org").get(path, **headers)
    return {"status": r.status_code, "location": r.get("Location"), "hsts": r.get("Strict-Transport-Security")}
print(json.dumps({
    "module": settings.SETTINGS_MODULE, "debug": settings.DEBUG,
    "redirect": settings.SECURE_SSL_REDIRECT, "hsts": settings.SECURE_HSTS_SECONDS,
    "proxy_header": settings.SECURE_PROXY_SSL_HEADER, "secure_cookies": settings.SESSION_COOKIE_SECURE,
    "plain": ask("/login/"), "forwarded_https": ask("/healthz/", HTTP_X_FORWARDED_PROTO="https"),
    "health": ask("/healthz/"),
}))
"""


@pytest.fixture(scope="module")
def static_root(tmp_path_factory) -> str:
    """Static files collected as the image collects them: production's storage serves hashed names from a manifest."""
    root = str(tmp_path_factory.mktemp("static"))
    env = {**BASE_ENV, "DJANGO_SETTINGS_MODULE": "config.settings.production", "STATIC_ROOT": root}
    done = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return root


def _production(tmp_path, static_root, **env) -> dict:
    full = {**BASE_ENV, "DJANGO_SETTINGS_MODULE": "config.settings.production", "DATA_DIR": str(tmp_path),
            "STATIC_ROOT": static_root, **env}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=full, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_production_redirects_to_https_and_sends_hsts(tmp_path, static_root):
    found = _production(tmp_path, static_root, BEHIND_PROXY="1")
    assert found["module"] == "config.settings.production" and found["debug"] is False
    assert found["redirect"] is True and found["hsts"] == 365 * 24 * 3600 and found["secure_cookies"] is True
    assert found["plain"]["status"] == 301
    assert found["plain"]["location"] == "https://assess.example.org/login/"
    assert found["forwarded_https"]["status"] == 200
    assert found["forwarded_https"]["hsts"] == "max-age=31536000"
    # the health check over plain HTTP from inside is not redirected
    assert found["health"]["status"] == 200


def test_forwarded_proto_is_believed_only_when_a_proxy_is_declared(tmp_path, static_root):
    found = _production(tmp_path, static_root)
    assert found["proxy_header"] is None
    # the header sent straight to the port does not make the request secure: no HSTS, and pages still redirect
    assert found["forwarded_https"]["hsts"] is None
    declared = _production(tmp_path, static_root, BEHIND_PROXY="1")
    assert declared["proxy_header"] == ["HTTP_X_FORWARDED_PROTO", "https"]


def test_redirect_and_hsts_can_be_left_to_a_tls_proxy(tmp_path, static_root):
    found = _production(tmp_path, static_root, BEHIND_PROXY="1", SECURE_SSL_REDIRECT="false", SECURE_HSTS_SECONDS="0")
    assert found["redirect"] is False and found["hsts"] == 0
    assert found["plain"]["status"] == 200
    assert found["forwarded_https"]["hsts"] is None
    assert found["secure_cookies"] is True


def test_plain_http_trial_turns_off_redirect_and_hsts(tmp_path, static_root):
    found = _production(tmp_path, static_root, SECURE_COOKIES="false")
    assert found["redirect"] is False and found["hsts"] == 0 and found["secure_cookies"] is False
    assert found["plain"]["status"] == 200


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_publishes_the_app_on_the_loopback_only(compose):
    services = compose["services"]
    ports = services["web"].get("ports", [])
    assert ports, "web must be reachable by a proxy on the host"
    assert all(str(port).startswith("127.0.0.1:") for port in ports), ports
    for name in ("worker", "postgres", "redis"):
        assert not services[name].get("ports"), f"{name} publishes a port"
    assert services["web"]["environment"]["BEHIND_PROXY"].endswith(":-1}")


def _image_env() -> dict[str, str]:
    """The ENV lines of the Dockerfile's last stage (the image web and worker run)."""
    stage = (ROOT / "Dockerfile").read_text().rsplit("\nFROM ", 1)[1]
    env = {}
    for line in stage.splitlines():
        if line.startswith("ENV "):
            env.update(pair.split("=", 1) for pair in line[4:].split())
    return env


CELERY_PROBE = ("import json, os; from config.celery_app import app; from django.conf import settings; "
                "print(json.dumps([os.environ['DJANGO_SETTINGS_MODULE'], settings.DEBUG, "
                "app.conf.task_serializer]))")


def _celery(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CELERY_PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def test_celery_app_in_the_production_image_uses_production_settings(tmp_path):
    image = _image_env()
    assert image["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    done = _celery({**BASE_ENV, **image, "DATA_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == ["config.settings.production", False, "json"]


def test_celery_app_without_a_settings_module_never_falls_back_to_development(tmp_path):
    done = _celery({**BASE_ENV, "DATA_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1])[:2] == ["config.settings.production", False]
    # and without a SECRET_KEY it refuses to start, rather than run with the development key
    done = _celery({"PATH": BASE_ENV["PATH"], "DATA_DIR": str(tmp_path)})
    assert done.returncode != 0 and "SECRET_KEY must be set" in done.stderr

"""The deployment: docker-compose names the four services, and their commands run here as they would there."""
import importlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_the_four_services(compose):
    assert set(compose["services"]) == {"postgres", "redis", "web", "worker"}
    assert compose["services"]["postgres"]["volumes"] == ["pgdata:/var/lib/postgresql/data"]


def test_web_and_worker_share_one_image_and_the_upload_volume(compose):
    web, worker = compose["services"]["web"], compose["services"]["worker"]
    assert web["image"] == worker["image"] and web["build"] == worker["build"] == "."
    assert "media:/data/media" in web["volumes"] and "media:/data/media" in worker["volumes"]
    assert web["environment"]["REDIS_URL"] == worker["environment"]["REDIS_URL"]


def test_the_commands_of_the_services_exist_in_the_project(compose):
    web = " ".join(compose["services"]["web"]["command"])
    worker = compose["services"]["worker"]["command"]
    assert "manage.py migrate" in web and "gunicorn config.wsgi:application" in web
    assert importlib.import_module("config.wsgi").application is not None
    assert worker[:3] == ["celery", "-A", "config"]
    assert importlib.import_module("config").celery_app.main == "assess"
    assert (ROOT / "Dockerfile").read_text().count("config.wsgi:application") == 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.postgresql
@pytest.mark.django_db
def test_gunicorn_serves_the_login_page_with_production_settings(tmp_path):
    s = connection.settings_dict
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings.production", SECRET_KEY="x" * 50,
               ALLOWED_HOSTS="127.0.0.1", SECURE_COOKIES="false", STATIC_ROOT=str(tmp_path / "static"),
               DATABASE_URL=f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}")
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind",
                               f"127.0.0.1:{port}", "--workers", "2"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        page = None
        deadline = time.monotonic() + 30
        while page is None and time.monotonic() < deadline:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=5).read().decode()
            except OSError:
                assert server.poll() is None, server.stderr.read().decode()
                time.sleep(0.2)
        assert page is not None and "Log in" in page
        css = urllib.request.urlopen(f"http://127.0.0.1:{port}/static/pooling/css/site.css", timeout=5)
        assert css.status == 200
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/campaigns/", timeout=5)
        assert info.value.code in (401, 403)
    finally:
        server.terminate()
        server.wait(timeout=20)

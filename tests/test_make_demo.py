"""`make demo PORT=8001` (or PORT in the environment) serves the demo on another port and says so."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _demo_commands(*args, env=None) -> str:
    # -n: the commands make would run, none of them run.
    return subprocess.run(["make", "-n", "demo", *args], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})}).stdout


def test_make_demo_serves_on_the_port_given():
    for commands in (_demo_commands("PORT=8001"), _demo_commands(env={"PORT": "8001"})):
        assert "manage.py load_demo --port 8001" in commands
        assert "manage.py runserver 127.0.0.1:8001" in commands


def test_make_demo_serves_on_8000_by_default():
    env = {k: v for k, v in os.environ.items() if k != "PORT"}
    commands = subprocess.run(["make", "-n", "demo"], cwd=ROOT, capture_output=True, text=True, check=True,
                              env=env).stdout
    assert "manage.py runserver 127.0.0.1:8000" in commands


def test_make_demo_installs_the_runtime_requirements_only(tmp_path):
    # A fresh machine (no venv yet): the demo installs what the service runs on, not the suite's tools.
    commands = _demo_commands(f"VENV={tmp_path / 'venv'}")
    assert "pip install --quiet -r requirements.txt" in commands
    assert "requirements-dev.txt" not in commands
    test_commands = subprocess.run(["make", "-n", "test", f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True,
                                   text=True, check=True).stdout
    assert "-r requirements-dev.txt" in test_commands

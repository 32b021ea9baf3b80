"""A command's output is the command-line contract's (SPEC): nothing that a library says at start-up."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_command_prints_no_login_throttle_banner():
    # The development settings, where the login throttle (django-axes) is on, as `make demo` runs commands.
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "AXES_ENABLED": "1"}
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=environment, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "System check identified no issues (0 silenced)."
    assert "AXES" not in done.stdout + done.stderr

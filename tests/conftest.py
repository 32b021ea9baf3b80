"""Suite-wide fixtures, and the switch that skips (or, with REQUIRE_SERVICES=1, fails) without real services."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from tests.factories import UserFactory

DATA = Path(__file__).resolve().parent / "data"
# Real ARQMath files cut to what the tests need (CC BY-SA 4.0, ARQMath lab / Math Stack Exchange; README.md there).
ARQMATH = DATA / "arqmath"
CHROMIUM = "/usr/bin/chromium"
# The judging fixtures (hand-made campaigns and assessors) serve the assessor tests and the browser tests.
pytest_plugins = ["tests.judging.fixtures"]


def _available() -> dict[str, bool]:
    services = {"postgresql": False, "redis": False}
    if settings.configured:
        services.update(getattr(settings, "SERVICES", {}))
    services["browser"] = Path(CHROMIUM).exists()
    return services


def pytest_report_header(config):
    found = _available()
    return "services: " + ", ".join(f"{name} {'yes' if ok else 'NO'}" for name, ok in found.items())


def pytest_sessionstart(session):
    missing = [name for name, ok in _available().items() if not ok]
    if missing and os.environ.get("REQUIRE_SERVICES") == "1":
        pytest.exit(f"REQUIRE_SERVICES=1 but these are not available: {', '.join(missing)}", returncode=3)


def pytest_collection_modifyitems(config, items):
    found = _available()
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):  # Chromium's tests are browser tests, marked or not
            item.add_marker(pytest.mark.browser)
        for name in ("postgresql", "redis", "browser"):
            if item.get_closest_marker(name) and not found[name]:
                item.add_marker(pytest.mark.skip(reason=f"SKIPPED: no {name} on this machine"))


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter):
    missing = [name for name, ok in _available().items() if not ok]
    skipped = terminalreporter.stats.get("skipped", [])
    if missing or skipped:
        what = f"no {', '.join(missing)}; " if missing else ""
        terminalreporter.write_sep(
            "!", f"NOT TESTED here, {what}{len(skipped)} tests skipped, each reason below", red=True, bold=True)
        reasons: dict[str, int] = {}
        for report in skipped:
            reason = _skip_reason(report)
            reasons[reason] = reasons.get(reason, 0) + 1
        for reason, count in sorted(reasons.items()):
            terminalreporter.write_line(f"  {count} skipped: {reason}", red=True)
    if skipped and os.environ.get("REQUIRE_SERVICES") == "1":
        terminalreporter.write_sep("!", f"{len(skipped)} tests skipped under REQUIRE_SERVICES=1", red=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("REQUIRE_SERVICES") == "1" and session.config.pluginmanager.get_plugin("terminalreporter"):
        skipped = session.config.pluginmanager.get_plugin("terminalreporter").stats.get("skipped", [])
        if skipped and exitstatus == 0:
            session.exitstatus = 1


@pytest.fixture
def arqmath_data() -> Path:
    """The real ARQMath files kept in the repository (tests/data/arqmath): always there, never skipped."""
    return ARQMATH


@pytest.fixture
def organizer(db):
    return UserFactory(username="olga", password="organizer-pass-1", organizer=True)


@pytest.fixture
def assessor_user(db):
    return UserFactory(username="ada", password="assessor-pass-1")


@pytest.fixture
def jobs_run_on_commit(monkeypatch):
    """Tests run inside a transaction that never commits: run each enqueued job at once, as a commit would."""
    monkeypatch.setattr("jobs.runner.transaction.on_commit", lambda callback, *args, **kwargs: callback())


@pytest.fixture
def copy_of(tmp_path):
    """Copies a file into tmp_path, optionally transformed (bytes -> bytes)."""

    def make(source: Path, name: str | None = None, transform=None) -> Path:
        target = tmp_path / (name or source.name)
        if transform is None:
            shutil.copyfile(source, target)
        else:
            target.write_bytes(transform(source.read_bytes()))
        return target

    return make

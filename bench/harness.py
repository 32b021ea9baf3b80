"""What the benchmark scripts share: Django on a PostgreSQL database of their own (created and migrated), the
production settings and gunicorn for the served benchmarks, timed rounds with their medians and percentiles, the
machine's facts and load, and the report (Markdown tables on stdout, a JSON copy under bench/out/).

Importing it imports neither Django nor the product: bench/analysis.py runs in a virtualenv without them.
"""
from __future__ import annotations

import argparse
import atexit
import json
import math
import os
import platform
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench"
# Databases a benchmark must never write to: the service's own and the test suite's.
NOT_OURS = {"assess", "test_assess"}


def note(message: str) -> None:
    """Progress goes to stderr, so that stdout holds only the results."""
    print(message, file=sys.stderr, flush=True)


def load() -> str:
    """Load averages (1, 5, 15 min): something else busy on the machine shows here."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


class Parser(argparse.ArgumentParser):
    """A script's arguments: --out, and counts (each at least 1, and at most `most` when given), described by the
    first line of the script's docstring."""

    def __init__(self, doc: str) -> None:
        super().__init__(description=doc.splitlines()[0])
        self.limits: dict[str, int | None] = {}
        self.add_argument("--out", type=Path, default=OUT, help="where inputs are generated and results written")

    def count(self, name: str, default: int, text: str, *, most: int | None = None) -> None:
        self.limits[name] = most
        self.add_argument(f"--{name}", type=int, default=default, help=f"{text} (default {default:,})")

    def parse(self, argv: Sequence[str]) -> argparse.Namespace:
        args = self.parse_args(argv)
        for name, most in self.limits.items():
            value = getattr(args, name.replace("-", "_"))
            if value < 1 or (most is not None and value > most):
                self.error(f"--{name} must be 1-{most}" if most else f"--{name} must be at least 1")
        return args


# --- the database -------------------------------------------------------------------------------

def database_url(default: str, script: str) -> str:
    """DATABASE_URL (or the script's default), checked: PostgreSQL, and not the service's or the tests' database.
    Set in the environment, for Django and for any server the script starts."""
    url = os.environ.setdefault("DATABASE_URL", default)
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit(f"{script} measures the product on PostgreSQL: set DATABASE_URL to a postgres:// URL")
    if urlsplit(url).path.lstrip("/") in NOT_OURS:
        sys.exit(f"{script} writes to its database: point DATABASE_URL at a database of its own")
    return url


def setup_django(settings: str = "config.settings.local") -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", settings)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def server_database(url: str, *, create: bool = True, drop: bool = False) -> None:
    """Drops (closing its connections) and/or creates the database `url` names, through the server's own database."""
    import psycopg2
    from psycopg2 import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    server = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username,
                              password=parts.password, dbname="postgres")
    server.autocommit = True  # CREATE and DROP DATABASE refuse to run inside a transaction
    try:
        with server.cursor() as cursor:
            if drop:
                cursor.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            if create and cursor.fetchone() is None:
                cursor.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    finally:
        server.close()


def ensure_database(*, only_ours: Callable[[], bool] = lambda: False) -> None:
    """Creates the database of DATABASE_URL if missing, then applies the migrations (Django set up).

    A database migrated under an older, since rewritten migration history (migrations applied that are no longer
    on disk) keeps its old tables whatever `migrate` says: it is made again from scratch when `only_ours()` says it
    holds only what the benchmark creates, and refused otherwise."""
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    server_database(os.environ["DATABASE_URL"])
    loader = MigrationLoader(connection)
    stale = sorted(set(loader.applied_migrations) - set(loader.disk_migrations))
    if stale:
        names = ", ".join(f"{app}.{migration}" for app, migration in stale)
        if not only_ours():
            sys.exit(f"{connection.settings_dict['NAME']} has migrations applied that are no longer on disk ({names}) "
                     "and holds more than this benchmark's data: point DATABASE_URL at another database")
        note(f"recreating {connection.settings_dict['NAME']}: its migration history was rewritten ({names})")
        connection.close()
        server_database(os.environ["DATABASE_URL"], drop=True)
    call_command("migrate", interactive=False, verbosity=0)


def database_of_our_own(script: str, only_ours: Callable[[], bool], does: str) -> None:
    """`ensure_database`, then refuse a database that holds more than the benchmark's own campaigns (`only_ours`):
    the script `does` something to them (deletes, builds) that no one else's data should meet."""
    ensure_database(only_ours=only_ours)
    if not only_ours():
        sys.exit(f"{script} {does}, and this database holds other campaigns: point DATABASE_URL at a database of its "
                 "own")


def only_campaign(name: str) -> bool:
    """Whether the database holds no campaign but `name` (or no tables yet): a benchmark that deletes or builds
    that campaign's data refuses any other database."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('pooling_campaign') IS NULL")
        if cursor.fetchone()[0]:
            return True
        cursor.execute("SELECT count(*) FROM pooling_campaign WHERE name <> %s", [name])
        return cursor.fetchone()[0] == 0


def production_environment(*, redis_url: str = "") -> dict[str, str]:
    """Production settings for this process and a gunicorn it starts, served over plain http on 127.0.0.1; static
    files collected into a temporary folder (collect_static), served by WhiteNoise under their hashed names."""
    static_root = tempfile.mkdtemp(prefix="bench-static-")
    atexit.register(shutil.rmtree, static_root, ignore_errors=True)
    return {"DJANGO_SETTINGS_MODULE": "config.settings.production", "DATABASE_URL": os.environ["DATABASE_URL"],
            "REDIS_URL": redis_url, "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_COOKIES": "false", "STATIC_ROOT": static_root}


def collect_static() -> None:
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)


# --- gunicorn -----------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(env: dict[str, str], *, workers: int, threads: int, log: Path) -> tuple[subprocess.Popen, int]:
    """gunicorn (sync workers, or gthread with threads > 1) on a free loopback port, once /healthz/ answers."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
               "--workers", str(workers), "--worker-class", "gthread" if threads > 1 else "sync",
               "--threads", str(threads), "--timeout", "120",
               "--no-control-socket"]  # the default socket path in $HOME is shared with any other gunicorn
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as sink:
        server = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdout=sink, stderr=sink)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"gunicorn stopped at start-up (exit {server.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz/", timeout=5):
                return server, port
        except OSError:
            time.sleep(0.2)
    server.terminate()
    sys.exit(f"gunicorn did not answer /healthz/ within 60 s; see {log}")


def stop(server: subprocess.Popen | None) -> None:
    if server is not None:
        server.terminate()
        server.wait(timeout=30)


# --- facts --------------------------------------------------------------------------------------

def code_version(*paths: str) -> str:
    """The last commit that changed `paths` (the code the figures measure), marked when the working tree differs
    from it: figures go with a version, and a later docs-only commit does not change them."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("log", "-1", "--format=%h", "--", *paths) or "unknown"
    return commit + (" + uncommitted changes" if git("status", "--porcelain", *paths) else "")


def machine_facts(*settings: str, code: Sequence[str] = ("pooling", "assessor", "evaluation", "config")) -> dict:
    """Cores, Python, Django, the code's version, the load now, and PostgreSQL's version and `settings`."""
    import django
    from django.db import connection

    names = ["server_version", *settings]
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join("current_setting(%s)" for _ in names), names)
        values = cursor.fetchone()
    return {"cores": str(os.cpu_count()), "python": platform.python_version(), "django": django.get_version(),
            "code": code_version(*code), "load_before": load(), "postgresql": values[0],
            **dict(zip(settings, values[1:], strict=True))}


# --- rounds -------------------------------------------------------------------------------------

def log_in(page: Any, base: str, username: str, password: str) -> None:
    """Logs a Playwright page in through the login form, or exits."""
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("button:has-text('Log in')")
    if "/login/" in page.url:
        sys.exit(f"could not log in as {username}")


def timed(call: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds of this process, the result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = call(*args, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu, result


def rounds(count: int, call: Callable[[], Any], *, warmup: int = 0) -> tuple[list[float], Any]:
    """Wall seconds of `count` calls after `warmup` untimed ones, and the last call's result."""
    result = None
    for _ in range(warmup):
        result = call()
    seconds = []
    for _ in range(count):
        took, _cpu, result = timed(call)
        seconds.append(took)
    return seconds, result


class PhaseTimer:
    """Where a call spends its time: wall seconds inside the functions wrapped, by label (put back by restore()).
    A function wrapped with iterator=True returns an iterator whose every next() is timed too (a query's rows
    arriving as they are read). A function the product renamed or removed stops the benchmark with its name, so
    that a phase is never silently counted in the rest."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._wrapped: list[tuple[object, str, object]] = []

    def wrap(self, owner: object, attribute: str, label: str, *, iterator: bool = False) -> None:
        original = getattr(owner, attribute, None)
        if not callable(original):
            where = getattr(owner, "__name__", type(owner).__name__)
            raise SystemExit(f"bench: {where}.{attribute} is gone (renamed?): the phase '{label}' cannot be timed; "
                             "update the benchmark's PhaseTimer.wrap calls")
        self._wrapped.append((owner, attribute, original))

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                result = original(*args, **kwargs)
            finally:
                self.seconds[label] += time.perf_counter() - start
            return self._timed_rows(result, label) if iterator else result

        setattr(owner, attribute, timed)

    def _timed_rows(self, rows: Any, label: str) -> Iterator[Any]:
        rows = iter(rows)
        while True:
            start = time.perf_counter()
            try:
                row = next(rows)
            except StopIteration:
                return
            finally:
                self.seconds[label] += time.perf_counter() - start
            yield row

    def restore(self) -> None:
        for owner, attribute, original in reversed(self._wrapped):
            setattr(owner, attribute, original)
        self._wrapped.clear()


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p50 of [1, 2, 3, 4] is 2); NaN when there are no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def spread(values: Sequence[float], scale: float = 1.0) -> dict[str, float]:
    """Count, median, p95, p99, min and max of `values`, times `scale` (1000: seconds to milliseconds)."""
    if not values:
        return {"count": 0, **dict.fromkeys(("median", "p50", "p95", "p99", "min", "max"), float("nan"))}
    return {"count": len(values), "median": scale * statistics.median(values), "p50": scale * percentile(values, 50),
            "p95": scale * percentile(values, 95), "p99": scale * percentile(values, 99), "min": scale * min(values),
            "max": scale * max(values)}


# --- the report ---------------------------------------------------------------------------------

def table(header: Sequence[str], rows: Sequence[Sequence[object]], *, left: int = 1) -> str:
    """A Markdown table (what docs/benchmarks.md holds): the first `left` columns left-aligned, the others right."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if n < left else "---:" for n in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def save(name: str, figures: dict, out: Path = OUT) -> Path:
    """The figures as JSON in out/<name>-<date-time>.json: one file per call, so that repeated runs are all kept."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(figures, indent=2, default=str), encoding="utf-8")
    note(f"figures in {path}")
    return path

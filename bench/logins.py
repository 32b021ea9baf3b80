"""Logins benchmark: N assessors signing in at the same moment (a training session's start), PBKDF2 then Argon2.

Starts gunicorn (production settings, compose's 4 workers x 4 threads, --no-control-socket) on PostgreSQL three times,
with the password hashers of each phase, and in each round lets N client threads, one benchmark account each, GET the
login page and then, all together (a barrier), POST its name and password (302 expected). Latency of the POSTs:
p50, p95, max, and the wall time until the last one is in.

- before: Django's PBKDF2 (1,000,000 iterations in Django 5.2) first, as the product hashed until issue 22.13;
- upgrade: the product's hashers (Argon2 first) meeting PBKDF2 hashes: each login verifies the PBKDF2 hash and
  stores an Argon2 one (the first login of each account after the switch); checked: every hash is Argon2 after it;
- after: the product's hashers on Argon2 hashes, from then on.

Prints the ratio before / after of p50 and p95. Results land in docs/benchmarks.md ("Logins").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_logins .venv/bin/python bench/logins.py
    DATABASE_URL=... .venv/bin/python bench/logins.py --assessors 4 --rounds 1   # quick check
"""
from __future__ import annotations

import http.client
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import harness
from harness import note

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_logins"
USERNAME = "benchlogin{:02d}"
PASSWORD = "bench-logins-not-secret"
PBKDF2_FIRST = ["django.contrib.auth.hashers.PBKDF2PasswordHasher",
                "people.hashers.Argon2Hasher"]
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def settings_module(folder: Path, hashers: list[str] | None) -> str:
    """A settings module for one phase's gunicorn: production's, with `hashers` first when given."""
    name = "bench_logins_settings_" + ("product" if hashers is None else "pbkdf2")
    lines = ["from config.settings.production import *  # noqa: F403"]
    if hashers is not None:
        lines.append(f"PASSWORD_HASHERS = {hashers!r}")
    (folder / f"{name}.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return name


def set_hashes(names: list[str], algorithm: str) -> None:
    """Every benchmark account gets a fresh hash of PASSWORD made with `algorithm` (its own salt)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    model = get_user_model()
    for name in names:
        account, _ = model.objects.get_or_create(username=name)
        account.password = make_password(PASSWORD, hasher=algorithm)
        account.save(update_fields=["password"])


def hash_algorithms(names: list[str]) -> set[str]:
    from django.contrib.auth import get_user_model

    return {password.split("$", 1)[0] for password in
            get_user_model().objects.filter(username__in=names).values_list("password", flat=True)}


def login_round(port: int, names: list[str]) -> tuple[list[float], float]:
    """Each account's login POST, all sent together; (each POST's seconds, seconds until the last answered)."""
    ready = threading.Barrier(len(names) + 1)
    seconds: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def sign_in(name: str) -> None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            connection.request("GET", "/login/")
            page = connection.getresponse()
            body = page.read().decode()
            connection.close()
            cookies = "; ".join(h.split(";", 1)[0] for k, h in page.getheaders() if k.lower() == "set-cookie")
            token = CSRF_FIELD.search(body)
            form = urlencode({"username": name, "password": PASSWORD, "csrfmiddlewaretoken": token[1] if token else ""})
        finally:
            ready.wait()
        # A connection of its own, opened at the start: a kept-alive one may be closed while the others load the page.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        try:
            start = time.perf_counter()
            connection.request("POST", "/login/", body=form, headers={
                "Content-Type": "application/x-www-form-urlencoded", "Cookie": cookies})
            answer = connection.getresponse()
            answer.read()
            took = time.perf_counter() - start
            with lock:
                (seconds.append(took) if answer.status == 302 else failures.append(f"{name}: {answer.status}"))
        except OSError as error:
            with lock:
                failures.append(f"{name}: {error}")
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_in, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    ready.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    if failures:
        sys.exit("logins refused: " + ", ".join(failures))
    return seconds, wall


def phase(label: str, env: dict[str, str], module: str, *, names: list[str], algorithm: str, rounds: int,
          workers: int, threads: int) -> dict:
    server = None
    try:
        server, port = harness.start_gunicorn({**env, "DJANGO_SETTINGS_MODULE": module}, workers=workers,
                                              threads=threads, log=harness.OUT / f"logins-{label}-gunicorn.log")
        latencies: list[float] = []
        walls: list[float] = []
        for n in range(rounds):
            set_hashes(names, algorithm)  # the upgrade phase rehashes them: every round starts from `algorithm`
            note(f"{label}: round {n + 1} of {rounds}, {len(names)} logins at once (load {harness.load()})")
            seconds, wall = login_round(port, names)
            latencies += seconds
            walls.append(wall)
        stored = hash_algorithms(names)
    finally:
        harness.stop(server)
    return {"phase": label, "stored_after": sorted(stored), **harness.spread(latencies, 1000),
            "wall_median": harness.statistics.median(walls)}


def main(argv: list[str]) -> None:
    parser = harness.Parser(__doc__)
    parser.count("assessors", 32, "accounts signing in at once", most=200)
    parser.count("rounds", 3, "rounds per phase")
    parser.count("workers", 4, "gunicorn workers (as docker-compose.yml)")
    parser.count("threads", 4, "threads per gunicorn worker (as docker-compose.yml)")
    args = parser.parse(argv)

    harness.database_url(DEFAULT_DATABASE_URL, "bench/logins.py")
    folder = Path(tempfile.mkdtemp(prefix="bench-logins-"))
    env = harness.production_environment()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), str(harness.ROOT), os.environ.get("PYTHONPATH")]))
    os.environ.update({k: v for k, v in env.items() if k != "DJANGO_SETTINGS_MODULE"})
    harness.setup_django("config.settings.production")
    from django.contrib.auth import get_user_model

    harness.ensure_database(only_ours=lambda: not get_user_model().objects.exclude(
        username__startswith="benchlogin").exists())
    harness.collect_static()
    names = [USERNAME.format(n) for n in range(args.assessors)]
    facts = harness.machine_facts(code=("config", "people", "requirements.txt"))
    facts["gunicorn"] = f"{args.workers} workers x {args.threads} threads"
    common = {"names": names, "rounds": args.rounds, "workers": args.workers, "threads": args.threads}
    results = [
        phase("before", env, settings_module(folder, PBKDF2_FIRST), algorithm="pbkdf2_sha256", **common),
        phase("upgrade", env, settings_module(folder, None), algorithm="pbkdf2_sha256", **common),
        phase("after", env, settings_module(folder, None), algorithm="argon2", **common),
    ]
    facts["load_after"] = harness.load()
    if results[1]["stored_after"] != ["argon2"]:
        sys.exit(f"the upgrade phase left hashes {results[1]['stored_after']}, not Argon2 only")

    print(f"code {facts['code']}; {facts['cores']} cores; PostgreSQL {facts['postgresql']}; gunicorn "
          f"{facts['gunicorn']}; {args.assessors} logins at once, {args.rounds} rounds per phase; "
          f"load {facts['load_before']} before, {facts['load_after']} after\n")
    print(harness.table(["phase", "hashes stored after", "p50 ms", "p95 ms", "max ms", "last login in (s)"], [
        [r["phase"], ", ".join(r["stored_after"]), f"{r['p50']:,.0f}", f"{r['p95']:,.0f}", f"{r['max']:,.0f}",
         f"{r['wall_median']:.2f}"] for r in results]))
    before, after = results[0], results[2]
    print(f"\nbefore / after: p50 {before['p50'] / after['p50']:.1f}x, p95 {before['p95'] / after['p95']:.1f}x, "
          f"last login {before['wall_median'] / after['wall_median']:.1f}x")
    harness.save("logins", {"facts": facts, "results": results})


if __name__ == "__main__":
    main(sys.argv[1:])

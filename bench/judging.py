"""Judging benchmark: N simulated assessors judging through gunicorn (production settings) on PostgreSQL.

Starts gunicorn on a free port, logs in up to 32 benchmark assessors through the login form and, for each N in
--levels (1, 8, 16, 32), gives N of them the free topics of the demo's Task 1 campaign, then runs for --seconds (after
--warmup) the judging loop from N client threads, one assessor each, as a browser does it: GET the judging page
(200), POST a grade (302 straight to the next unjudged item's page, which the next loop GETs); an assignment starts
with its continue URL (302 to its next unjudged item). Latency p50/p95/p99 per request kind (continue, page, POST);
the goal (issue 15): p95 of the page and the POST under 100 ms at 16 assessors.

The product sanitizes a topic's collection HTML into the cache when the topic is assigned (a background job:
assessor.services.judging_cache_warm). Each level clears the cache (its Redis database) and then assigns, and the
assignments run that job here, in this process, as the product does with no Redis: the pages find their fragments
ready, as in normal use. With --cold the cache is cleared again after the assignments, so that every page sanitizes
its new answer on the request path.

Checks that must hold whatever the speed: after each level the database holds exactly one judgment, one revision and
one completed visit per POST that got a redirect (0 lost, 0 duplicated); after the levels, the same POST sent twice,
in a row and at the same moment, for some items, keeps one judgment each. Last, an in-process check
(django.test.Client) counts the SQL queries of each request kind, times it server-side and measures the CPU it
costs Django and its PostgreSQL backend (less bent by the machine's load than a time). Client, gunicorn and
PostgreSQL CPU are measured per level from /proc, since all three share the machine. Results land in
docs/benchmarks.md ("Judging").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_judging .venv/bin/python bench/judging.py
    DATABASE_URL=... .venv/bin/python bench/judging.py --levels 2 --seconds 2 --warmup 1   # quick check
"""
from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import harness
from harness import note

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_judging"
# A Redis database of its own: production caches sanitized HTML there, and it is cleared before each level so
# that every level starts from the same state (then warmed by the assignments' job, unless --cold).
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/13"
DEMO_CAMPAIGN = "ARQMath-3 Task 1 demo"
USERNAME = "benchjudge{:02d}"
PASSWORD = "bench-judging-not-secret"
MAX_ASSESSORS = 32
GOAL_P95_MS, GOAL_LEVEL = 100.0, 16     # issue 15: p95 of the page and the POST under 100 ms at 16 assessors
KINDS = ("next", "page", "post")
IN_PROCESS_LOOPS = 60
NOISE_CORES = 0.2  # "other" CPU above this during the judging: something else competed for the machine
CSRF_FIELD = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')
GRADES = ["3", "2", "1", "0", "0", "0", "DK"]


def parse_args(argv: list[str]) -> argparse.Namespace:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 8, 16, 32],
                        help=f"numbers of concurrent assessors, 1-{MAX_ASSESSORS} (default 1 8 16 32)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per level (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds before each (default 2)")
    parser.add_argument("--workers", type=int, default=2 * cores + 1,
                        help=f"gunicorn workers (default 2 x cores + 1 = {2 * cores + 1})")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per worker: 1 runs the sync worker class, more the gthread one (default 1)")
    parser.add_argument("--double-submits", type=int, default=40,
                        help="items submitted twice in the double-submit check, half in a row, half at once")
    parser.add_argument("--think", type=float, default=0.0, metavar="SECONDS",
                        help="each assessor reads a page 0.5-1.5 x SECONDS before its POST (default 0: no think "
                             "time, the closed loop of issue 15's goal; real assessors take 40-80 s)")
    parser.add_argument("--cold", action="store_true",
                        help="clear the cache after the assignments' warm-up job: every page sanitizes its answer")
    parser.add_argument("--profile", action="store_true",
                        help="also cProfile the in-process judging pages and print the top functions")
    args = parser.parse_args(argv)
    if not all(1 <= n <= MAX_ASSESSORS for n in args.levels):
        parser.error(f"--levels must be 1-{MAX_ASSESSORS}")
    if args.seconds <= 0 or args.warmup < 0 or args.workers < 1 or args.threads < 1 or args.double_submits < 2:
        parser.error("--seconds > 0, --warmup >= 0, --workers and --threads >= 1, --double-submits >= 2")
    return args


# --- set-up ------------------------------------------------------------------------------------

def demo_campaign():
    """The demo's Task 1 campaign, loaded first (once) when missing."""
    from pooling.models import Campaign
    from workflow.demo import demo_load

    campaign = Campaign.objects.filter(name=DEMO_CAMPAIGN).first()
    if campaign is None:
        note("loading the demo (once)")
        out = harness.OUT / "judging-demo"
        demo_load(out_dir=out, passwords_file=out / "demo-passwords.txt")
        campaign = Campaign.objects.get(name=DEMO_CAMPAIGN)
    return campaign


def bench_users(count: int) -> list:
    """The benchmark's assessors benchjudge01.., created with a known password when missing."""
    from django.contrib.auth import get_user_model

    users = []
    for n in range(1, count + 1):
        user, created = get_user_model().objects.get_or_create(username=USERNAME.format(n))
        if created:
            user.set_password(PASSWORD)
            user.save()
        users.append(user)
    return users


def free_topics(campaign, users: list) -> list:
    """The campaign's topics that nobody but the benchmark's assessors is assigned, in topic-file order."""
    from judging.models import Assignment

    taken = (Assignment.objects.filter(campaign=campaign, withdrawn_at__isnull=True)
             .exclude(assessor__in=users).values("topic"))
    return list(campaign.topics.exclude(pk__in=taken).order_by("position"))


def reset_and_assign(campaign, users: list, topics: list) -> dict[int, list[int]]:
    """Deletes every judgment, visit and assignment of the benchmark's assessors, then deals the topics out to
    `users` in turn (official assignments), which runs the assignments' cache warm-up job in this process. Returns
    user pk -> assignment pks in topic order."""
    from django.contrib.auth import get_user_model

    from judging import services
    from judging.models import Assignment, ItemVisit, Judgment, JudgmentRevision

    everyone = get_user_model().objects.filter(username__startswith=USERNAME.split("{")[0])
    JudgmentRevision.objects.filter(judgment__assignment__assessor__in=everyone).delete()
    Judgment.objects.filter(assignment__assessor__in=everyone).delete()
    ItemVisit.objects.filter(assignment__assessor__in=everyone).delete()
    Assignment.objects.filter(assessor__in=everyone).delete()
    for n, user in enumerate(users):
        services.assignments_create(campaign=campaign, assessors=[user],
                                    topic_ids=[t.topic_id for t in topics[n::len(users)]], kind="official")
    return {user.pk: list(Assignment.objects.filter(assessor=user).order_by("topic__position")
                          .values_list("pk", flat=True)) for user in users}


def judged_counts(users: list) -> dict[str, int]:
    from judging.models import ItemVisit, Judgment, JudgmentRevision

    return {"judgments": Judgment.objects.filter(assignment__assessor__in=users).count(),
            "revisions": JudgmentRevision.objects.filter(judgment__assignment__assessor__in=users).count(),
            "completed_visits": ItemVisit.objects.filter(assignment__assessor__in=users,
                                                         completed_at__isnull=False).count()}


def clear_cache() -> None:
    from django.core.cache import cache

    cache.clear()


def run_jobs_here() -> None:
    """Celery tasks run in this process when they are sent (as the product runs them with no Redis): the
    assignments' cache warm-up job runs when reset_and_assign commits, with no worker needed."""
    import logging

    from config.celery_app import app

    app.conf.task_always_eager = True
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)  # not a line per job in the report


def assign_level(campaign, users: list, topics: list, *, cold: bool) -> tuple[dict[int, list[int]], dict]:
    """A clean cache, then the level's assignments with their warm-up job; cleared again if `cold`. Returns the
    assignments and what the warm-up did: its seconds (assignments included) and the fragments a second warm-up
    still finds missing (0: the job covered every page)."""
    from judging import services

    clear_cache()
    start = time.perf_counter()
    assignments = reset_and_assign(campaign, users, topics)
    seconds = time.perf_counter() - start
    left = services.judging_cache_warm(assignment_pks=[pk for pks in assignments.values() for pk in pks])
    if cold:
        clear_cache()
    return assignments, {"seconds": seconds, "left": left, "cold": cold}


# --- the client ---------------------------------------------------------------------------------

@dataclass
class Response:
    status: int
    location: str
    body: bytes
    start: float
    end: float


class Browser:
    """One HTTP/1.1 connection with its cookies: what a browser keeps between an assessor's requests."""

    def __init__(self, port: int, cookies: dict[str, str] | None = None):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.cookies = dict(cookies or {})

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> Response:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        while True:
            # A kept-alive connection the server has closed meanwhile (gthread's keep-alive timeout) fails before
            # any answer: like a browser, send the request again once on a new connection.
            reused = self.connection.sock is not None
            start = time.perf_counter()
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                if not reused:
                    raise
            except (OSError, http.client.HTTPException):
                self.connection.close()
                raise
        end = time.perf_counter()
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0":
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        return Response(response.status, response.getheader("Location", ""), data, start, end)


def login(port: int, username: str) -> Browser:
    browser = Browser(port)
    page = browser.request("GET", "/login/")
    token = CSRF_FIELD.search(page.body)
    if page.status != 200 or token is None:
        raise RuntimeError(f"GET /login/ gave {page.status} without a CSRF field")
    done = browser.request("POST", "/login/", {"username": username, "password": PASSWORD,
                                                "csrfmiddlewaretoken": token.group(1).decode()})
    if done.status != 302 or "sessionid" not in browser.cookies:
        raise RuntimeError(f"login of {username} failed ({done.status}): was the user created by another run "
                           "with another password?")
    return browser


def in_parallel(count: int, work: Callable[[int], object], meanwhile: Callable[[], None] | None = None) -> list:
    """Runs work(0..count-1) in threads, and meanwhile() in this one, and returns the results in order; the first
    exception is raised."""
    results: list = [None] * count
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            results[n] = work(n)
        except BaseException as exc:  # handed to the caller, raised there
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    if meanwhile is not None:
        meanwhile()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def continue_url(assignment_pk: int) -> str:
    return f"/assess/assignments/{assignment_pk}/"


class _JudgingForm(HTMLParser):
    """What a browser submits from the judging form: its hidden inputs (CSRF token, item id, ...) and its radio
    groups, read from the page rather than assumed."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.hidden: dict[str, str] = {}
        self.radios: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            self.inside = attributes.get("id") == "judge-form"
        elif tag == "input" and self.inside and attributes.get("name"):
            if attributes.get("type") == "hidden":
                self.hidden[attributes["name"]] = attributes.get("value") or ""
            elif attributes.get("type") == "radio":
                self.radios.add(attributes["name"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False


def grade_form(page: bytes, rng: random.Random) -> dict[str, str] | None:
    """The form a quick assessor submits from this judging page (answers: one grade), or None when the page has
    no such form."""
    parsed = _JudgingForm()
    parsed.feed(page.decode())
    if "grade" not in parsed.radios or "csrfmiddlewaretoken" not in parsed.hidden:
        return None
    grade = rng.choice(GRADES)
    return {**parsed.hidden, "grade": grade, "comment": "cannot decide from the thread" if grade == "DK" else "",
            "active_seconds": f"{rng.uniform(3, 60):.1f}"}


@dataclass
class Record:
    """What one client thread saw: (kind, start, end) of every answered request, counts of the rest."""
    requests: list[tuple[str, float, float]] = field(default_factory=list)
    loops: list[tuple[float, float, float]] = field(default_factory=list)  # (start, page end, POST end)
    posts_ok: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def assessor_loop(browser: Browser, assignments: list[int], stop: float, rng: random.Random,
                  think: float = 0.0) -> Record:
    """Judges items until `stop`, following the redirects as a browser does: the continue URL (302 to an item) when
    an assignment starts, the judging page, the POST, and then wherever the POST's 302 points: the next item's
    page, or a continue URL (the server up to 59ac487 answered every POST so). Moves on when an assignment is done.
    With `think`, reads each page for 0.5 to 1.5 times that many seconds before the POST (an assessor's pace)."""
    record = Record()
    queue = list(assignments)
    url = continue_url(queue.pop(0))
    while time.perf_counter() < stop:
        start = None
        if "/items/" not in url:  # a continue URL
            nxt = browser.request("GET", url)
            record.requests.append(("next", nxt.start, nxt.end))
            if nxt.status != 302:
                record.error(f"next {nxt.status}")
                break
            if "/items/" not in nxt.location:  # every item judged: the start page
                if not queue:
                    break
                url = continue_url(queue.pop(0))
                continue
            url, start = nxt.location, nxt.start
        page = browser.request("GET", url)
        record.requests.append(("page", page.start, page.end))
        form = grade_form(page.body, rng) if page.status == 200 else None
        if form is None:
            record.error(f"page {page.status}" + (" without a grade form" if page.status == 200 else ""))
            break
        if think:
            time.sleep(think * rng.uniform(0.5, 1.5))
        post = browser.request("POST", url, form)
        record.requests.append(("post", post.start, post.end))
        if post.status != 302 or not (post.location.startswith("/assess/assignments/")
                                      or post.location == "/assess/"):
            record.error(f"post {post.status}")
            break
        record.posts_ok += 1
        record.loops.append((page.start if start is None else start, page.end, post.end))
        url = post.location
        if url == "/assess/":  # the assignment is done: its last POST went to the start page
            if not queue:
                break
            url = continue_url(queue.pop(0))
    return record


# --- CPU accounting -----------------------------------------------------------------------------

TICKS = os.sysconf("SC_CLK_TCK")


def _process_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _database_backends() -> list[int]:
    """PostgreSQL backends connected to the benchmark database (gunicorn's), not this process's own."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()")
        return [row[0] for row in cursor.fetchall()]


def _machine_busy() -> float:
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / TICKS  # all but idle and iowait


def cpu_snapshot(server_pid: int) -> dict[str, dict | float]:
    backends = _database_backends()
    return {"client": time.process_time(),
            "gunicorn": {pid: _process_cpu(pid) for pid in [server_pid, *_children(server_pid)]},
            "postgres": {pid: _process_cpu(pid) for pid in backends},
            "machine": _machine_busy(), "at": time.perf_counter()}


def cpu_used(before: dict, after: dict) -> dict[str, float]:
    """Cores busy on average between two snapshots, by who used them."""
    seconds = after["at"] - before["at"]
    used = {"client": after["client"] - before["client"], "machine": after["machine"] - before["machine"]}
    for who in ("gunicorn", "postgres"):
        used[who] = sum(cpu - before[who].get(pid, 0.0) for pid, cpu in after[who].items())
    used["other"] = used["machine"] - used["client"] - used["gunicorn"] - used["postgres"]
    return {who: value / seconds for who, value in used.items()}


# --- a level --------------------------------------------------------------------------------------

def timed_phase(count: int, work: Callable[[int, float], Record], *, warmup: float, seconds: float,
                server_pid: int) -> tuple[list[Record], float, float, dict[str, float]]:
    """Runs work(n, stop) in `count` threads; measures from `warmup` after the start for `seconds`, CPU from
    this thread (which owns the database connection). Returns the records, the window and the CPU used in it."""
    start = time.perf_counter()
    window_start, stop = start + warmup, start + warmup + seconds
    snapshots = {}

    def clock() -> None:
        time.sleep(max(0.0, window_start - time.perf_counter()))
        snapshots["before"] = cpu_snapshot(server_pid)
        time.sleep(max(0.0, stop - time.perf_counter()))
        snapshots["after"] = cpu_snapshot(server_pid)

    records = in_parallel(count, lambda n: work(n, stop), meanwhile=clock)
    return records, window_start, stop, cpu_used(snapshots["before"], snapshots["after"])


def summarize(records: list[Record], window_start: float, stop: float) -> dict:
    """Requests answered inside the window: throughput, latency (ms) per kind and per loop, errors."""
    seconds = stop - window_start
    inside = [(kind, end - start) for r in records for kind, start, end in r.requests if window_start <= end <= stop]
    loops = [(page_end - start, post_end - start) for r in records for start, page_end, post_end in r.loops
             if window_start <= post_end <= stop]
    errors: dict[str, int] = {}
    for r in records:
        for what, n in r.errors.items():
            errors[what] = errors.get(what, 0) + n
    return {"requests_per_second": len(inside) / seconds, "loops_per_second": len(loops) / seconds,
            "latency": {kind: harness.spread([v for k, v in inside if k == kind], 1000)
                        for kind in {kind for kind, _ in inside}},
            "errors": errors, "posts_ok": sum(r.posts_ok for r in records),
            "loop": harness.spread([b for _, b in loops], 1000), "handout": harness.spread([a for a, _ in loops], 1000)}


def run_level(n: int, *, server_pid: int, browsers: list[Browser], campaign, users: list, topics: list,
              args: argparse.Namespace) -> dict:
    note(f"N = {n}: assigning {len(topics)} topics to {n} assessors, then judging")
    assignments, warm = assign_level(campaign, users[:n], topics, cold=args.cold)
    rngs = [random.Random(1000 * n + i) for i in range(n)]
    records, start, stop, cpu = timed_phase(
        n, lambda i, stop: assessor_loop(browsers[i], assignments[users[i].pk], stop, rngs[i], args.think),
        warmup=args.warmup, seconds=args.seconds, server_pid=server_pid)
    judging = summarize(records, start, stop)
    counts = judged_counts(users)
    ok = counts["judgments"] == counts["revisions"] == counts["completed_visits"] == judging["posts_ok"]
    return {"n": n, "warm": warm, "judging": judging, "cpu": cpu, "db": counts, "db_ok": ok}


# --- double submits -------------------------------------------------------------------------------

def double_submit_check(*, port: int, browsers: list[Browser], campaign, users: list, topics: list,
                        items: int) -> dict:
    """Submits `items` items twice each: half with the second POST after the first answered (a resubmitted form),
    half with both POSTs sent at the same moment on two connections (a double click). One judgment each."""
    n = min(len(users), 8, items // 2)
    assignments = reset_and_assign(campaign, users[:n], topics)
    per_user = [items // 2 // n + (1 if i < items // 2 % n else 0) for i in range(n)]
    statuses: list[int] = []
    lock = threading.Lock()

    def submit_twice(i: int) -> int:
        browser, rng = browsers[i], random.Random(i)
        url, done = continue_url(assignments[users[i].pk][0]), 0
        for k in range(2 * per_user[i]):
            target = url if "/items/" in url else browser.request("GET", url).location
            page = browser.request("GET", target)
            form = grade_form(page.body, rng)
            if form is None:
                raise RuntimeError(f"no grade form at {target} ({page.status})")
            if k % 2 == 0:
                posts = [browser.request("POST", target, form), browser.request("POST", target, form)]
            else:
                twins = [browser, Browser(port, browser.cookies)]
                barrier = threading.Barrier(2)

                def post(j: int, twins=twins, barrier=barrier, form=form, target=target) -> Response:
                    barrier.wait()
                    return twins[j].request("POST", target, form)

                posts = in_parallel(2, post)
            with lock:
                statuses.extend(p.status for p in posts)
            done += 1
            url = posts[0].location
        return done

    submitted = sum(in_parallel(n, submit_twice))
    counts = judged_counts(users)
    redirects = sum(1 for s in statuses if s == 302)
    ok = counts["judgments"] == counts["revisions"] == submitted and redirects == len(statuses)
    return {"items": submitted, "posts": len(statuses), "redirects": redirects, "db": counts, "ok": ok}


# --- server-side view of one request --------------------------------------------------------------

def in_process_check(*, campaign, users: list, topics: list, profile: bool, cold: bool) -> dict:
    """The same loop through django.test.Client in this process (same settings, database and cache): SQL
    queries, server-side milliseconds and the part of them spent waiting for PostgreSQL, per request kind,
    without HTTP, gunicorn or the client."""
    import cProfile
    import pstats

    from django.db import connection
    from django.test import Client

    assignments, _warm = assign_level(campaign, users[:1], topics, cold=cold)
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(users[0])
    rng = random.Random(7)
    profiler = cProfile.Profile() if profile else None
    figures: dict[str, dict[str, list]] = {kind: {"queries": [], "ms": [], "db_ms": [], "cpu_ms": [], "pg_cpu_ms": []}
                                           for kind in KINDS}
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    statements: dict[str, list[str]] = {}
    url, posted = continue_url(assignments[users[0].pk][0]), ""

    def measure(kind: str, call: Callable[[], object]):
        executed: list[tuple[str, float]] = []

        def timed(execute, sql, params, many, context):
            start = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                executed.append((sql, time.perf_counter() - start))

        def timed_commit(commit=connection.commit):
            # Commits do not go through execute(); with synchronous_commit on each one waits for the WAL flush.
            start = time.perf_counter()
            try:
                commit()
            finally:
                executed.append(("COMMIT", time.perf_counter() - start))

        connection.commit = timed_commit
        try:
            with connection.execute_wrapper(timed):
                start, cpu, pg_cpu = time.perf_counter(), time.process_time(), cpu_seconds(backend)
                response = profiler.runcall(call) if profiler is not None and kind == "page" else call()
                figures[kind]["ms"].append(1000 * (time.perf_counter() - start))
                figures[kind]["cpu_ms"].append(1000 * (time.process_time() - cpu))
                figures[kind]["pg_cpu_ms"].append(1000 * (cpu_seconds(backend) - pg_cpu))
        finally:
            del connection.commit
        figures[kind]["queries"].append(sum(1 for sql, _ in executed if sql != "COMMIT"))
        figures[kind]["db_ms"].append(1000 * sum(seconds for _, seconds in executed))
        statements.setdefault(kind, [statement(sql) for sql, _ in executed])
        return response

    after = ""
    for _ in range(IN_PROCESS_LOOPS):
        # The continue URL is measured in every loop (the start page's Continue and the page's "Next unjudged" use
        # it) even when the last POST went straight to the next item; it must agree with that POST.
        nxt = measure("next", lambda url=url + after: client.get(url))
        target = nxt["Location"]
        if "/items/" in posted and posted != target:
            raise RuntimeError(f"in-process: the POST went to {posted}, the continue URL to {target}")
        page = measure("page", lambda target=target: client.get(target))
        form = grade_form(page.content, rng)
        if form is None:
            raise RuntimeError(f"in-process: no grade form at {target} ({page.status_code})")
        post = measure("post", lambda target=target, form=form: client.post(target, form))
        posted = post["Location"]
        after = "?after=" + target.rstrip("/").rsplit("/", 1)[1]
    # CPU: means, not medians (the backend's clock may tick coarser than one request).
    result = {kind: {"queries": statistics.median(f["queries"]), "ms": statistics.median(f["ms"]),
                     "db_ms": statistics.median(f["db_ms"]), "cpu_ms": statistics.mean(f["cpu_ms"]),
                     "pg_cpu_ms": statistics.mean(f["pg_cpu_ms"]), "statements": statements[kind]}
              for kind, f in figures.items()}
    result["page_bytes"] = len(page.content)
    if profiler is not None:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    return result


def cpu_seconds(pid: int) -> float:
    """CPU seconds a process of this machine has run (its PostgreSQL backend): from /proc/PID/schedstat, in
    nanoseconds; the CPU a request costs counts less on the machine's load than its wall time."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


def statement(sql: str) -> str:
    """A query in a few words: its verb and first table (BEGIN, COMMIT and savepoints as they are); for a SELECT
    the table of its own FROM, not a subquery's."""
    if sql.lstrip().upper().startswith("SELECT"):
        depth = 0
        for n, char in enumerate(sql):
            depth += (char == "(") - (char == ")")
            if depth == 0 and sql.startswith(" FROM ", n):
                # FROM (SELECT 1) o LEFT OUTER JOIN t: named by the first table joined.
                table = re.match(r'\s*"?(\w+)"?', sql[n + 6:]) or re.search(r' JOIN "?(\w+)"?', sql[n:])
                return f"SELECT {table.group(1)}" if table else "SELECT"
        return "SELECT"
    match = re.match(r'\s*(INSERT INTO|UPDATE|DELETE FROM)\s+"?(\w+)"?', sql, re.S)
    if match is None:
        return sql.split('"')[0].strip()
    return f"{match.group(1).split()[0]} {match.group(2)}"


# --- report ---------------------------------------------------------------------------------------

def report(args: argparse.Namespace, facts: dict, levels: list[dict], double: dict, inproc: dict,
           topics: int, items: int) -> list[str]:
    kind = "gthread" if args.threads > 1 else "sync"
    lines = [
        f"Judging benchmark: gunicorn {args.workers} {kind} workers"
        + (f" x {args.threads} threads" if args.threads > 1 else "")
        + f", production settings, PostgreSQL {facts['postgresql']}, Redis cache; {args.warmup:g} s warm-up + "
        f"{args.seconds:g} s measured per level"
        + (f"; think time 0.5-1.5 x {args.think:g} s per page" if args.think else "; no think time"),
        f"{facts['cores']} cores shared by client, gunicorn and PostgreSQL; Python {facts['python']}, Django "
        f"{facts['django']}; shared_buffers {facts['shared_buffers']}, synchronous_commit "
        f"{facts['synchronous_commit']}; code {facts['code']}; load average before {facts['load_before']}, after "
        f"{facts['load_after']}",
        f"campaign '{DEMO_CAMPAIGN}': {topics} free topics, {items:,} items dealt out to the N assessors; "
        + ("COLD cache (cleared after the assignments' warm-up job)" if args.cold else
           "WARM cache (the assignments' warm-up job ran)") + "; assign + warm-up s: "
        + ", ".join(f"N = {level['n']} {level['warm']['seconds']:.1f}" for level in levels),
        "",
    ]
    rows = []
    for level in levels:
        judging, used = level["judging"], level["cpu"]
        busy = used["client"] + used["gunicorn"] + used["postgres"]
        rows.append([level["n"], f"{judging['requests_per_second']:.1f}", f"{judging['loops_per_second']:.1f}",
                     *(" / ".join(f"{lat[p]:.1f}" for p in ("p50", "p95", "p99"))
                       if (lat := judging["latency"].get(k)) else "-" for k in KINDS),
                     " / ".join(f"{used[who]:.2f}" for who in ("client", "gunicorn", "postgres", "other")),
                     f"{1000 * busy / judging['requests_per_second']:.1f}" if judging["requests_per_second"] else "-"])
    lines.append(harness.table(["N", "req/s", "loops/s", "continue p50 / p95 / p99 ms", "page p50 / p95 / p99 ms",
                                "POST p50 / p95 / p99 ms", "CPU cores: client / gunicorn / PostgreSQL / other",
                                "CPU ms per request"], rows))
    other = max(level["cpu"]["other"] for level in levels)
    if other > NOISE_CORES:
        lines.append(f"NOISE: other processes kept up to {other:.2f} of {facts['cores']} cores busy")
    lines += ["", "database after each level (judgments / revisions / completed visits against POSTs redirected):"]
    for level in levels:
        db, errors = level["db"], level["judging"]["errors"]
        lines.append(f"  N = {level['n']:>2}: {db['judgments']} / {db['revisions']} / {db['completed_visits']} "
                     f"against {level['judging']['posts_ok']}: {'OK' if level['db_ok'] else 'MISMATCH'}"
                     + (f"; client errors {errors}" if errors else ""))
    lines.append(f"double submits: {double['items']} items POSTed twice ({double['posts']} POSTs, "
                 f"{double['redirects']} redirected): {double['db']['judgments']} judgments, "
                 f"{double['db']['revisions']} revisions: {'OK' if double['ok'] else 'MISMATCH'}")
    lines += ["", f"in process (django.test.Client, no HTTP; medians of {IN_PROCESS_LOOPS} loops): server-side ms, "
              "of which waiting for PostgreSQL, the mean CPU ms of Django (this process) and of its PostgreSQL "
              "backend, and the queries"]
    for k in KINDS:
        f = inproc[k]
        lines.append(f"  {k:<5} {f['ms']:5.1f} ms, PostgreSQL {f['db_ms']:4.1f} ms, CPU {f['cpu_ms']:4.1f} + "
                     f"{f['pg_cpu_ms']:4.1f} ms, {f['queries']:g} queries: " + ", ".join(f["statements"]))
    lines.append(f"  judging page {inproc['page_bytes']:,} bytes")
    lines += ["", "goals:"]
    at_goal = next((level for level in levels if level["n"] == GOAL_LEVEL), None)
    if at_goal is not None:
        worst = max(lat["p95"] for k, lat in at_goal["judging"]["latency"].items() if k in ("page", "post"))
        lines.append(f"  N = {GOAL_LEVEL}: slowest p95 of page / POST {worst:.1f} ms, goal < {GOAL_P95_MS:g} ms: "
                     + ("met" if worst < GOAL_P95_MS else "MISSED"))
    consistent = all(level["db_ok"] for level in levels) and double["ok"]
    lines.append(f"  one judgment per redirected POST (0 lost, 0 duplicated): {'OK' if consistent else 'MISMATCH'}")
    return lines


# --- main -----------------------------------------------------------------------------------------

def main(argv: list[str]) -> None:
    args = parse_args(argv)
    harness.database_url(DEFAULT_DATABASE_URL, "bench/judging.py")
    env = harness.production_environment(redis_url=os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL))
    os.environ.update(env)
    harness.setup_django()
    harness.collect_static()
    run_jobs_here()
    started = time.perf_counter()
    harness.ensure_database()
    campaign = demo_campaign()
    users = bench_users(MAX_ASSESSORS)
    topics = free_topics(campaign, users)
    from pooling.models import PoolItem

    items = PoolItem.objects.filter(topic__in=topics).count()
    if len(topics) < max(args.levels):
        sys.exit(f"only {len(topics)} topics of '{DEMO_CAMPAIGN}' are free for the benchmark's assessors")
    facts = harness.machine_facts("shared_buffers", "synchronous_commit", "max_connections")
    server, port = harness.start_gunicorn(env, workers=args.workers, threads=args.threads,
                                          log=harness.OUT / "judging-gunicorn.log")
    try:
        note(f"gunicorn pid {server.pid} on port {port}; logging in {max(args.levels)} assessors")
        browsers = in_parallel(max(args.levels), lambda n: login(port, users[n].username))
        levels = [run_level(n, server_pid=server.pid, browsers=browsers, campaign=campaign, users=users,
                            topics=topics, args=args) for n in args.levels]
        note("double-submit check")
        double = double_submit_check(port=port, browsers=browsers, campaign=campaign, users=users[:len(browsers)],
                                     topics=topics, items=args.double_submits)
    finally:
        harness.stop(server)
    note("in-process check")
    inproc = in_process_check(campaign=campaign, users=users, topics=topics, profile=args.profile, cold=args.cold)
    facts["load_after"] = harness.load()
    print("\n".join(report(args, facts, levels, double, inproc, len(topics), items)))
    harness.save("judging", {"args": vars(args), "facts": facts, "levels": levels, "double_submits": double,
                             "in_process": inproc, "wall_seconds": time.perf_counter() - started})


if __name__ == "__main__":
    main(sys.argv[1:])

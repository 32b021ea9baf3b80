"""Assessor feel (issue 16): the time from Enter to the next item on screen with its math typeset, in Chromium.

Creates a fresh PostgreSQL database (`bench_feel_<pid>`, on the server DATABASE_URL names; dropped at the end
unless --keep), loads the demo into it with the demo's own service (`workflow.demo.demo_load`), collects the
static files and serves the product with gunicorn (production settings, DEBUG off, compose's worker options) on a
free loopback port. Headless Chromium (/usr/bin/chromium through Playwright, the browser tests' arguments) logs in
as the demo assessor `assessor1` and judges with the keyboard, as an assessor does: 25 items of its Task 1 topic
A.302 (a grade key, then Enter) and 10 of its Task 2 topic B.301 (each formula instance graded in turn, moving with
j/k as judge.js has it, then Enter), after --warmup unmeasured items of each, pausing --read-ms on each page.

What is measured, in the page (an init script that Playwright adds to every document before its own scripts):
- start: the Enter keydown's event.timeStamp (captured on window before judge.js sees it), as an epoch time
  (performance.timeOrigin + timeStamp), kept in sessionStorage should the Enter lead to a new page;
- end: once the next item is on screen with its math typeset, document.fonts.ready (MathJax's web fonts) has
  resolved and the next animation frame (the frame that shows it) has come, performance.timeOrigin +
  performance.now(). The next item comes one of two ways, and each sample says which:
  - swapped in by the page's script (issue 16: fetched ahead and typeset unseen; its "judge:shown" event, whose
    `ready` promise is the item's typesetting);
  - or as a new page (no script, or nothing fetched yet): after MathJax's startup promise (its first typeset of the
    page, `startup: {typeset: true}`). The navigation timing of the new page splits those samples into: Enter to the
    navigation's start, navigation start to the last byte of the next page, last byte to DOMContentLoaded, and
    DOMContentLoaded to typeset and painted.
A sample counts only if the item after Enter is another item's judging page. The page sends the judgments after it
has moved on: after each task the script waits until the page's outbox is empty, and the database must then hold
one judgment per grade and one judged item per Enter.

Prints p50 and p95 (nearest rank) per task against the goals (p95 <= 100 ms Task 1, <= 150 ms Task 2) and the
load average before and after (other processes share the machine). Results land in docs/benchmarks.md ("Assessor
feel (issue 16)") and in bench/out/assessor-feel-<date-time>.json. About 1.5 minutes.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench .venv/bin/python bench/assessor_feel.py
    DATABASE_URL=... .venv/bin/python bench/assessor_feel.py --task1 5 --task2 3 --read-ms 200   # quick check
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import harness
from harness import note

import judging as bench_judging  # run_jobs_here: the warm-up jobs in this process

GOALS_MS = {"Task 1": 100.0, "Task 2": 150.0}
ASSESSOR = "assessor1"                    # the demo's: official Task 1 topics A.301 (24 judged) and A.302, Task 2 B.301
TOPICS = {"Task 1": "A.302", "Task 2": "B.301"}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Runs in every document before its own scripts. Each item shown after an Enter, swapped in by the page's script
# (its "judge:shown" event) or loaded as a new page, adds a sample to window.__feelSamples once its math is typeset,
# the fonts are ready and the next animation frame has come.
PROBE = """
(() => {
  const KEY = "assessor-feel-enter";
  window.__feelSamples = [];
  let enter = null;   // the last Enter of this document not yet followed by an item shown
  window.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    enter = performance.timeOrigin + event.timeStamp;
    sessionStorage.setItem(KEY, String(enter));
  }, true);
  function measure(start, kind, ready, shown) {
    Promise.resolve(ready).then(() => document.fonts.ready).then(() => requestAnimationFrame(() => {
      const end = performance.timeOrigin + performance.now();
      const nav = performance.getEntriesByType("navigation")[0];
      window.__feelSamples.push({kind, start, end, shown, url: location.href, origin: performance.timeOrigin,
                                 responseEnd: nav.responseEnd, domContentLoaded: nav.domContentLoadedEventStart,
                                 math: Array.from(document.querySelectorAll(".item-pane mjx-container"))
                                         .filter((e) => !e.closest(".parked")).length,
                                 instances: document.querySelectorAll("#judge-form .instance").length});
    }));
  }
  document.addEventListener("judge:shown", (event) => {
    const start = enter;
    enter = null;
    sessionStorage.removeItem(KEY);
    measure(start, "swap", event.detail.ready, performance.timeOrigin + performance.now());
  });
  document.addEventListener("DOMContentLoaded", async () => {
    const start = sessionStorage.getItem(KEY);
    sessionStorage.removeItem(KEY);
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
      await new Promise((r) => setTimeout(r, 1));
    }
    measure(start === null ? null : Number(start), "navigation", MathJax.startup.promise);
  });
})();
"""
# The sample of the item shown after an Enter pressed after `since` (an epoch time in milliseconds).
AFTER_ENTER = "(since) => (window.__feelSamples || []).find(s => s.start !== null && s.start > since)"
NOW = "() => performance.timeOrigin + performance.now()"
# The page's outbox (judge-outbox.js) has sent everything it kept.
ALL_SENT = ("() => Object.keys(localStorage).filter(k => k.startsWith('judge-outbox:'))"
            ".every(k => JSON.parse(localStorage.getItem(k)).length === 0)")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task1", type=int, default=25, help="Task 1 items measured (default 25)")
    parser.add_argument("--task2", type=int, default=10, help="Task 2 items measured (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="unmeasured items judged first in each task (default 2)")
    parser.add_argument("--read-ms", type=int, default=1000, help="pause on each item before grading (default 1000)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4, as docker-compose.yml)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (default 4, as docker-compose.yml)")
    parser.add_argument("--keep", action="store_true", help="keep the database (its name is printed)")
    return parser.parse_args(argv)


# --- set-up ------------------------------------------------------------------------------------

def fresh_database() -> str:
    """A new database beside the one DATABASE_URL names (same server and account); returns its URL."""
    url = urlsplit(harness.database_url(harness.DEFAULT_DATABASE_URL, "bench/assessor_feel.py"))
    fresh = urlunsplit(url._replace(path=f"/bench_feel_{os.getpid()}"))
    os.environ["DATABASE_URL"] = fresh
    harness.server_database(fresh, drop=True)
    return fresh


def load_demo(work: Path) -> str:
    """Migrates, loads the demo (its warm-up jobs run here, as in judging.py), collects the static files; returns
    assessor1's password."""
    harness.setup_django()
    from workflow.demo import demo_load

    bench_judging.run_jobs_here()
    harness.ensure_database()
    note("loading the demo (about a minute)")
    report = demo_load(out_dir=work / "demo", passwords_file=work / "demo-passwords.txt")
    note("collecting the static files (about half a minute)")
    harness.collect_static()
    return report.passwords[ASSESSOR]


def assignment_pk(topic_id: str) -> int:
    from judging.models import Assignment

    return Assignment.objects.get(assessor__username=ASSESSOR, topic__topic_id=topic_id, kind="official").pk


def judged(pk: int) -> tuple[int, int]:
    """The assignment's judged items and judgments (a formula's judgments are one per instance)."""
    from judging.models import Judgment

    rows = Judgment.objects.filter(assignment_id=pk)
    return rows.values("item_id").distinct().count(), rows.count()


# --- the browser -----------------------------------------------------------------------------

def grade_item(page, rng: random.Random) -> int:
    """Grades the page's item with the keyboard: one grade key (0-3), or for a formula every instance in turn."""
    keys = page.eval_on_selector_all(
        "#judge-form fieldset.grades:first-of-type input[type=radio][data-key]",
        "els => Object.fromEntries(els.map(e => [e.value, e.dataset.key]))")
    count = page.locator("#judge-form .instance").count()
    for n in range(max(count, 1)):
        if count:  # judge.js moves to the next ungraded instance after a grade; j/k move by hand
            active = page.evaluate("Array.from(document.querySelectorAll('#judge-form .instance'))"
                                   ".findIndex(el => el.classList.contains('active'))")
            for _ in range(abs(n - active)):
                page.keyboard.press("j" if n > active else "k")
        page.keyboard.press(keys[rng.choice("0123")])
    return max(count, 1)


def judge(page, base: str, pk: int, *, measured: int, warmup: int, read_ms: int,
          rng: random.Random) -> tuple[list[dict], int]:
    """Judges warmup + measured items of the assignment from its next unjudged one; the measured samples and the
    number of grades given."""
    page.goto(f"{base}/assess/assignments/{pk}/")
    page.wait_for_function("() => (window.__feelSamples || []).length > 0")
    samples, grades = [], 0
    for n in range(warmup + measured):
        url = page.url
        page.wait_for_timeout(read_ms)
        grades += grade_item(page, rng)
        since = page.evaluate(NOW)
        page.keyboard.press("Enter")
        page.wait_for_function(AFTER_ENTER, arg=since, timeout=30000)
        sample = page.evaluate(AFTER_ENTER, since)
        if page.url == url or page.locator("#judge-form").count() == 0:
            sys.exit(f"Enter on {url} did not lead to the next item (now {page.url})")
        if n >= warmup:
            samples.append(sample)
    page.wait_for_function(ALL_SENT, timeout=60000)   # the page moves on before the server has the judgments
    return samples, grades


def phases(sample: dict) -> dict[str, float]:
    """A navigation's parts (the page after Enter loaded anew); an item swapped in has only its total."""
    start, origin = sample["start"], sample["origin"]
    if sample["kind"] == "swap":   # Enter to the item swapped in (the page's script), then to typeset and painted
        return {"total": sample["end"] - start, "to_swapped": sample["shown"] - start,
                "to_painted": sample["end"] - sample["shown"]}
    return {"total": sample["end"] - start, "to_navigation": origin - start,
            "to_last_byte": sample["responseEnd"], "to_dom": sample["domContentLoaded"] - sample["responseEnd"],
            "to_typeset": sample["end"] - origin - sample["domContentLoaded"]}


# --- figures -----------------------------------------------------------------------------------

def summary(task: str, samples: list[dict]) -> dict:
    split = [phases(s) for s in samples]
    navigated = [p for p in split if "to_navigation" in p]
    swapped = [p for p in split if "to_swapped" in p]
    totals = [s["total"] for s in split]
    p95 = harness.percentile(totals, 95)
    return {"task": task, "items": len(totals), "p50_ms": round(statistics.median(totals), 1),
            "p95_ms": round(p95, 1), "max_ms": round(max(totals), 1), "goal_p95_ms": GOALS_MS[task],
            "goal_met": p95 <= GOALS_MS[task],
            "swapped": len(swapped),
            "swap_parts_ms": {k: [round(statistics.median(p[k] for p in swapped), 1),
                                  round(max(p[k] for p in swapped), 1)]
                              for k in ("to_swapped", "to_painted")} if swapped else {},
            "median_phases_ms": {k: round(statistics.median(p[k] for p in navigated), 1)
                                 for k in (navigated[0] if navigated else {})},
            "math_in_item_pane": sum(1 for s in samples if s["math"]),
            "formulae_in_item_pane": [min(s["math"] for s in samples), max(s["math"] for s in samples)],
            "instances": [min(s["instances"] for s in samples), max(s["instances"] for s in samples)],
            "samples_ms": [round(t, 1) for t in totals]}


def report(results: list[dict], facts: dict) -> None:
    print(f"code {facts['code']}; {facts['cores']} cores; gunicorn {facts['gunicorn']}; "
          f"read pause {facts['read_ms']} ms")
    print(f"load average (1, 5, 15 min): before {facts['load_before']}, after {facts['load_after']}")
    print()
    print(harness.table(["task", "items", "p50 ms", "p95 ms", "max ms", "goal p95", "met"],
                        [[r["task"], r["items"], f"{r['p50_ms']:.0f}", f"{r['p95_ms']:.0f}", f"{r['max_ms']:.0f}",
                          f"<= {r['goal_p95_ms']:.0f}", "yes" if r["goal_met"] else "no"] for r in results]))
    print()
    print("Items swapped in by the page (fetched ahead) and, for those that loaded as a new page, the medians of the "
          "parts (ms): Enter to navigation start / to the next page's last byte / to DOMContentLoaded / to typeset "
          "and painted")
    for r in results:
        m = r["median_phases_ms"]
        parts = (f"; navigations: {m['to_navigation']:.0f} / {m['to_last_byte']:.0f} / {m['to_dom']:.0f} / "
                 f"{m['to_typeset']:.0f}") if m else ""
        w = r["swap_parts_ms"]
        if w:
            parts = (f" (Enter to swapped in: median {w['to_swapped'][0]:.0f}, max {w['to_swapped'][1]:.0f}; then to "
                     f"typeset and painted: median {w['to_painted'][0]:.0f}, max {w['to_painted'][1]:.0f})") + parts
        print(f"- {r['task']}: {r['swapped']} of {r['items']} swapped in{parts}; items with math in the item pane: "
              f"{r['math_in_item_pane']} of {r['items']} "
              f"({'-'.join(map(str, r['formulae_in_item_pane']))} formulae typeset there"
              + (f", {'-'.join(map(str, r['instances']))} instances per item)" if r["instances"][1] else ")"))


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls between its calls are plain ones.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

    work = Path(tempfile.mkdtemp(prefix="bench-feel-"))  # the demo's generated files
    database_url = fresh_database()
    # The product's shared cache (Redis), which the assignments' warm-up job fills, when REDIS_URL is set.
    env = harness.production_environment(redis_url=os.environ.get("REDIS_URL", ""))
    os.environ.update(env)
    server = None
    try:
        password = load_demo(work)
        pks = {task: assignment_pk(topic) for task, topic in TOPICS.items()}
        server, port = harness.start_gunicorn(env, workers=args.workers, threads=args.threads,
                                              log=harness.OUT / "assessor-feel-gunicorn.log")
        base = f"http://127.0.0.1:{port}"
        facts = {"code": harness.code_version("assessor", "pooling", "config", "templates", "static"),
                 "cores": os.cpu_count(), "read_ms": args.read_ms,
                 "gunicorn": f"{args.workers} workers x {args.threads} threads", "database": database_url,
                 "redis": env["REDIS_URL"] or "none", "load_before": harness.load()}
        rng = random.Random(2022)
        results = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 860})
            context.add_init_script(PROBE)
            page = context.new_page()
            harness.log_in(page, base, ASSESSOR, password)
            for task, measured in (("Task 1", args.task1), ("Task 2", args.task2)):
                note(f"{task}: judging {args.warmup} + {measured} items of {TOPICS[task]}")
                before = judged(pks[task])
                samples, grades = judge(page, base, pks[task], measured=measured, warmup=args.warmup,
                                        read_ms=args.read_ms, rng=rng)
                items, rows = (now - then for now, then in zip(judged(pks[task]), before, strict=True))
                if (items, rows) != (args.warmup + measured, grades):
                    sys.exit(f"{task}: {items} items and {rows} judgments stored for {args.warmup + measured} "
                             f"Enter presses and {grades} grades")
                results.append(summary(task, samples))
            browser.close()
        facts["load_after"] = harness.load()
        report(results, facts)
        harness.save("assessor-feel", {"facts": facts, "results": results})
    finally:
        harness.stop(server)
        if "django.db" in sys.modules:
            from django.db import connections

            connections.close_all()
        if args.keep:
            note(f"kept the database: {database_url}")
        else:
            harness.server_database(database_url, create=False, drop=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])

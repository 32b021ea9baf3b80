"""Disagreement review in the browser: navigation start to MathJax done in Chromium, a 10-assessor round.

Builds (or reuses) a Task 1 campaign in its own PostgreSQL database (default `assess_bench_review`): a bulk
Posts.xml of --posts math-heavy posts (workflow/demo's generator, as bench/ingest.py writes it), the first 3
ARQMath-3 topics, --runs runs of 1000 rows, the pools, and a training round of the 3 topics judged by 10 assessors on
the first --items pooled posts of each topic, random grades (bulk rows through judgments_import): nearly every item is
a disagreement. Collects the static files and serves the product with gunicorn (production settings, DEBUG off,
compose's worker options) on a free loopback port. Headless Chromium (/usr/bin/chromium through Playwright, the
browser tests' arguments) logs in as the organizer, loads each page once unmeasured (MathJax and its fonts cached,
as for an organizer who has used the service), then --rounds times:
- the review's first page (?kind=training&round=1),
- the projector view (&projector=1),
- one topic's view (&topic=<the first topic>),
and times from the navigation's start until MathJax's startup promise (its typesetting of the page) has resolved,
document.fonts.ready too, and the next animation frame has come. Prints median and max per page against the goal
(2 s), with the page's HTML size, its DOM nodes once typeset and its typeset formulas, and the load average before
and after (other processes share the machine). Results land in docs/benchmarks.md ("Disagreement review in the
browser") and in bench/out/review-typeset-<date-time>.json.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_review .venv/bin/python bench/review_typeset.py
"""
from __future__ import annotations

import os
import random
import statistics
import sys
import time
from functools import partial

import harness
import ingest as bench_ingest
from harness import note

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_review"
CAMPAIGN = "bench-review"
SEED = 2024
TOPICS, ASSESSORS = 3, 10
GRADES = ["3", "2", "1", "0", "0"]
GOAL_MS = 2000.0
ORGANIZER, ASSESSOR = "benchreview-org", "benchreview{:02d}"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Runs in every document before its own scripts: once MathJax's startup promise (the page's typesetting) has
# resolved, the fonts are ready and the next frame has come, window.__typeset holds the milliseconds since the
# navigation's start (performance.timeOrigin), with the page's size, DOM nodes and typeset formulas.
PROBE = """
document.addEventListener("DOMContentLoaded", async () => {
  while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
    await new Promise((r) => setTimeout(r, 1));
  }
  await MathJax.startup.promise;
  await document.fonts.ready;
  requestAnimationFrame(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    window.__typeset = {ms: performance.now(), responseEnd: nav.responseEnd,
                        domContentLoaded: nav.domContentLoadedEventStart, bytes: nav.decodedBodySize,
                        nodes: document.getElementsByTagName("*").length,
                        formulas: document.querySelectorAll("mjx-container").length,
                        items: document.querySelectorAll("article.disagreement").length,
                        untypeset: Array.from(document.querySelectorAll(".tex2jax_process"))
                          .filter((e) => /\\$[^$]+\\$/.test(e.textContent)).length};
  });
});
"""


def parse_args(argv: list[str]):
    parser = harness.Parser(__doc__)
    parser.count("posts", 50_000, "posts in the collection")
    parser.count("runs", 20, "runs of 1000 rows a topic")
    parser.count("items", 437, "items of each topic judged by every assessor (3 x 437: the issue's 1,310)")
    parser.count("rounds", 5, "timed loads of each page")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4, as docker-compose.yml)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (default 4, as docker-compose.yml)")
    return parser.parse(argv)


def users(password: str):
    from django.contrib.auth import get_user_model

    User = get_user_model()
    organizer, _ = User.objects.get_or_create(username=ORGANIZER, defaults={"is_superuser": True, "is_staff": True})
    organizer.set_password(password)
    organizer.save()
    assessors = [User.objects.get_or_create(username=ASSESSOR.format(n))[0] for n in range(1, ASSESSORS + 1)]
    return organizer, assessors


def build(args, organizer, assessors):
    """The campaign, reused when a complete one exists (it has judgments)."""
    from judging.models import Judgment
    from pooling.models import Campaign

    campaign = Campaign.objects.filter(name=CAMPAIGN).first()
    if campaign is not None and Judgment.objects.filter(assignment__campaign=campaign).exists():
        return campaign
    if campaign is not None:
        sys.exit(f"{CAMPAIGN} was left half-built by an interrupted run: drop its database and run again")
    from agreement.rounds import training_round_create
    from judging.services import judgments_import, pools_rebuild
    from pooling.models import PoolItem
    from pooling.services import campaign_create, collection_ingest, run_ingest, topics_ingest

    started = time.perf_counter()
    posts_xml = bench_ingest.posts_file(args.out, args.posts)
    topics_xml, topic_ids = bench_ingest.topics_file(args.out, TOPICS)
    files = bench_ingest.run_files(args.out, runs=args.runs, topic_ids=topic_ids, depth=1000, posts_xml=posts_xml)
    note(f"ingesting {args.posts:,} posts and {len(files)} runs")
    collection_ingest(collection_name=CAMPAIGN, paths=[posts_xml])
    # Pools deeper than ARQMath-3's 45/20, so that each topic pools more than --items posts.
    campaign = campaign_create(name=CAMPAIGN, task=Campaign.Task.ANSWERS, collection_name=CAMPAIGN, user=organizer,
                               primary_depth=200, alternate_depth=100)
    topics_ingest(campaign=campaign, path=topics_xml)
    for path, alternate in files:
        run_ingest(campaign=campaign, path=path, alternate=alternate)
    pools_rebuild(campaign=campaign)
    training_round_create(campaign=campaign, topic_ids=topic_ids, assessors=assessors, user=organizer)
    pools: dict[str, list[str]] = {}
    for topic_id, item_id in (PoolItem.objects.filter(campaign=campaign).order_by("topic__position", "position")
                              .values_list("topic__topic_id", "item_id")):
        pools.setdefault(topic_id, []).append(item_id)
    rng = random.Random(SEED)
    lines = ["assessor\ttopic\titem_id\tgrade\tcomment\tkind\tround\n"]
    for assessor in assessors:
        for topic_id in topic_ids:
            lines += [f"{assessor.username}\t{topic_id}\t{item}\t{rng.choice(GRADES)}\t\ttraining\t1\n"
                      for item in pools[topic_id][:args.items]]
    short = {t: len(pools[t]) for t in topic_ids if len(pools[t]) < args.items}
    if short:
        sys.exit(f"pools smaller than --items {args.items}: {short}; give more --runs")
    note(f"importing {len(lines) - 1:,} judgments")
    judgments_import(campaign=campaign, lines=lines, user=organizer, filename="bench-review.tsv")
    note(f"built in {time.perf_counter() - started:.0f} s")
    return campaign


def load_once(page, url: str) -> dict:
    response = page.goto(url, wait_until="domcontentloaded", timeout=120_000)
    if response is None or response.status != 200:
        sys.exit(f"{url} answered {response.status if response else 'nothing'}, not 200")
    page.wait_for_function("() => window.__typeset", timeout=120_000)
    return page.evaluate("() => window.__typeset")


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls around it are plain ones.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    harness.database_url(DEFAULT_DATABASE_URL, "bench/review_typeset.py")
    env = harness.production_environment(redis_url=os.environ.get("REDIS_URL", ""))
    os.environ.update(env)
    harness.setup_django()
    only_ours = partial(harness.only_campaign, CAMPAIGN)
    harness.database_of_our_own("bench/review_typeset.py", only_ours, f"builds the campaign {CAMPAIGN}")
    password = env["SECRET_KEY"][:20]
    organizer, assessors = users(password)
    campaign = build(args, organizer, assessors)
    topic = campaign.topics.order_by("position").first().topic_id
    note("collecting the static files")
    harness.collect_static()
    from django.db import connections

    connections.close_all()
    server = None
    try:
        server, port = harness.start_gunicorn(env, workers=args.workers, threads=args.threads,
                                              log=harness.OUT / "review-typeset-gunicorn.log")
        base = f"http://127.0.0.1:{port}"
        review = f"{base}/campaigns/{campaign.pk}/disagreements/?kind=training&round=1"
        pages = {"first page": review, "projector": review + "&projector=1",
                 f"topic {topic}": review + f"&topic={topic}"}
        facts = {"code": harness.code_version("assessor", "templates", "static"), "cores": os.cpu_count(),
                 "gunicorn": f"{args.workers} workers x {args.threads} threads", "posts": args.posts,
                 "items per topic": args.items, "load_before": harness.load()}
        results = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 860})
            context.add_init_script(PROBE)
            page = context.new_page()
            harness.log_in(page, base, ORGANIZER, password)
            for label, url in pages.items():
                load_once(page, url)  # warm-up: MathJax, its fonts and the CSS in the browser's cache
                samples = [load_once(page, url) for _ in range(args.rounds)]
                ms = [s["ms"] for s in samples]
                results[label] = {"url": url, "median_ms": statistics.median(ms), "max_ms": max(ms),
                                  "ms": [round(m) for m in ms],
                                  "last_byte_ms": statistics.median(s["responseEnd"] for s in samples),
                                  "dom_content_loaded_ms": statistics.median(s["domContentLoaded"] for s in samples),
                                  **{k: samples[-1][k] for k in ("bytes", "nodes", "formulas", "items", "untypeset")}}
                note(f"  {label}: median {results[label]['median_ms']:.0f} ms, max {max(ms):.0f} ms")
            browser.close()
        facts["load_after"] = harness.load()
    finally:
        harness.stop(server)
    print(f"code {facts['code']}; {facts['cores']} cores; gunicorn {facts['gunicorn']}; {args.posts:,} posts; "
          f"training round of {TOPICS} topics x {args.items} items x {ASSESSORS} assessors")
    print(f"load average (1, 5, 15 min): before {facts['load_before']}, after {facts['load_after']}")
    print()
    print(harness.table(
        ["page", "items", "HTML bytes", "DOM nodes", "formulas", "to last byte ms", "to DOMContentLoaded ms",
         "to typeset median ms", "max ms", f"<= {GOAL_MS:.0f} ms"],
        [[label, r["items"], f"{r['bytes']:,}", f"{r['nodes']:,}", f"{r['formulas']:,}", f"{r['last_byte_ms']:.0f}",
          f"{r['dom_content_loaded_ms']:.0f}", f"{r['median_ms']:.0f}", f"{r['max_ms']:.0f}",
          "yes" if r["max_ms"] <= GOAL_MS else "no"] for label, r in results.items()]))
    harness.save("review-typeset", {"facts": facts, "results": results})


if __name__ == "__main__":
    main(sys.argv[1:])

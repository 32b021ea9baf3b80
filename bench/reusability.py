"""Reusability benchmark: leave-one-team-out over a campaign's runs at a tenth and at full ARQMath-3 Task 1 scale.

Builds (or reuses) bench/pages.py's two campaigns in this database (full: 33 runs x 78 topics x 1000 rows, about
37,000 pool items and 32,000 official judgments; the tenth: 7 topics), then times `reusability --campaign`'s
computation (`evaluation.reusability.reusability_campaign`, median of --rounds after one warm-up) at each size and
prints both, the time per topic and the ratio full / (10 x tenth). **Goal: at most 2.** Results land in
docs/benchmarks.md ("Reusability at full scale").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_pages .venv/bin/python bench/reusability.py
    DATABASE_URL=... .venv/bin/python bench/reusability.py --profile    # and where the full size's time goes
    DATABASE_URL=... .venv/bin/python bench/reusability.py --scale 0.2 --rounds 1     # quick check
"""
from __future__ import annotations

import argparse
import statistics
import sys

import harness
import pages
from harness import note

GOAL_RATIO = 2.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = harness.Parser(__doc__)
    parser.count("rounds", 3, "timed computations per size (median reported)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of the full size built as 'full' (the tenth is a tenth of it; default 1)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions at full size")
    args = parser.parse(argv)
    if not 0 < args.scale <= 1:
        parser.error("--scale must be in (0, 1]")
    args.judged = 0.85  # what pages.build reads: bench/pages.py's default
    return args


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    harness.database_url(pages.DEFAULT_DATABASE_URL, "bench/reusability.py")
    harness.setup_django()
    harness.database_of_our_own("bench/reusability.py", pages.only_ours, "builds campaigns bench-pages-*")
    from evaluation.reusability import reusability_campaign

    # bench/pages.py's sizes, so that either script reuses the campaigns the other built.
    full_topics, full_posts = max(round(pages.TOPICS * args.scale), 10), max(round(pages.POSTS * args.scale), 10_000)
    sizes = {"tenth": pages.Size("tenth", max(full_topics // 10, 4), full_posts // 10),
             "full": pages.Size("full", full_topics, full_posts)}
    organizer, assessors = pages.users()
    campaigns = {label: pages.build(size, args, organizer, assessors) for label, size in sizes.items()}
    pages.settle()
    facts = harness.machine_facts(code=("pooling", "judging", "evaluation", "ir"))
    shapes = {label: pages.shape(campaign) for label, campaign in campaigns.items()}
    seconds: dict[str, float] = {}
    for label, campaign in campaigns.items():
        note(f"timing {label} (load {harness.load()})")
        times, _result = harness.rounds(args.rounds, lambda c=campaign: reusability_campaign(campaign=c), warmup=1)
        seconds[label] = statistics.median(times)
        note(f"  {label}: {seconds[label]:.2f} s ({', '.join(f'{t:.2f}' for t in times)})")
    facts["load_after"] = harness.load()
    ratio = seconds["full"] / (10 * seconds["tenth"])
    print(f"Reusability (leave-one-team-out over the campaign's runs, --scale {args.scale}), median of {args.rounds} "
          f"after one warm-up; "
          f"load before {facts['load_before']}, after {facts['load_after']}; code {facts['code']}")
    print()
    print(harness.table(["size", "topics", "runs", "run rows", "pool items", "judgments", "seconds", "ms / topic"],
                        [[label, shapes[label]["topics"], shapes[label]["runs"], f"{shapes[label]['run rows']:,}",
                          f"{shapes[label]['pool items']:,}", f"{shapes[label]['judgments']:,}",
                          f"{seconds[label]:.2f}", f"{1000 * seconds[label] / shapes[label]['topics']:.0f}"]
                         for label in sizes]))
    print()
    print(f"full / (10 x tenth) = {ratio:.2f} (goal <= {GOAL_RATIO}: {'met' if ratio <= GOAL_RATIO else 'missed'})")
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(reusability_campaign, campaign=campaigns["full"])
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(30)
    harness.save("reusability", {"args": {k: str(v) for k, v in vars(args).items()}, "facts": facts,
                                 "shapes": shapes, "seconds": seconds, "ratio": ratio}, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])

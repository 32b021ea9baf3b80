"""The leaderboard's hybrid board (docs/evaluation.md, "Under hybrid qrels") at ARQMath-3 Task 1 scale: 33 runs of
1,000 items over 78 topics, pools of each run's top 40 (about 37,000 items, as ARQMath-3's), a share of them judged by
people and the rest filled from made-up calibrated probabilities. Times one replicate of
`ir.hybrid_intervals.hybrid_intervals` (filled grades drawn, runs scored by nDCG' through `per_topic_scorer`, topics
resampled), the way evaluation/hybrid_board.py calls it (each run cut to its pooled items first: the prime filter
drops every other item, so the scores are the same), with and without the calibrator's weights drawn from their
posterior (`ir.hybrid.calibration_draws`, as the board does for the bias-aware rule), and with --whole the same
replicate on whole runs. No database: the board's reads (one qrels export, the runs' rows) are not timed here.

    .venv/bin/python bench/hybrid_board.py            # prints seconds per replicate, both ways
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from adaptive import generate  # noqa: E402

from ir.hybrid import calibration_draws, context_of  # noqa: E402
from ir.hybrid_intervals import hybrid_intervals, per_topic_scorer  # noqa: E402
from ir.pools.posts import pool_answers  # noqa: E402
from ir.prime import NDCG  # noqa: E402


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", type=int, default=78)
    parser.add_argument("--runs", type=int, default=33)
    parser.add_argument("--run-depth", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=40, help="pool depth (40 from 33 runs: about 37,000 items)")
    parser.add_argument("--judged", type=float, default=0.3, help="the share of pool items people judged")
    parser.add_argument("--replicates", type=int, default=5)
    parser.add_argument("--whole", action="store_true", help="also time whole runs (slow)")
    args = parser.parse_args(argv)
    ranked, truth = generate(runs=args.runs, topics=args.topics, docs=2000, keep=args.run_depth, seed=7)
    items: list[tuple[str, str]] = []
    for topic in truth:
        pool = pool_answers({run: per_topic[topic] for run, per_topic in ranked.items()},
                            dict.fromkeys(ranked, args.depth))
        items += [(topic, item) for item in sorted(pool)]
    rng = random.Random(8)
    calibrated = np.array([[rng.random() for _ in range(4)] for _ in items])
    calibrated /= calibrated.sum(axis=1, keepdims=True)
    human = {i: truth[topic][item] for i, (topic, item) in enumerate(items) if rng.random() < args.judged}
    pooled: dict[str, set[str]] = {}
    for topic, item in items:
        pooled.setdefault(topic, set()).add(item)
    cut = {run: {topic: [item for item in docs if item in pooled[topic]] for topic, docs in per_topic.items()}
           for run, per_topic in ranked.items()}
    print(f"{args.runs} runs x {args.topics} topics, {len(items)} pool items, {len(human)} judged by people")
    each = 0.0
    refit = calibration_draws(calibrated, context_of(items, cut), human, relevance_level=2)
    for label, runs, refitted in (*((("whole runs", ranked, None),) if args.whole else ()),
                                  ("cut to the pool", cut, None), ("cut to the pool, weights drawn", cut, refit)):
        scorer = per_topic_scorer(runs, measure=NDCG, relevance_level=2)
        times = []
        for replicates in (1, 1 + args.replicates):
            started = time.perf_counter()
            hybrid_intervals(items, human, calibrated, scorer, replicates=replicates, seed=1, refit=refitted)
            times.append(time.perf_counter() - started)
        each = (times[1] - times[0]) / args.replicates
        print(f"{label}: {each:.3f} s per replicate, point estimate and one replicate {times[0]:.3f} s; "
              f"1,000 replicates ~{each * 1000:.0f} s")
    work = args.runs * len(items)
    allowed = max(100, min(1000, 80_000_000 // work))
    print(f"runs x items {work:,}: the defaults (HYBRID_BOARD_WORK 80,000,000, HYBRID_BOARD_REPLICATES 1,000, at least "
          f"100) give {allowed} replicates, ~{allowed * each:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])

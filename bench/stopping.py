"""The progress page's "When to stop" arithmetic at full ARQMath-3 Task 1 scale (issue 27): 78 topics with pools of
about 450 items from 33 runs, 85% of each judged (bandit order), through ir/pools/stopping.topic_stopping, against a
reference measured in the same run: one pass that only reads every topic's pool and judgments (what the page's two
queries hand over). No database: the queries are timed by bench/pages.py's progress figure.

    .venv/bin/python bench/stopping.py                 # prints the median of --rounds runs and the ratio
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adaptive import generate  # noqa: E402

from ir.grades import is_relevant  # noqa: E402
from ir.pools.posts import pool_answers  # noqa: E402
from ir.pools.simulate import judging_order  # noqa: E402
from ir.pools.stopping import topic_stopping  # noqa: E402


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", type=int, default=78)
    parser.add_argument("--runs", type=int, default=33)
    parser.add_argument("--depth", type=int, default=40, help="pool depth (40 from 33 runs: pools of ~430)")
    parser.add_argument("--judged", type=float, default=0.85)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    ranked, qrels = generate(runs=args.runs, topics=args.topics, docs=2000, keep=args.depth, seed=7)
    topics = []
    for topic in qrels:
        lists = {run: per_topic[topic] for run, per_topic in ranked.items()}
        pool = pool_answers(lists, dict.fromkeys(lists, args.depth))
        order = judging_order("bandit", pool, qrels[topic], seed=7, topic_id=topic, relevance_level=2, warm_up=5,
                              min_depth=0)
        cut = order[:int(len(order) * args.judged)]
        topics.append((pool, {item: is_relevant(qrels[topic].get(item, 0), 2) for item in cut}))
    sizes = [len(pool) for pool, _ in topics]

    def reference() -> int:
        return sum(len(prov) for pool, judged in topics for item, prov in pool.items() if item in judged)

    def stopping() -> list:
        return [topic_stopping(pool, judged, warm_up=5, adaptive=True) for pool, judged in topics]

    stopping()  # warm-up: numpy and scipy imported
    timings = {}
    for name, call in (("reference", reference), ("stopping", stopping)):
        seconds = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            call()
            seconds.append(time.perf_counter() - started)
        timings[name] = statistics.median(seconds)
    print(f"{len(topics)} topics, pools of {min(sizes)}-{max(sizes)} items (mean {sum(sizes) / len(sizes):.0f}), "
          f"{args.judged:.0%} judged")
    print(f"reference (read every pool and judgment): {timings['reference'] * 1000:.1f} ms")
    print(f"topic_stopping for every topic: {timings['stopping'] * 1000:.1f} ms "
          f"({timings['stopping'] / timings['reference']:.0f}x the reference)")


if __name__ == "__main__":
    main(sys.argv[1:])

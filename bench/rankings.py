"""Rank correlation benchmark (issue 26): Kendall's tau and tau_ap between two qrels' rankings of 40 runs with their
bootstrap intervals over 100 topics (1,000 resamples, three measures, every run and a subset), as the leaderboard's
LLM part computes them, against a loop over the same resamples with scipy's `kendalltau` and the paper's item-by-item
sum of tau_ap (`item_by_item`, what `ir.statistics.tau_ap` was before it called `ir.rankings`), in the same process.

The ratio is this product's time over the loop's; the two must give the same intervals (checked). No database.

    .venv/bin/python bench/rankings.py [--runs 40] [--topics 100] [--resamples 1000]
"""
from __future__ import annotations

import os
import statistics
import sys

import harness
import numpy as np

sys.path.insert(0, str(harness.ROOT))

from ir import rankings  # noqa: E402
from ir.statistics import ranking  # noqa: E402

MEASURES = ("ndcg_prime", "map_prime", "p10_prime")


def parse_args(argv: list[str]):
    parser = harness.Parser(__doc__)
    parser.count("runs", 40, "runs")
    parser.count("topics", 100, "topics")
    parser.count("resamples", 1000, "bootstrap resamples")
    parser.count("repeat", 3, "timed rounds")
    parser.add_argument("--seed", type=int, default=42)
    return parser.parse(argv)


def synthetic(runs: list[str], topics: list[str], seed: int):
    """Per measure, (people's, LLM's) run -> topic -> value: the LLM's a noisy, over-generous copy of the people's."""
    rng = np.random.default_rng(seed)
    result = {}
    for measure in MEASURES:
        base = rng.beta(2, 2, size=len(topics))[None, :] + np.linspace(-0.2, 0.2, len(runs))[:, None]
        people = np.clip(base + rng.normal(0, 0.15, size=base.shape), 0, 1)
        llm = np.clip(people + 0.1 + rng.normal(0, 0.1, size=base.shape), 0, 1)
        result[measure] = tuple({run: dict(zip(topics, row.tolist(), strict=True)) for run, row in
                                 zip(runs, matrix, strict=True)} for matrix in (people, llm))
    return result


def ours(values, runs, subset, topics, resamples):
    return [rankings.rank_correlation(people, llm, chosen, topics, measure=measure, resamples=resamples)
            for measure, (people, llm) in values.items() for chosen in (runs, subset)]


def item_by_item(estimated: list[str], actual: list[str]) -> float:
    """tau_ap as Yilmaz, Aslam & Robertson write it, one item at a time (rankings of names, best first)."""
    position = {item: index for index, item in enumerate(actual)}
    total = sum(sum(1 for above in estimated[:i] if position[above] < position[estimated[i]]) / i
                for i in range(1, len(estimated)))
    return 2.0 * total / (len(estimated) - 1) - 1.0


def loop(values, runs, subset, topics, resamples):
    """The reference: one scipy call and one item-by-item tau_ap per resample, the same draws."""
    from scipy import stats
    found = []
    for _measure, (people, llm) in values.items():
        for chosen in (runs, subset):
            names = sorted(chosen)
            first = np.array([[people[r][t] for t in topics] for r in names])
            second = np.array([[llm[r][t] for t in topics] for r in names])
            draws = np.random.default_rng(0).integers(0, len(topics), size=(resamples, len(topics)))
            taus, aps = [], []
            for draw in draws:
                a, b = first[:, draw].mean(axis=1), second[:, draw].mean(axis=1)
                taus.append(stats.kendalltau(a, b).statistic)
                estimated, actual = ranking(dict(zip(names, b, strict=True))), ranking(dict(zip(names, a, strict=True)))
                aps.append(item_by_item(estimated, actual))
            found.append((np.percentile(taus, [2.5, 97.5]), np.percentile(aps, [2.5, 97.5])))
    return found


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    runs = [f"run{n:02d}" for n in range(args.runs)]
    subset = runs[::2]
    topics = [f"A.{301 + n}" for n in range(args.topics)]
    values = synthetic(runs, topics, args.seed)
    print(f"{len(runs)} runs (and a subset of {len(subset)}) x {len(topics)} topics x {len(MEASURES)} measures, "
          f"{args.resamples:,} resamples; load average {harness.load()}; {os.cpu_count()} cores")
    mine, found = harness.rounds(args.repeat, lambda: ours(values, runs, subset, topics, args.resamples), warmup=1)
    theirs, reference = harness.rounds(1, lambda: loop(values, runs, subset, topics, args.resamples))
    same = all(np.allclose([row.tau_low, row.tau_high], tau) and np.allclose([row.tau_ap_low, row.tau_ap_high], ap)
               for row, (tau, ap) in zip(found, reference, strict=True))
    best = min(mine)
    print(harness.table(("", "seconds"), [("this product (vectorised), median", f"{statistics.median(mine):.3f}"),
                                          ("this product, best", f"{best:.3f}"),
                                          ("loop with scipy + item-by-item tau_ap", f"{theirs[0]:.3f}")]))
    print(f"ratio this product / loop: {best / theirs[0]:.4f} ({theirs[0] / best:.0f} times faster); "
          f"same intervals: {'yes' if same else 'NO'}")
    harness.save("rankings", {"runs": len(runs), "topics": len(topics), "resamples": args.resamples,
                              "ours_seconds": mine, "loop_seconds": theirs, "same": same,
                              "load_average": os.getloadavg()})


if __name__ == "__main__":
    main(sys.argv[1:])

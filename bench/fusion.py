"""Fusion benchmark (issue 28): ir/fusion.py's `fuse` against ranx's `fuse` on the same runs, in the same process.

Generates (seeded, in memory) --runs runs x --topics topics x --rows rows whose documents are drawn from a pool of
20 x rows per topic, random scores; builds ranx's Run objects before the clock starts (ranx's own data structure,
numba typed dicts) and compiles ranx's functions on a small case first (numba's first call compiles), then times each
method --rounds times: ranx `fuse(runs, norm, method)` and `ir.fusion.fuse(runs, settings)` (each list sorted in
trec_eval's order, fused, cut to 1000 per topic: the whole of what fuse_runs does between reading and writing).
Prints the medians and the ratio ours / ranx (the goal: at most 2), and checks that both give the same scores on a
topic of each method.

    .venv/bin/python bench/fusion.py                       # 40 runs x 100 topics x 1000 rows (minutes: ranx is slow)
    .venv/bin/python bench/fusion.py --runs 10 --topics 20 # quick
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ir import fusion  # noqa: E402

# (ours, ranx's method, normalization)
METHODS = (("rrf", "rrf", None), ("combsum", "sum", "min-max"), ("combmnz", "mnz", "min-max"),
           ("borda", "bordafuse", None))


def runs_of(count: int, topics: int, rows: int, seed: int) -> list[dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    return [{f"q{t}": {f"d{doc}": rng.random() * 10 for doc in rng.sample(range(rows * 20), rows)}
             for t in range(topics)} for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    o = parser.parse_args()
    warnings.simplefilter("ignore")  # numba's type-safety warnings inside ranx
    from ranx import Run
    from ranx import fuse as ranx_fuse

    runs = runs_of(o.runs, o.topics, o.rows, o.seed)
    names = [f"r{i}" for i in range(o.runs)]
    ranx_runs = [Run(run, name=name) for run, name in zip(runs, names, strict=True)]
    print(f"# {o.runs} runs x {o.topics} topics x {o.rows} rows, {o.rounds} rounds, medians\n")
    print("| method | ranx fuse (s) | ir.fusion.fuse (s) | ratio |")
    print("|---|---:|---:|---:|")
    for ours, theirs, norm in METHODS:
        ranx_fuse(ranx_runs[:2], norm=norm, method=theirs)  # numba compiles on the first call
        how = fusion.settings(method=ours, runs=names)
        ranx_times, our_times = [], []
        for _ in range(o.rounds):
            start = time.perf_counter()
            expected = ranx_fuse(ranx_runs, norm=norm, method=theirs)
            ranx_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            result = fusion.fuse(runs, how)
            our_times.append(time.perf_counter() - start)
        topic = "q0"
        want = expected.to_dict()[topic]
        got = dict(result[topic])
        assert all(abs(want[doc] - score) < 1e-9 for doc, score in got.items()), f"{ours}: scores differ from ranx's"
        a, b = statistics.median(ranx_times), statistics.median(our_times)
        print(f"| {ours} | {a:.2f} | {b:.2f} | {b / a:.2f} |", flush=True)


if __name__ == "__main__":
    main()

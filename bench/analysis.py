"""Significance benchmark (issue 18): the significance table of 40 runs x 100 topics (780 pairs, 10,000
permutations, three measures: paired t-test, paired randomization test, Holm's correction) on synthetic per-topic
values, against ranx's tests on the same values in the same process.

Goal: at most as long as ranx's `compare` with the same tests, and under 10 s. ranx's `compare` scores the runs and
then calls `compute_statistical_significance` once per test ("student", then "fisher"); the benchmark calls that
function on the same per-topic values, so both sides are timed on the tests alone. ranx's Fisher test costs 0.1-0.2 s
per ordered pair and measure here, so by default it is timed on the first --ranx-runs runs and scaled by the number
of tests (`--ranx-runs 40` times all of it: 8-17 minutes on 2 cores). No database, no Django.

ranx is not a dependency of the product; install it for the benchmark only, in a virtualenv of its own:

    python3 -m venv /tmp/ranx-venv
    /tmp/ranx-venv/bin/pip install ranx==0.3.21 numpy==2.4.6 scipy==1.17.1 pytrec-eval-terrier==0.5.11
    /tmp/ranx-venv/bin/python bench/analysis.py
    .venv/bin/python bench/analysis.py            # without ranx: this product's side only
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys

import harness
import numpy as np

sys.path.insert(0, str(harness.ROOT))

from ir.statistics import significance  # noqa: E402

GOAL_SECONDS = 10.0
MEASURES = ("ndcg_prime", "map_prime", "p10_prime")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = harness.Parser(__doc__)
    parser.count("runs", 40, "runs")
    parser.count("topics", 100, "topics")
    parser.count("permutations", 10_000, "permutations of the randomization test")
    parser.add_argument("--seed", type=int, default=42)
    parser.count("repeat", 3, "timed rounds of this product's table")
    parser.count("ranx-runs", 6, "runs whose pairs ranx's Fisher test is timed on (all of them: --ranx-runs RUNS)")
    return parser.parse(argv)


def synthetic_values(runs: list[str], topics: list[str], seed: int) -> dict[str, dict[str, dict[str, float]]]:
    """measure -> run -> topic -> value in [0, 1]: a topic difficulty, a run strength and noise; the three measures
    of a run are correlated the way nDCG', MAP' and P'@10 are."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 2, size=len(topics))
    strength = np.linspace(-0.15, 0.15, len(runs))
    values: dict[str, dict[str, dict[str, float]]] = {}
    base = difficulty[None, :] + strength[:, None] + rng.normal(0, 0.15, size=(len(runs), len(topics)))
    for offset, measure in zip((0.1, -0.1, -0.15), MEASURES, strict=True):
        matrix = np.clip(base + offset + rng.normal(0, 0.05, size=base.shape), 0, 1)
        if measure == "p10_prime":
            matrix = np.round(matrix * 10) / 10  # P'@10 takes 11 values: ties between runs on a topic are common
        values[measure] = {run: dict(zip(topics, row.tolist(), strict=True)) for run, row in zip(runs, matrix,
                                                                                                 strict=True)}
    return values


def time_ranx(values, runs, topics, args) -> dict | None:
    try:
        from ranx.statistical_tests import compute_statistical_significance
    except ImportError:
        print("ranx is not installed in this interpreter: its side is skipped (see the docstring to install it).")
        return None
    from importlib.metadata import version

    scores = {run: {m: np.array([values[m][run][t] for t in topics]) for m in MEASURES} for run in runs}
    # numba compiles the Fisher test on first use (cached on disk after that): not part of the figure.
    compile_seconds, _, _ = harness.timed(compute_statistical_significance, runs[:2], {r: scores[r] for r in runs[:2]},
                                          stat_test="fisher", n_permutations=10, random_seed=args.seed)
    student_seconds, _, student = harness.timed(compute_statistical_significance, runs, scores, stat_test="student")
    subset = runs[:max(2, min(args.ranx_runs, len(runs)))]
    fisher_measured, _, fisher = harness.timed(compute_statistical_significance, subset,
                                               {r: scores[r] for r in subset}, stat_test="fisher",
                                               n_permutations=args.permutations, random_seed=args.seed)
    # ranx tests every ordered pair (a against b and b against a): n (n - 1) tests per measure.
    scale = (len(runs) * (len(runs) - 1)) / (len(subset) * (len(subset) - 1))
    return {"version": version("ranx"), "compile_seconds": compile_seconds,
            "student_seconds": student_seconds, "fisher_runs": len(subset), "fisher_measured_seconds": fisher_measured,
            "fisher_seconds": fisher_measured * scale, "fisher_scaled": scale != 1.0,
            "total_seconds": student_seconds + fisher_measured * scale, "student": student, "fisher": fisher}


def agreement(rows, ranx_result, permutations: int) -> list[dict]:
    """Our p-values beside ranx's on the pairs ranx's Fisher test was run on."""
    checks = []
    for row in rows:
        key = frozenset((row.run_a, row.run_b))
        if key not in ranx_result["fisher"]:
            continue
        p_student = float(ranx_result["student"][key][row.measure]["p_value"])
        p_fisher = float(ranx_result["fisher"][key][row.measure]["p_value"])
        p = (row.p_randomization + p_fisher) / 2
        # Two independent Monte Carlo estimates: their difference has a standard error of sqrt(2 p (1 - p) / N);
        # ours counts the identity ((c + 1) / (N + 1)), ranx does not (c / N): 1/N more.
        allowed = 4 * math.sqrt(2 * p * (1 - p) / permutations) + 2 / permutations
        checks.append({"pair": f"{row.run_a} {row.run_b}", "measure": row.measure, "p_ttest": row.p_ttest,
                       "ranx_student": p_student, "p_randomization": row.p_randomization, "ranx_fisher": p_fisher,
                       "ttest_equal": math.isclose(row.p_ttest, p_student, rel_tol=1e-9, abs_tol=1e-15),
                       "randomization_within_error": abs(row.p_randomization - p_fisher) <= allowed})
    return checks


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    runs = [f"team{n // 4:02d}-task1-run{n % 4}-auto-both-{'P' if n % 4 == 0 else 'A'}" for n in range(args.runs)]
    topics = [f"A.{301 + n}" for n in range(args.topics)]
    values = synthetic_values(runs, topics, args.seed)
    pairs = len(runs) * (len(runs) - 1) // 2
    print(f"{len(runs)} runs x {len(topics)} topics: {pairs} pairs x {len(MEASURES)} measures, "
          f"{args.permutations} permutations; load average {harness.load()}; {os.cpu_count()} cores")

    ours, rows = harness.rounds(args.repeat, lambda: significance(values, runs, topics,
                                                                  permutations=args.permutations, seed=args.seed))
    best = min(ours)
    verdict = "met" if best < GOAL_SECONDS else "NOT met"
    print(f"this product: {', '.join(f'{t:.2f}' for t in ours)} s (best {best:.2f} s, median "
          f"{statistics.median(ours):.2f} s); goal under {GOAL_SECONDS:.0f} s: {verdict}")

    result = {"runs": len(runs), "topics": len(topics),
              "pairs": pairs, "measures": len(MEASURES), "permutations": args.permutations, "seed": args.seed,
              "ours_seconds": ours, "load_average": os.getloadavg()}
    ranx_result = time_ranx(values, runs, topics, args)
    if ranx_result is not None:
        total = ranx_result["total_seconds"]
        scaled = (f" (timed on the {ranx_result['fisher_runs'] * (ranx_result['fisher_runs'] - 1)} ordered pairs of "
                  f"{ranx_result['fisher_runs']} runs: {ranx_result['fisher_measured_seconds']:.1f} s, scaled)"
                  if ranx_result["fisher_scaled"] else "")
        print(f"ranx {ranx_result['version']}: t-test {ranx_result['student_seconds']:.2f} s, Fisher "
              f"{ranx_result['fisher_seconds']:.1f} s{scaled}; total {total:.1f} s "
              f"(numba compile {ranx_result['compile_seconds']:.1f} s, not counted)")
        print(f"ratio this product / ranx: {best / total:.4f} ({total / best:.0f} times faster); goal at most as "
              f"long as ranx: {'met' if best <= total else 'NOT met'}")
        checks = agreement(rows, ranx_result, args.permutations)
        for check in checks[:6]:
            print(f"  {check['pair']} {check['measure']}: t-test {check['p_ttest']:.4g} / ranx "
                  f"{check['ranx_student']:.4g}; randomization {check['p_randomization']:.4f} / ranx "
                  f"{check['ranx_fisher']:.4f}")
        for measure in MEASURES:
            mine = [c for c in checks if c["measure"] == measure]
            print(f"{measure}: p-values of {len(mine)} pairs compared: t-test equal on "
                  f"{sum(c['ttest_equal'] for c in mine)}, randomization within Monte Carlo error on "
                  f"{sum(c['randomization_within_error'] for c in mine)}, ranx's lower on "
                  f"{sum(c['ranx_fisher'] < c['p_randomization'] for c in mine)}")
        print("(on values in tenths such as P'@10, ranx's floating-point comparison misses flips that tie with the "
              "observed difference: docs/analysis.md)")
        result["ranx"] = {k: v for k, v in ranx_result.items() if k not in ("student", "fisher")}
        result["agreement"] = checks
    harness.save("analysis", result, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])

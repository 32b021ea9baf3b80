"""People's and an LLM's judgments under one budget on synthetic pools of ARQMath's and Robust's shape
(docs/llm_calibration.md, "Replaying a budget"; docs/benchmarks.md): Kendall's tau-b of the runs' MAP' ranking under
hybrid qrels against the full qrels at 10%, 20% and 30% of the pool judged, for the bias-aware rule (`uncertain`),
random judging with the same calibrator, LARA's rule and the model alone, and the coverage of the 95% intervals.

    .venv/bin/python bench/llm_budget.py [--seeds N] [--replicates R]

Seeded: the same arguments print the same figures."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ir.agreement import cohen_kappa  # noqa: E402
from ir.budget_simulation import replay, run_means  # noqa: E402
from ir.calibration import lara_assess  # noqa: E402
from ir.hybrid import qrels_of  # noqa: E402
from ir.hybrid_intervals import per_topic_scorer  # noqa: E402
from ir.llm_simulation import CONFUSION, GRADE_SHARES, confusion_llm_grades, make_campaign  # noqa: E402
from ir.rankings import tau_b  # noqa: E402

SHARES = (0.1, 0.2, 0.3)
FAVOURED = 4  # runs the model over-grades
# name: (grades' shares, relevance level, confusion, favour confusion, campaign shape)
SHAPES = {
    "ARQMath-like": (GRADE_SHARES, 2, CONFUSION,
                     np.array([[0.15, 0.15, 0.40, 0.30], [0.10, 0.15, 0.40, 0.35], CONFUSION[2], CONFUSION[3]]),
                     {"topics": 25, "runs": 17, "documents": 150, "pool_depth": 20}),
    "Robust-like": ((0.80, 0.13, 0.07), 1,
                    np.array([[0.78, 0.15, 0.07], [0.30, 0.45, 0.25], [0.15, 0.30, 0.55]]),
                    np.array([[0.25, 0.45, 0.30], [0.30, 0.45, 0.25], [0.15, 0.30, 0.55]]),
                    {"topics": 40, "runs": 17, "documents": 150, "pool_depth": 20}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--replicates", type=int, default=60)
    args = parser.parse_args()
    print("shape\tseed\titems\tkappa\tmethod\tshare\ttau_b\tcoverage")
    for name, (shares, level, confusion, favour, shape) in SHAPES.items():
        for seed in range(1, args.seeds + 1):
            started = time.perf_counter()
            campaign = make_campaign(seed, shares=shares, **shape)
            favoured = list(campaign.runs)[:FAVOURED]
            said, probabilities = confusion_llm_grades(campaign.qrels, campaign.items, seed=seed, confusion=confusion,
                                                       runs=campaign.runs, favoured=favoured, top_k=20,
                                                       favour_confusion=favour, relevance_level=level)
            truth = np.array([campaign.qrels[t][i] for t, i in campaign.items])
            kappa = cohen_kappa(list(zip(said.tolist(), truth.tolist(), strict=True))).value
            model = {key: probabilities[i] for i, key in enumerate(campaign.items)}
            head = f"{name}\t{seed}\t{len(campaign.items)}\t{kappa:.3f}"
            rows = replay(campaign.qrels, campaign.runs, model, policies=("uncertain", "random"), shares=SHARES,
                          relevance_level=level, seed=seed, replicates=args.replicates)
            for row in rows:
                method = {"random": "random+model"}.get(row.policy, row.policy)
                print(f"{head}\t{method}\t{row.share:g}\t{row.tau_b:.3f}\t{row.coverage:.3f}")
            scorer = per_topic_scorer(campaign.runs, relevance_level=level)
            full = np.array([run_means(scorer(campaign.qrels), list(campaign.runs))])
            for share in SHARES:
                done = lara_assess(probabilities, lambda i, truth=truth: int(truth[i]), round(share * len(truth)))
                means = np.array([run_means(scorer(qrels_of(campaign.items, done.grades)), list(campaign.runs))])
                print(f"{head}\tLARA\t{share:g}\t{float(tau_b(full, means)[0]):.3f}\t")
            print(f"# {name} seed {seed}: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()

"""People's and an LLM's judgments under one budget (docs/llm_calibration.md, "Replaying a budget"; docs/benchmarks.md):
on synthetic pools of ARQMath's and Robust's shape (17 runs, a model of kappa about 0.3-0.45 against the truth that
over-grades four runs' top 20) and on the pool of the two real ARQMath-1 runs, Kendall's tau-b of the runs' MAP'
ranking under hybrid qrels against the full qrels at 10%, 20% and 30% of the pool judged, for the live `uncertain`
order, the `audited` rule, random judging with the same calibrator, LARA's rule and the model alone, and the share
of runs whose full-qrels mean is inside the 95% interval the leaderboard shows (topics and labels resampled) and
inside the labels-only one (the same topics).

    .venv/bin/python bench/llm_budget.py [--seeds N] [--replicates R] [--shapes ARQMath-like,Robust-like,ARQMath-1]
        [--data DIR]

Seeded: the same arguments print the same figures."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ir.agreement import cohen_kappa  # noqa: E402
from ir.budget_simulation import replay, run_means  # noqa: E402
from ir.calibration import lara_assess  # noqa: E402
from ir.formats.textio import open_binary  # noqa: E402
from ir.hybrid import qrels_of  # noqa: E402
from ir.hybrid_intervals import per_topic_scorer  # noqa: E402
from ir.llm_simulation import GRADE_SHARES, confusion_llm_grades, make_campaign, read_ranked_run  # noqa: E402
from ir.prime import natural_key  # noqa: E402
from ir.problems import Problems  # noqa: E402
from ir.rankings import tau_b  # noqa: E402

SHARES = (0.1, 0.2, 0.3)
POLICIES = ("uncertain", "audited", "random")
FAVOURED = 4  # runs the model over-grades
ARQMATH_CONFUSION = np.array([[0.80, 0.12, 0.05, 0.03], [0.25, 0.50, 0.17, 0.08], [0.08, 0.17, 0.55, 0.20],
                              [0.04, 0.08, 0.23, 0.65]])
ROBUST_CONFUSION = np.array([[0.85, 0.10, 0.05], [0.25, 0.55, 0.20], [0.10, 0.25, 0.65]])
# name: (grades' shares, relevance level, confusion, favour confusion, campaign shape)
SHAPES = {
    "ARQMath-like": (GRADE_SHARES, 2, ARQMATH_CONFUSION,
                     np.array([[0.15, 0.15, 0.40, 0.30], [0.10, 0.15, 0.40, 0.35], ARQMATH_CONFUSION[2],
                               ARQMATH_CONFUSION[3]]),
                     {"topics": 25, "runs": 17, "documents": 150, "pool_depth": 20}),
    "Robust-like": ((0.80, 0.13, 0.07), 1, ROBUST_CONFUSION,
                    np.array([[0.25, 0.45, 0.30], [0.20, 0.45, 0.35], ROBUST_CONFUSION[2]]),
                    {"topics": 40, "runs": 17, "documents": 150, "pool_depth": 20}),
}
REAL = "ARQMath-1"  # the two real runs on ARQMath-1's qrels, their top 20 per topic
# The real pool is 76% not relevant, and the favoured run's top 20 holds most of it: a milder bias and a sharper
# model keep the kappa in the range aimed at (about 0.33).
REAL_CONFUSION = np.array([[0.85, 0.09, 0.04, 0.02], [0.20, 0.60, 0.14, 0.06], [0.06, 0.14, 0.65, 0.15],
                           [0.03, 0.06, 0.18, 0.73]])
REAL_FAVOUR = np.array([[0.45, 0.15, 0.25, 0.15], [0.25, 0.30, 0.28, 0.17], REAL_CONFUSION[2], REAL_CONFUSION[3]])
REAL_RUNS = ("psu-task1-auto-both-A.tsv", "ensemble-task1.tsv")
REAL_QRELS = "qrels.arqmath-2020-task1.txt"


def real_campaign(data: Path):
    """The pool of the two real ARQMath-1 runs (each run's top 20 of every judged topic, the items the qrels judge)
    with the qrels' grades: (qrels, runs, items)."""
    known: dict[str, dict[str, int]] = {}
    for line in (data / "qrels" / REAL_QRELS).read_text().splitlines():
        topic, _, item, grade = line.split()
        known.setdefault(topic, {})[item] = int(grade)
    runs = {}
    for name in REAL_RUNS:
        with open_binary(data / "runs" / name) as stream:
            ranked = read_ranked_run(stream, Problems(file=name), known)
        runs[name.split(".")[0]] = {topic: [i for i in items if i in known[topic]][:20] for topic, items in
                                   ranked.items()}
    qrels = {topic: {} for topic in known}
    for per_topic in runs.values():
        for topic, items in per_topic.items():
            qrels[topic].update({item: known[topic][item] for item in items})
    qrels = {topic: grades for topic, grades in qrels.items() if grades}
    items = [(t, i) for t in sorted(qrels, key=natural_key) for i in sorted(qrels[t], key=natural_key)]
    return qrels, runs, items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--shapes", default=",".join([*SHAPES, REAL]))
    parser.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "arqmath",
                        help="the ARQMath files' folder (runs/, qrels/): the tests' cut copies unless told; the whole "
                             "runs are in the ARQMath data the project's README points to")
    args = parser.parse_args()
    print("shape\tseed\titems\tkappa\tmethod\tshare\ttau_b\tcoverage\tcoverage_labels")
    for name in args.shapes.split(","):
        shares, level, confusion, favour, shape = SHAPES.get(name, SHAPES["ARQMath-like"])
        for seed in range(1, args.seeds + 1):
            started = time.perf_counter()
            if name == REAL:
                qrels, runs, items = real_campaign(args.data)
                favoured, confusion, favour = [sorted(runs)[0]], REAL_CONFUSION, REAL_FAVOUR
            else:
                campaign = make_campaign(seed, shares=shares, **shape)
                qrels, runs, items = campaign.qrels, campaign.runs, campaign.items
                favoured = list(runs)[:FAVOURED]
            said, probabilities = confusion_llm_grades(qrels, items, seed=seed, confusion=confusion, runs=runs,
                                                       favoured=favoured, top_k=20, favour_confusion=favour,
                                                       relevance_level=level)
            truth = np.array([qrels[t][i] for t, i in items])
            kappa = cohen_kappa(list(zip(said.tolist(), truth.tolist(), strict=True))).value
            model = {key: probabilities[i] for i, key in enumerate(items)}
            head = f"{name}\t{seed}\t{len(items)}\t{kappa:.3f}"
            both = [replay(qrels, runs, model, policies=POLICIES, shares=SHARES, relevance_level=level, seed=seed,
                           replicates=args.replicates, resample_topics=resample) for resample in (True, False)]
            for row, labels in zip(*both, strict=True):
                method = {"random": "random+model"}.get(row.policy, row.policy)
                print(f"{head}\t{method}\t{row.share:g}\t{row.tau_b:.3f}\t{row.coverage:.3f}\t{labels.coverage:.3f}",
                      flush=True)
            scorer = per_topic_scorer(runs, relevance_level=level)
            full = np.array([run_means(scorer(qrels), list(runs))])
            for share in SHARES:
                done = lara_assess(probabilities, lambda i, truth=truth: int(truth[i]), round(share * len(truth)))
                means = np.array([run_means(scorer(qrels_of(items, done.grades)), list(runs))])
                print(f"{head}\tLARA\t{share:g}\t{float(tau_b(full, means)[0]):.3f}\t\t", flush=True)
            print(f"# {name} seed {seed}: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()

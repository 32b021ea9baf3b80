"""Evaluation benchmark: `evaluate --qrels` on 40 runs x 100 topics x 1000 rows against a 100-topic qrels, and in the
same process a direct pytrec_eval call on the same pre-filtered (prime) data.

Generates (seeded, into bench/out/evaluate/) ARQMath Task 1 run files whose rankings overlap the way real systems'
do, and a qrels file that judges the union of every run's top 20 per topic (grades mostly 0, as in ARQMath). Then,
alternately for --rounds rounds:

- product: `evaluation.services.evaluate_files` with the reader processes the command gives it (`files_workers`):
  what `manage.py evaluate --qrels FILE RUN...` runs. It reads and checks every run file, applies the prime filter
  (first occurrence, judged only, Unjudged@10), and computes nDCG', MAP' and P'@10 through pytrec_eval;
- product, one process: the same with `workers=1` (the reading not spread over the cores);
- product, measures only: `Evaluator` (two pytrec_eval evaluators) and `scores` on the 40 prime runs, already
  filtered: the cost of our wrapper around pytrec_eval;
- reference: pytrec_eval called directly on the same prime runs (dicts built before the clock starts): two
  `RelevanceEvaluator`s (ndcg; map and P_10 at relevance level 2) and `evaluate` for each run.

Both sides' means are compared run by run (equal within 1e-12: our means are math.fsum sums, the reference's plain
sums). The goal of issue 5 is product / reference <= 1.3.

With --campaign, also the campaign path (`evaluate --campaign`, the leaderboard's `evaluate_campaign`): the same runs
ingested into a campaign of a PostgreSQL database (DATABASE_URL, by default `assess_bench_eval`, created and
migrated if missing) with the qrels as one assessor's official judgments, set up once per shape and reused; each
round then reads the qrels from the judgments and every run's rows from the database. Its means must equal the
file path's.

    .venv/bin/python bench/evaluate.py                      # 40 runs x 100 topics x 1000 rows, 3 rounds
    .venv/bin/python bench/evaluate.py --runs 4 --rounds 1  # quick
    .venv/bin/python bench/evaluate.py --campaign           # and the campaign path (first time: about 15 s of ingest)
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/assess_bench_eval")  # --campaign only

import django  # noqa: E402

django.setup()

import pytrec_eval  # noqa: E402

from evaluation import scanner  # noqa: E402
from evaluation.prime import MAP, NDCG, P10, Evaluator, prime_answers  # noqa: E402
from evaluation.services import evaluate_files, files_workers  # noqa: E402

GOAL = 1.3
QRELS_DEPTH = 20  # every run's top 20 per topic is judged


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--depth", type=int, default=1000, help="rows per topic and run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "evaluate")
    parser.add_argument("--campaign", action="store_true", help="also the campaign path (needs PostgreSQL)")
    return parser.parse_args(argv)


def generate(args: argparse.Namespace) -> tuple[Path, list[Path]]:
    """Run files and qrels, made once per shape (reused when present)."""
    folder = args.out / f"r{args.runs}-t{args.topics}-d{args.depth}-s{args.seed}"
    qrels_path = folder / "qrels.txt"
    run_paths = [folder / f"run{i:02d}.tsv" for i in range(args.runs)]
    if qrels_path.exists() and all(p.exists() for p in run_paths):
        return qrels_path, run_paths
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    candidates = args.depth * 3
    judged: list[dict[str, int]] = [{} for _ in range(args.topics)]
    # Each topic has candidate posts with a shared "true" score; each run adds its own noise, so the runs agree
    # at the top more than further down, as real systems do.
    base = rng.normal(size=(args.topics, candidates))
    for i, path in enumerate(run_paths):
        lines = []
        for t in range(args.topics):
            scores = base[t] + rng.normal(scale=0.8, size=candidates)
            order = np.argsort(-scores)[: args.depth]
            topic = f"A.{t + 1}"
            for rank, c in enumerate(order, 1):
                post = str(1_000_000 * (t + 1) + int(c))
                lines.append(f"{topic}\t{post}\t{rank}\t{scores[c]:.6f}\trun{i:02d}\n")
                if rank <= QRELS_DEPTH and post not in judged[t]:
                    judged[t][post] = int(rng.choice(4, p=[0.55, 0.2, 0.15, 0.1]))
        path.write_text("".join(lines))
    qrels_path.write_text("".join(f"A.{t + 1}\t0\t{post}\t{grade}\n"
                                  for t in range(args.topics) for post, grade in judged[t].items()))
    return qrels_path, run_paths


def read_plain(qrels_path: Path, run_paths: list[Path]):
    """The same data as plain dicts, outside the clock: qrels, and each run's prime run as pytrec_eval takes it."""
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_path.read_text().splitlines():
        topic, _zero, doc, grade = line.split("\t")
        qrels.setdefault(topic, {})[doc] = int(grade)
    primes = []
    for path in run_paths:
        rows = []
        for line in path.read_text().splitlines():
            topic, doc, _rank, score, _tag = line.split("\t")
            rows.append((topic, doc, float(score)))
        primes.append(prime_answers(rows, qrels))
    return qrels, primes


def reference(qrels, primes) -> list[dict[str, float]]:
    ndcg = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"})
    binary = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10"}, relevance_level=2)
    means = []
    for prime in primes:
        a, b = ndcg.evaluate(prime.run), binary.evaluate(prime.run)
        n = len(a)
        means.append({NDCG: sum(v["ndcg"] for v in a.values()) / n, MAP: sum(v["map"] for v in b.values()) / n,
                      P10: sum(v["P_10"] for v in b.values()) / n})
    return means


def measures_only(qrels, primes):
    evaluator = Evaluator(qrels)
    return [evaluator.scores(f"run{i:02d}", prime) for i, prime in enumerate(primes)]


def campaign_setup(args: argparse.Namespace, qrels: dict[str, dict[str, int]], run_paths: list[Path]):
    """The campaign of this shape, made once: topics, the runs ingested, the qrels as official judgments."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from assessor.models import Assignment, Judgment
    from pooling.models import Campaign, Run, Topic
    from pooling.services import campaign_create, run_ingest

    sys.path.insert(0, str(ROOT / "bench"))
    import ingest as bench_ingest

    bench_ingest._server(create=True)
    call_command("migrate", interactive=False, verbosity=0)
    name = f"bench-eval-r{args.runs}-t{args.topics}-d{args.depth}-s{args.seed}"
    campaign = Campaign.objects.filter(name=name).first()
    if campaign is not None and Run.objects.filter(campaign=campaign).count() == len(run_paths) and \
            Judgment.objects.filter(assignment__campaign=campaign).count() == sum(map(len, qrels.values())):
        return campaign
    if campaign is not None:
        sys.exit(f"campaign {name} in {os.environ['DATABASE_URL']} is incomplete: drop the database and run again")
    start = time.perf_counter()
    campaign = campaign_create(name=name, task="answers", max_depth=args.depth)
    Topic.objects.bulk_create(Topic(campaign=campaign, topic_id=f"A.{t + 1}", position=t) for t in range(args.topics))
    for path in run_paths:
        run_ingest(campaign=campaign, path=path)
    user, _ = get_user_model().objects.get_or_create(username="bench-eval-assessor")
    now = timezone.now()
    with transaction.atomic():
        for topic in Topic.objects.filter(campaign=campaign):
            assignment = Assignment.objects.create(campaign=campaign, topic=topic, assessor=user,
                                                   kind=Assignment.Kind.OFFICIAL)
            Judgment.objects.bulk_create(
                Judgment(assignment=assignment, item_id=item, post_id=item, grade=str(grade), submitted_at=now,
                         updated_at=now) for item, grade in qrels.get(topic.topic_id, {}).items())
    print(f"campaign {name} set up in {time.perf_counter() - start:.0f} s")
    return campaign


def timed(fn, *a, **kw):
    start = time.perf_counter()
    result = fn(*a, **kw)
    return time.perf_counter() - start, result


def cpu_seconds() -> float:
    """CPU time of this process and of its ended children (the reader processes, once their pool is shut down)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def numpy_only(fn, *a, **kw):
    """fn without runscan.c: the whole-file reader's numpy code alone."""
    with scanner.unloaded():
        return fn(*a, **kw)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    start = time.perf_counter()
    qrels_path, run_paths = generate(args)
    rows = args.runs * args.topics * args.depth
    print(f"data: {args.runs} runs x {args.topics} topics x {args.depth} rows = {rows:,} rows "
          f"({sum(p.stat().st_size for p in run_paths) / 1e6:.0f} MB), qrels {qrels_path.stat().st_size / 1e3:.0f} kB"
          f" (ready in {time.perf_counter() - start:.1f} s)")
    qrels, primes = read_plain(qrels_path, run_paths)
    judged = sum(len(v) for v in qrels.values())
    kept = sum(len(items) for prime in primes for items in prime.run.values())
    print(f"qrels: {judged:,} judgments in {len(qrels)} topics; prime runs keep {kept:,} of {rows:,} rows")

    workers = files_workers(run_paths=run_paths)  # what the command passes
    print(f"reader processes: {workers} (load average before: {os.getloadavg()[0]:.2f})")
    print("reader: " + ("runscan.c (evaluation/_runscan.so), and numpy" if scanner.loaded() else
                        "numpy only: evaluation/_runscan.so is not built (make install)"))
    product, serial, wrapper, ref, cpu_product, cpu_ref, without = [], [], [], [], [], [], []
    for r in range(args.rounds):
        cpu = cpu_seconds()
        t_product, evaluation = timed(evaluate_files, qrels_path=qrels_path, run_paths=run_paths, workers=workers)
        cpu_product.append(cpu_seconds() - cpu)
        t_serial, evaluation_serial = timed(evaluate_files, qrels_path=qrels_path, run_paths=run_paths, workers=1)
        t_wrapper, _ = timed(measures_only, qrels, primes)
        cpu = cpu_seconds()
        t_ref, ref_means = timed(reference, qrels, primes)
        cpu_ref.append(cpu_seconds() - cpu)
        product.append(t_product)
        serial.append(t_serial)
        wrapper.append(t_wrapper)
        ref.append(t_ref)
        line = (f"round {r + 1}: product {t_product:.3f} s (CPU {cpu_product[-1]:.3f} s), product one process "
                f"{t_serial:.3f} s, product measures only {t_wrapper:.3f} s, pytrec_eval direct {t_ref:.3f} s (CPU "
                f"{cpu_ref[-1]:.3f} s)")
        if scanner.loaded():
            t_without, evaluation_without = timed(numpy_only, evaluate_files, qrels_path=qrels_path,
                                                  run_paths=run_paths, workers=workers)
            without.append(t_without)
            line += f", product without runscan.c {t_without:.3f} s"
            if [s.means for s in evaluation_without.runs] != [s.means for s in evaluation.runs]:
                print("MISMATCH between the product's scores with and without runscan.c")
                return 1
        print(line)
        if [s.means for s in evaluation_serial.runs] != [s.means for s in evaluation.runs]:
            print("MISMATCH between the product's parallel and one-process scores")
            return 1
        for scores, expected in zip(evaluation.runs, ref_means, strict=True):
            for measure, value in expected.items():
                if abs(scores.means[measure] - value) > 1e-12:
                    print(f"MISMATCH {scores.name} {measure}: {scores.means[measure]} != {value}")
                    return 1
    p, w, f = statistics.median(product), statistics.median(wrapper), statistics.median(ref)
    s = statistics.median(serial)
    print(f"medians of {args.rounds}: product {p:.3f} s ({rows / p:,.0f} rows/s), product one process {s:.3f} s, "
          f"measures only {w:.3f} s, pytrec_eval direct {f:.3f} s")
    print(f"ratio product / pytrec_eval direct: {p / f:.2f} (goal <= {GOAL}: {'met' if p / f <= GOAL else 'MISSED'})")
    print(f"ratio product one process / pytrec_eval direct: {s / f:.2f}")
    print(f"ratio measures only / pytrec_eval direct: {w / f:.2f}")
    cp, cf = statistics.median(cpu_product), statistics.median(cpu_ref)
    print(f"CPU, all processes: product {cp:.3f} s, pytrec_eval direct {cf:.3f} s (ratio {cp / cf:.2f})")
    if without:
        m = statistics.median(without)
        print(f"product without runscan.c (numpy only): {m:.3f} s, ratio {m / f:.2f}; the same means")
    print("means equal to pytrec_eval's within 1e-12 for every run and measure; the one-process product's identical")
    if args.campaign:
        from evaluation.services import campaign_workers, evaluate_campaign

        campaign = campaign_setup(args, qrels, run_paths)
        expected = {s.name.removesuffix(".tsv"): s.means for s in evaluation.runs}
        workers = campaign_workers(campaign=campaign)
        times, serial_times, refs = [], [], []
        print(f"campaign path, {workers} processes as the command takes them (load average before: "
              f"{os.getloadavg()[0]:.2f})")
        for r in range(args.rounds):
            t_campaign, result = timed(evaluate_campaign, campaign=campaign, workers=workers)
            t_serial, result_serial = timed(evaluate_campaign, campaign=campaign, workers=1)
            t_ref, _ = timed(reference, qrels, primes)
            times.append(t_campaign)
            serial_times.append(t_serial)
            refs.append(t_ref)
            print(f"round {r + 1}: evaluate --campaign {t_campaign:.3f} s, one process {t_serial:.3f} s, "
                  f"pytrec_eval direct {t_ref:.3f} s")
            for found in (result, result_serial):
                if {s.name: s.means for s in found.runs} != expected:
                    print("MISMATCH between the campaign's scores and the files'")
                    return 1
        c, cs, f = statistics.median(times), statistics.median(serial_times), statistics.median(refs)
        print(f"medians of {args.rounds}: evaluate --campaign {c:.3f} s ({rows / c:,.0f} rows/s), one process "
              f"{cs:.3f} s, pytrec_eval direct {f:.3f} s; ratios {c / f:.2f} and {cs / f:.2f}; the same means as "
              "the files'")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Judging orders on synthetic pools of many runs (issue 27): writes the runs and complete qrels, replays each policy
(ir/pools/simulate.py, what `simulate_judging` prints), and checks the progress page's estimate of what is left
(ir/pools/stopping.py) against the truth at 25, 50 and 75% of each pool judged.

The synthetic topics: D documents, of which 1-4% relevant (grade 2 or 3) and as many marginal (grade 1); every
run scores a document as quality x its grade's signal + the document's prominence (shared by all runs, so pools
overlap as real ones do) + noise of its own, quality drawn per run from 0.2 to 1.5 (a few strong runs, many weak).
The files land in bench/out/adaptive/ (or --files DIR), so the same pools can be replayed by the command:

    .venv/bin/python bench/adaptive.py                                  # 40 runs x 50 topics, depth 20
    .venv/bin/python manage.py simulate_judging --qrels bench/out/adaptive/qrels.txt --depth 20 \
        --policy random --policy move-to-front --policy bandit bench/out/adaptive/run*.tsv
    .venv/bin/python bench/adaptive.py --draw OUT.tsv --svg OUT.svg [--png OUT.png]   # a simulate_judging output
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ir.charts import found_curves  # noqa: E402
from ir.grades import is_relevant  # noqa: E402
from ir.pools.adaptive import POLICIES  # noqa: E402
from ir.pools.simulate import PolicyResult, simulate, summary_lines  # noqa: E402
from ir.pools.stopping import knee_advice, unfound_estimate  # noqa: E402

SIGNAL = {0: 0.0, 1: 1.0, 2: 2.0, 3: 2.5}


def generate(*, runs: int, topics: int, docs: int, keep: int, seed: int
             ) -> tuple[dict[str, dict[str, list[str]]], dict[str, dict[str, int]]]:
    """(run -> topic -> its first `keep` document ids, best first; topic -> document -> grade, every document)."""
    rng = random.Random(seed)
    quality = {f"run{r:02d}": rng.uniform(0.2, 1.5) for r in range(1, runs + 1)}
    ranked: dict[str, dict[str, list[str]]] = {run: {} for run in quality}
    qrels: dict[str, dict[str, int]] = {}
    for t in range(1, topics + 1):
        topic = f"S.{t}"
        share = rng.uniform(0.01, 0.04)
        grades = {}
        for d in range(docs):
            u = rng.random()
            grades[f"{t}-{d}"] = (3 if u < share / 3 else 2) if u < share else (1 if u < 2 * share else 0)
        qrels[topic] = grades
        prominence = {doc: rng.gauss(0, 1.0) for doc in grades}
        for run, q in quality.items():
            scored = [(q * SIGNAL[grade] + prominence[doc] + rng.gauss(0, 1.0), doc) for doc, grade in grades.items()]
            scored.sort(reverse=True)
            ranked[run][topic] = [doc for _, doc in scored[:keep]]
    return ranked, qrels


def write_files(folder: Path, ranked: dict[str, dict[str, list[str]]], qrels: dict[str, dict[str, int]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "qrels.txt", "w") as out:
        for topic, grades in qrels.items():
            out.writelines(f"{topic}\t0\t{doc}\t{grade}\n" for doc, grade in grades.items())
    for run, per_topic in ranked.items():
        with open(folder / f"{run}.tsv", "w") as out:
            for topic, docs in per_topic.items():
                out.writelines(f"{topic}\tQ0\t{doc}\t{rank}\t{1000 - rank}\t{run}\n"
                               for rank, doc in enumerate(docs, 1))


def estimate_check(results, ranked, qrels, depth: int, relevance_level: int) -> list[str]:
    """For each policy and share judged: the estimate's mean error and how often the 95% interval held the truth."""
    from ir.pools.posts import pool_answers
    lines = []
    for result in results:
        for share in (0.25, 0.5, 0.75):
            held = 0
            errors = []
            for topic, order in result.orders.items():
                lists = {run: per_topic[topic] for run, per_topic in ranked.items() if per_topic.get(topic)}
                pool = pool_answers(lists, dict.fromkeys(lists, depth))
                cut = order[:int(len(order) * share)]
                judged = {item: is_relevant(qrels[topic].get(item, 0), relevance_level) for item in cut}
                truth = sum(1 for item in order[len(cut):] if is_relevant(qrels[topic].get(item, 0), relevance_level))
                estimate = unfound_estimate(pool, judged)
                held += estimate.low <= truth <= estimate.high
                errors.append(estimate.expected - truth)
            lines.append(f"# {result.policy} at {share:.0%} judged: unfound estimate minus truth, mean "
                         f"{sum(errors) / len(errors):+.2f}, mean |error| {sum(map(abs, errors)) / len(errors):.2f}; "
                         f"95% interval held the truth in {held} of {len(errors)} topics\n")
    return lines


def write_svg(path: Path, results, title: str) -> None:
    """The curves as a standalone SVG, from the geometry the planner page draws (ir.charts.found_curves)."""
    c = found_curves([(r.policy, r.curve) for r in results])
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {c["width"]} {c["height"]}" '
             f'width="{c["width"]}" height="{c["height"]}" font-family="sans-serif" font-size="12">',
             f"<title>{title}</title>", '<rect width="100%" height="100%" fill="white"/>',
             f'<line x1="{c["left"]}" y1="{c["top"]}" x2="{c["left"]}" y2="{c["base"]}" stroke="#6b7280"/>',
             f'<line x1="{c["left"]}" y1="{c["base"]}" x2="{c["plot_right"]}" y2="{c["base"]}" stroke="#6b7280"/>',
             f'<line x1="{c["left"]}" y1="{c["target_y"]}" x2="{c["plot_right"]}" y2="{c["target_y"]}" '
             'stroke="#d1d5db" stroke-dasharray="3 3"/>',
             f'<text x="{c["left"] + 6}" y="{c["target_y"] - 4}" fill="#6b7280">90% found</text>']
    for t in c["ticks"]:
        parts.append(f'<text x="{c["left"] - 6}" y="{t["y"] + 4}" text-anchor="end" fill="#6b7280">{t["label"]}</text>')
        parts.append(f'<text x="{t["x"]}" y="{c["tick_y"]}" text-anchor="middle" fill="#6b7280">{t["label"]}</text>')
    parts.append(f'<text x="{c["left"]}" y="{c["label_y"]}" fill="#6b7280">pool judged</text>')
    parts.append(f'<text x="14" y="{c["mid_y"]}" transform="rotate(-90 14 {c["mid_y"]})" text-anchor="middle" '
                 'fill="#6b7280">relevant found</text>')
    for line in c["lines"]:
        dash = f' stroke-dasharray="{line["dash"]}"' if line["dash"] else ""
        parts.append(f'<polyline points="{line["points"]}" fill="none" stroke="{line["colour"]}" '
                     f'stroke-width="2.5"{dash}/>')
        parts.append(f'<line x1="{c["legend_x"]}" y1="{line["legend_y"]}" x2="{c["legend_x"] + 24}" '
                     f'y2="{line["legend_y"]}" stroke="{line["colour"]}" stroke-width="2.5"{dash}/>')
        parts.append(f'<text x="{c["legend_x"] + 30}" y="{line["legend_y"] + 4}">{line["policy"]}</text>')
    parts.append("</svg>\n")
    path.write_text("\n".join(parts))


def knee_check(results, qrels, relevance_level: int) -> list[str]:
    """Where the knee rule would stop each topic (checked every 5 judgments): the share judged and the recall then."""
    lines = []
    for result in results:
        shares, recalls, never = [], [], 0
        for topic, order in result.orders.items():
            gains = [is_relevant(qrels[topic].get(item, 0), relevance_level) for item in order]
            if not any(gains):
                continue
            stop = next((n for n in range(5, len(order) + 1, 5) if knee_advice(gains[:n], len(order)).stop), None)
            if stop is None:
                never += 1
                continue
            shares.append(stop / len(order))
            recalls.append(sum(gains[:stop]) / sum(gains))
        if shares:
            lines.append(f"# {result.policy} knee rule: stops {len(shares)} topics after "
                         f"{sum(shares) / len(shares):.0%} of the pool (mean), recall then "
                         f"{sum(recalls) / len(recalls):.0%} (mean), lowest "
                         f"{min(recalls):.0%}; never stops {never}\n")
        else:
            lines.append(f"# {result.policy} knee rule: never stops ({never} topics)\n")
    return lines


def svg_to_png(svg: Path, png: Path) -> None:
    """The help pages show PNGs: the SVG drawn by headless Chromium (Debian's, as the browser tests use it)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 640, "height": 320}, device_scale_factor=2)
        page.goto(svg.resolve().as_uri())
        page.screenshot(path=str(png))
        browser.close()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--docs", type=int, default=2000, help="documents per topic")
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warm-up", type=int, default=0)
    parser.add_argument("--budget", type=int)
    parser.add_argument("--svg", type=Path, help="also draw the curves into this SVG file")
    parser.add_argument("--png", type=Path, help="and into this PNG file (headless Chromium), for docs/img")
    parser.add_argument("--draw", type=Path, metavar="TSV",
                        help="only draw --svg from simulate_judging's output (the real runs' curves in docs)")
    parser.add_argument("--title", default="", help="the drawing's title (with --draw)")
    parser.add_argument("--files", type=Path, default=Path(__file__).resolve().parent / "out" / "adaptive")
    args = parser.parse_args(argv)
    if args.draw:
        curves: dict[str, list[tuple[float, float]]] = {}
        for line in args.draw.read_text().splitlines()[1:]:
            if not line.startswith("#"):
                policy, judged, found = line.split("\t")
                curves.setdefault(policy, []).append((float(judged), float(found)))
        write_svg(args.svg, [PolicyResult(policy, curve, None) for policy, curve in curves.items()], args.title)
        if args.png:
            svg_to_png(args.svg, args.png)
        return
    ranked, qrels = generate(runs=args.runs, topics=args.topics, docs=args.docs, keep=max(args.depth, 100),
                             seed=args.seed)
    write_files(args.files, ranked, qrels)
    started = time.perf_counter()
    results = simulate(ranked, qrels, depth=args.depth, policies=POLICIES, seed=args.seed, warm_up=args.warm_up,
                       budget=args.budget)
    seconds = time.perf_counter() - started
    sizes = [len(order) for order in results[0].orders.values()]
    sys.stdout.writelines(summary_lines(results))
    print(f"# {args.runs} runs, {args.topics} topics, depth {args.depth}: pools of {min(sizes)}-{max(sizes)} items "
          f"(mean {sum(sizes) / len(sizes):.0f}); {len(POLICIES)} policies replayed in {seconds:.1f} s")
    sys.stdout.writelines(estimate_check(results, ranked, qrels, args.depth, 2))
    sys.stdout.writelines(knee_check(results, qrels, 2))
    if args.svg:
        write_svg(args.svg, results, f"Synthetic pools: {args.runs} runs, {args.topics} topics, depth {args.depth}")
        if args.png:
            svg_to_png(args.svg, args.png)


if __name__ == "__main__":
    main(sys.argv[1:])

"""The corpus pass of a pool-only collection (ir.formats.corpus.read_corpus) against a bare json.loads pass.

Writes a JSONL corpus shaped like MS MARCO v2.1 segmented (docid first, url, title, headings, a segment of about 600
characters, offsets) to bench/out/, then times, each in a child process of its own so that its peak RSS is its own:
the fetch pass for a pool of --pool ids spread over the file (read_corpus, and each found document made into the
post body it is stored as), and a bare `for line in f: json.loads(line)` over the same file. Prints the ratio
(goal: at most 1.5) and both peak RSS. No database: storing the ~20,000 found documents is one COPY, measured by
bench/ingest.py's figures, not here.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import Parser, code_version, load, note, save, table  # noqa: E402

WORDS = ("the of and to in is was for on that with as by at from his an were are which this be or had first one "
         "their its new after but who not they have her she two been other when there all during into school "
         "time may years more most only over city some world would where later up such used many can state about "
         "national out known university united then made").split()


def corpus_path(out: Path, docs: int) -> Path:
    return out / f"corpus-{docs}.jsonl"


def generate(path: Path, docs: int) -> None:
    rng = random.Random(24)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for n in range(docs):
            doc, segment = divmod(n, 8)
            text = " ".join(rng.choices(WORDS, k=100))
            f.write(json.dumps({"docid": f"msmarco_v2.1_doc_{doc // 100000:02d}_{doc}#{segment}",
                                "url": f"https://example.org/{doc}", "title": f"Document {doc}",
                                "headings": "Heading\nSubheading", "segment": text,
                                "start_char": segment * 600, "end_char": segment * 600 + len(text)}) + "\n")


def pool_ids(docs: int, pool: int) -> set[str]:
    rng = random.Random(7)
    ids = set()
    for n in rng.sample(range(docs), pool):
        doc, segment = divmod(n, 8)
        ids.add(f"msmarco_v2.1_doc_{doc // 100000:02d}_{doc}#{segment}")
    return ids


def child(kind: str, path: Path, docs: int, pool: int) -> None:
    """One pass, in this process: prints its wall seconds, peak RSS (MiB) and what it found, as JSON."""
    if kind == "fetch":
        from ir.formats.corpus import read_corpus
        from ir.formats.textio import text_html

        wanted = pool_ids(docs, pool)
        start = time.perf_counter()
        problems: list = []
        found = sum(1 for doc in read_corpus(path, wanted, problems) if text_html(doc.text))
    else:
        start = time.perf_counter()
        found = 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                json.loads(line)
                found += 1
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mib": peak, "found": found}))


def run_child(kind: str, path: Path, docs: int, pool: int) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", kind, "--docs", str(docs), "--pool", str(pool),
                           "--out", str(path.parent)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(argv: list[str]) -> None:
    parser = Parser(__doc__ or "")
    parser.count("docs", 1_000_000, "documents in the corpus")
    parser.count("pool", 20_000, "pooled ids to fetch")
    parser.count("rounds", 3, "rounds of both passes (medians reported)")
    parser.add_argument("--child", choices=["fetch", "bare"], help=argparse.SUPPRESS)
    args = parser.parse(argv)
    path = corpus_path(args.out, args.docs)
    if args.child:
        child(args.child, path, args.docs, args.pool)
        return
    if not path.exists():
        note(f"writing {path}")
        generate(path, args.docs)
    load_before = load()
    results: dict[str, list[dict]] = {"fetch": [], "bare": []}
    for n in range(args.rounds):
        for kind in ("bare", "fetch") if n % 2 else ("fetch", "bare"):
            results[kind].append(run_child(kind, path, args.docs, args.pool))
            note(f"round {n + 1} {kind}: {results[kind][-1]['seconds']:.2f} s")
    median = {kind: statistics.median(r["seconds"] for r in runs) for kind, runs in results.items()}
    peak = {kind: max(r["peak_mib"] for r in runs) for kind, runs in results.items()}
    figures = {"docs": args.docs, "pool": args.pool, "file_mib": path.stat().st_size / 2**20,
               "found": results["fetch"][0]["found"], "median_seconds": median, "peak_rss_mib": peak,
               "ratio": median["fetch"] / median["bare"], "load_before": load_before, "load_after": load(),
               "cores": str(os.cpu_count()), "python": sys.version.split()[0],
               "code": code_version("ir/formats/corpus.py", "pooling/services/corpus.py")}
    save("corpus", figures, args.out)
    print(f"{args.docs:,} documents ({figures['file_mib']:.0f} MiB), {args.pool:,} pooled ids "
          f"({figures['found']:,} found); load {load_before} before, {figures['load_after']} after; "
          f"code {figures['code']}\n")
    print(table(["pass", "median s", "peak RSS MiB"],
                [["fetch (read_corpus + post bodies)", f"{median['fetch']:.2f}", f"{peak['fetch']:.0f}"],
                 ["bare json.loads per line", f"{median['bare']:.2f}", f"{peak['bare']:.0f}"]]))
    print(f"\nratio fetch / bare: {figures['ratio']:.2f} (goal <= 1.5)")


if __name__ == "__main__":
    main(sys.argv[1:])

"""How tests/data/arqmath/ was made from the full ARQMath files (see README.md): run once by hand, not by the tests.

    .venv/bin/python tests/data/arqmath/cut.py FULL_ARQMATH_DIR

Small files are copied whole; runs keep the rows of their first five topics (whole topics, 1000 rows each);
qrels keep the rows of a few topics (the topics of the cut runs for the 2020 files). Line ends, the missing final
line break of some files, and the rows themselves are kept byte for byte.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WHOLE = [
    "posts/posts_sample.xml",
    "formulas/formula_index_v2_sample.tsv",
    "topics/topics.arqmath-2020-task1-origin.xml",
    "topics/topics.arqmath-2020-task2-origin.xml",
    "topics/topics.arqmath-2022-task1-or-task3-origin.xml",
    "topics/topics.arqmath-2022-task2-origin.xml",
    "topics/task1_formulas_2022_formulas_latex.tsv",
    "topics/task1_formulas_2022_formulas_slt.tsv",
]
RUNS = ["runs/psu-task1-auto-both-A.tsv", "runs/ensemble-task1.tsv", "runs/ensemble-task2.tsv"]
RUN_TOPICS = 5
TASK1_2020 = {"A.1", "A.2", "A.3", "A.4", "A.5"}
TASK2_2020 = {"B.1", "B.2", "B.3", "B.4", "B.6"}
QRELS = {
    "qrels/qrels.arqmath-2020-task1.txt": TASK1_2020,
    "qrels/qrels.arqmath-2020-task2.txt": TASK2_2020,
    "qrels/qrels.arqmath-2021-task1-official.txt": {"A.201", "A.202", "A.203"},
    "qrels/qrels.arqmath-2021-task2-official.txt": {"B.201", "B.202", "B.203"},
    "qrels/qrels.arqmath-2022-task1-official.txt": {"A.301", "A.302", "A.303"},
    "qrels/qrels.arqmath-2022-task2-official.v3.txt": {"B.301", "B.302", "B.303"},
}


def topic_of(line: bytes) -> str:
    return line.split(None, 1)[0].decode() if line.strip() else ""


def write_lines(target: Path, lines: list[bytes], source: bytes) -> None:
    data = b"".join(lines)
    if not source.endswith(b"\n"):  # keep a missing final line break missing
        data = data.rstrip(b"\r\n")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def main(full: Path) -> None:
    for name in WHOLE:
        (HERE / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(full / name, HERE / name)
    for name in RUNS:
        source = (full / name).read_bytes()
        seen: list[str] = []
        kept = []
        for line in source.splitlines(keepends=True):
            topic = topic_of(line)
            if topic not in seen:
                seen.append(topic)
            if len(seen) > RUN_TOPICS:
                break
            kept.append(line)
        write_lines(HERE / name, kept, source)
    for name, topics in QRELS.items():
        source = (full / name).read_bytes()
        kept = [line for line in source.splitlines(keepends=True) if topic_of(line) in topics]
        write_lines(HERE / name, kept, source)


if __name__ == "__main__":
    main(Path(sys.argv[1]))

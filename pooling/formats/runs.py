"""Run files: ARQMath Task 1 (5 columns), ARQMath Task 2 (6 columns) and TREC (6 columns, `Q0`).

The shape is detected from the first row. Rows are validated and yielded one by one so that the
caller can stream them into the database while the rest of the file is still being read.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import BinaryIO, NamedTuple

from pooling.errors import Problems

from .textio import ID_MAX, iter_lines

ARQMATH_TASK1 = "arqmath1"
ARQMATH_TASK2 = "arqmath2"
TREC = "trec"

RANK_MAX = 2**31 - 1

SHAPES = {
    ARQMATH_TASK1: "topic post_id rank score run_tag",
    ARQMATH_TASK2: "topic formula_id post_id rank score run_tag",
    TREC: "topic Q0 doc_id rank score run_tag",
}
# Which shapes a campaign of each task accepts.
TASK_FORMATS = {"answers": (ARQMATH_TASK1, TREC), "formulas": (ARQMATH_TASK2, TREC)}


class RunRow(NamedTuple):
    line: int
    topic_id: str
    item_id: str
    post_id: str
    rank: int
    score: float
    tag: str


@dataclass
class RunSummary:
    """What the reader learned about a file besides its rows; filled while reading."""

    format: str = ""
    rows: int = 0
    tags: dict[str, int] = field(default_factory=dict)
    topic_rows: dict[str, int] = field(default_factory=dict)


def detect_format(fields: list[str]) -> str | None:
    if len(fields) == 5:
        return ARQMATH_TASK1
    if len(fields) == 6:
        return TREC if fields[1] == "Q0" else ARQMATH_TASK2
    return None


def read_run(
    stream: BinaryIO,
    problems: Problems,
    warnings: Problems,
    *,
    topics: Mapping[str, object],
    task: str,
    max_depth: int = 1000,
    summary: RunSummary | None = None,
) -> Iterator[RunRow]:
    """Yields the valid rows of a run file; problems and warnings go to the collectors.

    `topics` maps the campaign's topic ids to anything (their keys are what counts). Warnings about
    the whole file (uncovered topics, several tags, rank/score disagreement) are added at the end.
    """
    summary = summary if summary is not None else RunSummary()
    seen: dict[str, dict[str, int]] = {}  # topic -> item -> line, for duplicates
    ranked: dict[str, list[tuple[int, float, int]]] = {}  # topic -> (rank, score, line)
    unknown_topics: dict[str, int] = {}
    fmt = None
    ncols = 0
    for lineno, text in iter_lines(stream, problems):
        fields = _split(text)
        if not fields:
            continue
        if fmt is None:
            fmt = detect_format(fields)
            if fmt is None:
                problems.add(lineno, f"expected 5 or 6 columns ({SHAPES[ARQMATH_TASK1]}, or "
                                     f"{SHAPES[ARQMATH_TASK2]}, or {SHAPES[TREC]}), found {len(fields)}")
                continue
            if fmt not in TASK_FORMATS[task]:
                problems.add(lineno, f"the file is in {_format_name(fmt)} format; a campaign of task '{task}' takes "
                                     + " or ".join(_format_name(f) for f in TASK_FORMATS[task]))
                return
            summary.format = fmt
            ncols = 5 if fmt == ARQMATH_TASK1 else 6
        if len(fields) != ncols:
            problems.add(lineno, f"expected {ncols} columns ({SHAPES[fmt]}), found {len(fields)}")
            continue
        row = _parse_row(fmt, fields, lineno, problems)
        if row is None:
            continue
        topic_id, item_id = row.topic_id, row.item_id
        if topic_id not in topics:
            unknown_topics.setdefault(topic_id, lineno)
            problems.add(lineno, f"topic '{topic_id}' is not a topic of this campaign")
            continue
        items = seen.setdefault(topic_id, {})
        first = items.get(item_id)
        if first is not None:
            problems.add(lineno, f"'{item_id}' appears twice for topic {topic_id} (first on line {first})")
            continue
        items[item_id] = lineno
        if len(items) > max_depth:
            problems.add(lineno, f"more than {max_depth} rows for topic {topic_id} (the campaign's maximum depth)")
            continue
        ranked.setdefault(topic_id, []).append((row.rank, row.score, lineno))
        summary.tags[row.tag] = summary.tags.get(row.tag, 0) + 1
        summary.rows += 1
        yield row
    if fmt is None and not problems:
        problems.add(None, "the file has no rows")
    for topic_id, items in seen.items():
        summary.topic_rows[topic_id] = len(items)
    _file_warnings(summary, ranked, topics, warnings)


def _split(text: str) -> list[str]:
    """Tab-separated when the line has a tab (so an empty field shows), else any white space."""
    text = text.rstrip()
    if "\t" not in text:
        return text.split()
    fields = text.split("\t")
    if " " in text:
        fields = [f.strip() for f in fields]
    return fields


def _format_name(fmt: str) -> str:
    return {ARQMATH_TASK1: "ARQMath Task 1 (5-column)", ARQMATH_TASK2: "ARQMath Task 2 (6-column)",
            TREC: "TREC (Q0)"}[fmt]


def _parse_row(fmt: str, fields: list[str], lineno: int, problems: Problems) -> RunRow | None:
    if fmt == ARQMATH_TASK1:
        topic_id, item_id, rank_s, score_s, tag = fields
        post_id = item_id
    elif fmt == ARQMATH_TASK2:
        topic_id, item_id, post_id, rank_s, score_s, tag = fields
    else:
        topic_id, _q0, item_id, rank_s, score_s, tag = fields
        post_id = ""
    ok = True
    ids = [("topic id", topic_id), ("item id", item_id)] + ([("post id", post_id)] if fmt == ARQMATH_TASK2 else [])
    for name, value in ids:
        if not value:
            problems.add(lineno, f"empty {name}")
            ok = False
        elif len(value) > ID_MAX:
            problems.add(lineno, f"{name} '{value[:20]}...' is longer than {ID_MAX} characters")
            ok = False
    # int() and float() alone would also take '1_0' and digits of other scripts.
    plain = rank_s.isascii() and "_" not in rank_s
    rank = int(rank_s) if plain and rank_s.isdigit() else 0
    if not 1 <= rank <= RANK_MAX:
        problems.add(lineno, f"rank '{rank_s}' is not a whole number >= 1" if rank < 1 else
                     f"rank {rank_s} is out of range")
        ok = False
    try:
        score = float(score_s) if score_s.isascii() and "_" not in score_s else math.nan
    except ValueError:
        score = math.nan
    if not math.isfinite(score):
        problems.add(lineno, f"score '{score_s}' is not a finite number")
        ok = False
    if not ok:
        return None
    return RunRow(lineno, topic_id, item_id, post_id, rank, score, tag)


def _file_warnings(summary: RunSummary, ranked: dict, topics: Mapping[str, object], warnings: Problems) -> None:
    missing = [t for t in topics if t not in summary.topic_rows]
    if missing and summary.rows:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        warnings.add(None, f"the run does not cover {len(missing)} of the campaign's {len(topics)} topics: {shown}")
    if len(summary.tags) > 1:
        tags = ", ".join(f"{tag} ({n} rows)" for tag, n in sorted(summary.tags.items(), key=lambda kv: -kv[1]))
        warnings.add(None, f"several run tags in one file: {tags}")
    disagreeing = []
    for topic_id, rows in ranked.items():
        rows.sort()
        for (_r1, s1, _l1), (r2, s2, l2) in zip(rows, rows[1:], strict=False):
            if s2 > s1:
                disagreeing.append((l2, topic_id, r2))
                break
    if disagreeing:
        disagreeing.sort()
        line, topic_id, rank = disagreeing[0]
        warnings.add(line, f"ranks disagree with score order in {len(disagreeing)} topics "
                           f"(first: topic {topic_id}, rank {rank} scores higher than the rank before it)")

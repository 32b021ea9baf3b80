"""ARQMath-3 Task 3 run files (open-domain answers): one answer of at most 1,200 characters per topic.

Six tab-separated columns, `topic rank score run_id sources answer`, as the organizers' validator reads them
(validate_task3_results.py of Witiko/arqmath3-openqa-tools): Python's csv module with a tab delimiter, so an answer
holding a tab, a line break or a leading double quote is quoted ("...", a quote inside doubled), as their csv.writer
wrote the runs. Lines come through textio (UTF-8 with or without BOM, LF or CRLF, no NUL, bounded lines) and the
quoting through formula_tsv's csv records, so bad bytes and bad quoting are refused as in every other TSV.

The rules (docs/formats.md, "ARQMath-3 Task 3 runs"): problems (the file is refused whole) for a wrong number of
columns, an empty topic or run id, a rank or score that is not a number, a second answer to a topic (naming both
lines), an empty answer or one over 1,200 Unicode characters, a topic the campaign does not have; warnings for a
rank other than 1, an odd number of unescaped `$` (likely broken TeX) and several run ids in one file.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Container
from dataclasses import dataclass, field
from typing import BinaryIO, NamedTuple

from ir.formats.formula_tsv import tsv_records
from ir.formats.textio import ID_MAX, open_binary, shown
from ir.problems import Problems

COLUMNS = "topic rank score run_id sources answer"
ANSWER_MAX = 1200  # Unicode characters (code points), as the organizers count them: len() of the text
RUN_ID_MAX = 200  # Run.tag's length
# A `$` that no backslash escapes: preceded by an even number of backslashes (none, or `\\` an escaped backslash).
UNESCAPED_DOLLAR = re.compile(r"(?<!\\)(?:\\\\)*\$")


class AnswerRow(NamedTuple):
    line: int  # the first line of the record (a quoted answer can span several)
    topic_id: str
    rank: int
    score: float
    run_id: str
    sources: str
    answer: str


@dataclass
class AnswerRun:
    rows: list[AnswerRow] = field(default_factory=list)
    warnings: Problems = field(default_factory=Problems)


def is_answer_row(fields: list[str]) -> bool:
    """Whether a 6-column run row has the shape of a Task 3 row rather than a Task 2 one (topic formula_id post_id
    rank score run_tag): a rank second and a score third, and free text last, that is, white space in the answer or
    sources that are not a number (a Task 2 row has its score fifth and a one-word run tag last)."""
    return (len(fields) == 6 and _rank(fields[1]) is not None and _score(fields[2]) is not None
            and (_score(fields[4]) is None or any(c.isspace() for c in fields[5])))


def read_answers(stream: BinaryIO, problems: Problems, warnings: Problems, *,
                 topics: Container[str] | None = None) -> list[AnswerRow]:
    """Every answer of a Task 3 run file in file order, or [] when there is any problem (then `problems` says
    which, with their lines): nothing of a bad file is taken. `topics`, when given, are the campaign's topic ids."""
    rows: list[AnswerRow] = []
    first_line: dict[str, int] = {}
    run_ids: dict[str, int] = {}
    for line, fields in tsv_records(stream, problems):
        if len(fields) != 6:
            problems.add(line, f"expected 6 columns ({COLUMNS}), found {len(fields)}"
                               + (" (a tab inside an answer must be quoted)" if len(fields) > 6 else ""))
            continue
        topic_id, rank_s, score_s, run_id, sources, answer = fields
        before = problems.count
        rank, score = _rank(rank_s), _score(score_s)
        if not topic_id:
            problems.add(line, "empty topic id")
        elif len(topic_id) > ID_MAX:
            problems.add(line, f"topic id '{shown(topic_id, 20)}' is longer than {ID_MAX} characters")
        elif topics is not None and topic_id not in topics:
            problems.add(line, f"topic '{shown(topic_id)}' is not a topic of this campaign")
        if rank is None:
            problems.add(line, f"rank '{shown(rank_s)}' is not a whole number")
        if score is None:
            problems.add(line, f"score '{shown(score_s)}' is not a finite number")
        if not run_id:
            problems.add(line, "empty run id")
        elif len(run_id) > RUN_ID_MAX:
            problems.add(line, f"run id '{shown(run_id)}' is longer than {RUN_ID_MAX} characters")
        if not answer.strip():
            problems.add(line, f"the answer to topic {topic_id} is empty (leave a topic without an answer out)")
        elif len(answer) > ANSWER_MAX:
            problems.add(line, f"the answer to topic {topic_id} has {len(answer):,} characters; "
                               f"at most {ANSWER_MAX:,} are allowed")
        if topic_id in first_line:
            problems.add(line, f"a second answer to topic {topic_id} (the first is on line {first_line[topic_id]}); "
                               "a run gives one answer per topic")
        elif topic_id:
            first_line[topic_id] = line
        if rank is not None and rank != 1:
            warnings.add(line, f"rank {rank_s} for topic {topic_id}: every answer should have rank 1")
        if len(UNESCAPED_DOLLAR.findall(answer)) % 2:
            warnings.add(line, f"an odd number of $ in the answer to topic {topic_id}: the TeX may be broken")
        if run_id:
            run_ids[run_id] = run_ids.get(run_id, 0) + 1
        if problems.count == before:
            assert rank is not None and score is not None  # else a problem was added above
            rows.append(AnswerRow(line, topic_id, rank, score, run_id, sources, answer))
    if not first_line and not problems:
        problems.add(None, "the file has no answers")
    if len(run_ids) > 1:
        found = ", ".join(f"{shown(r)} ({n} rows)" for r, n in sorted(run_ids.items(), key=lambda kv: -kv[1]))
        warnings.add(None, f"several run ids in one file: {found}")
    return [] if problems else rows


def read_answers_file(path: str | os.PathLike, *, topics: Container[str] | None = None,
                      filename: str | None = None) -> AnswerRun:
    """A Task 3 run file's answers and warnings; InputError with every problem (and line) if it has any. The
    messages name the file `filename` (an upload's own name), else the path's."""
    name = filename or os.path.basename(path)
    problems, warnings = Problems(file=name), Problems(file=name)
    with open_binary(path) as stream:
        rows = read_answers(stream, problems, warnings, topics=topics)
    problems.raise_if_any()
    return AnswerRun(rows=rows, warnings=warnings)


def _rank(text: str) -> int | None:
    """ASCII digits (int() would also take '+1', ' 1', '1_0' and other scripts' digits), at most 12 of them."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else None


def _score(text: str) -> float | None:
    try:
        value = float(text) if text.isascii() and "_" not in text else math.nan
    except ValueError:
        return None
    return value if math.isfinite(value) else None

"""Run files: ARQMath Task 1 (5 columns), ARQMath Task 2 (6 columns) and TREC (6 columns, `Q0`).

The shape is detected from the first row (`file_format` also tells ARQMath-3 Task 3 answers and TREC RAG answer
lines, read by their own readers). Rows are validated and yielded one by one so that the
caller can stream them into the database while the rest of the file is still being read.
"""
from __future__ import annotations

import io
import math
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby, repeat
from operator import ge, gt, lt
from pathlib import PurePath
from typing import BinaryIO, NamedTuple, ParamSpec

from ir.formats.formula_tsv import tsv_records
from ir.formats.kinds import RUN_KINDS, RUN_RAG, looks_like, stream_kind
from ir.formats.task3_answers import is_answer_row
from ir.formats.textio import BOM, ID_MAX, LINE_MAX, iter_lines
from ir.problems import Problems

P = ParamSpec("P")

ARQMATH_TASK1 = "arqmath1"
ARQMATH_TASK2 = "arqmath2"
TREC = "trec"
ARQMATH_TASK3 = "arqmath3"  # Task 3 answers: recognised here, read by ir.formats.task3_answers
TREC_RAG = "trec_rag"  # TREC RAG answers (JSON lines): recognised here, read by ir.formats.rag_answers

RANK_MAX = 2**31 - 1
_NAN = math.nan
_INF = math.inf
_isfinite = math.isfinite

SHAPES = {
    ARQMATH_TASK1: "topic post_id rank score run_tag",
    ARQMATH_TASK2: "topic formula_id post_id rank score run_tag",
    TREC: "topic Q0 doc_id rank score run_tag",
    ARQMATH_TASK3: "topic rank score run_id sources answer",
}
# Which shapes a campaign of each task accepts.
TASK_FORMATS = {"answers": (ARQMATH_TASK1, TREC), "formulas": (ARQMATH_TASK2, TREC)}
# The lowest rank of each shape. TREC runs often number from 0 (trec_eval reads no rank: it orders by score); the
# ARQMath formats rank from 1.
RANK_MIN = {ARQMATH_TASK1: 1, ARQMATH_TASK2: 1, TREC: 0}


class RunRow(NamedTuple):
    line: int
    topic_id: str
    item_id: str
    post_id: str
    rank: int
    score: float
    tag: str


class RunColumns(NamedTuple):
    """A block of a run's valid rows, a column each (`read_run_blocks`)."""

    lines: Sequence[int]
    topic_ids: Sequence[str]
    item_ids: Sequence[str]
    post_ids: Sequence[str]
    ranks: Sequence[int]
    scores: Sequence[float]
    tags: Sequence[str]


@dataclass
class RunSummary:
    """What the reader learned about a file besides its rows; filled while reading."""

    format: str = ""
    rows: int = 0
    tags: dict[str, int] = field(default_factory=dict)
    topic_rows: dict[str, int] = field(default_factory=dict)
    # Rank order, checked as the rows stream by: topic -> (line, rank) of its first rank that scores higher
    # than the rank before it; topics whose rows are not in rank order in the file cannot be checked so.
    disorder: dict[str, tuple[int, int]] = field(default_factory=dict)
    unsorted_topics: set[str] = field(default_factory=set)
    # Topics whose ranks, in file order, are not 1, 2, 3, ... (a gap, a tie, a first rank other than 1, or out of
    # order) or, in a TREC run, whose rows are not in trec_eval's order (score descending, then doc id
    # descending). Where there is none, every rank is its row's position in its topic's list, the list that
    # pooling reads (Run.ranks_are_positions).
    irregular_topics: set[str] = field(default_factory=set)


def run_name(filename: str) -> str:
    """The name a run file gives its run: the file name without its extension (ingest_run's, unless given another;
    the judging simulator's, whose seeded tie-break between runs reads their names)."""
    return PurePath(filename).stem.strip()


def detect_format(fields: list[str]) -> str | None:
    if len(fields) == 5:
        return ARQMATH_TASK1
    if len(fields) == 6:
        return TREC if fields[1] == "Q0" else ARQMATH_TASK3 if is_answer_row(fields) else ARQMATH_TASK2
    return None


def file_format(stream: BinaryIO) -> str | None:
    """A run file's format by its first record (read as tab-separated values with quoting, as a Task 3 answer
    may be quoted over several lines); None when it has none or no known shape. A file whose first line is a JSON
    object is a TREC RAG answer file (TREC_RAG), unless it is a JSON file of another known kind (topics, documents):
    the RAG reader then says what is wrong with it line by line. The stream is read from the start; the caller reads
    it again from the start."""
    kind = stream_kind(stream)
    if kind == RUN_RAG or kind is None and _json_start(stream):
        return TREC_RAG
    stream.seek(0)
    for _line, fields in tsv_records(stream, Problems()):
        return detect_format(fields)
    return None


def _json_start(stream: BinaryIO) -> bool:
    """Whether the first text of a (seekable) stream, past a BOM and white space, opens a JSON object."""
    stream.seek(0)
    head = stream.read(4096).removeprefix(BOM).lstrip()
    stream.seek(0)
    return head.startswith(b"{")


def read_run_blocks(
    stream: BinaryIO,
    problems: Problems,
    warnings: Problems,
    *,
    topics: Mapping[str, object],
    task: str,
    max_depth: int = 1000,
    summary: RunSummary | None = None,
    find_duplicates: bool = True,
) -> Iterator[RunColumns]:
    """Yields the valid rows of a run file a block at a time, a column each (evaluation reads these; `read_run` gives
    them a row at a time); problems and warnings go to the collectors.

    `topics` maps the campaign's topic ids to anything (their keys are what counts). Warnings about
    the whole file (uncovered topics, several tags) are added at the end. Finding an item twice for a topic
    means remembering every item; `find_duplicates=False` leaves that to a database unique key, and
    keeps memory flat whatever the size of the file.

    The file is read a block of lines at a time. A block of plain rows that pass every check is taken by
    `_Reader.block` a column at a time; any other block is read line by line by `_Reader.lines`, whose rules give
    every problem and message: the block path only recognises blocks that have none.
    """
    reader = _Reader(stream, problems, topics, task, max_depth,
                     summary if summary is not None else RunSummary(), find_duplicates)
    for before, chunk in _blocks(stream):
        block = reader.block(before, chunk)
        if block is None:
            rows = reader.lines(iter_lines(io.BytesIO(chunk), problems, start=before))
            block = RunColumns(*zip(*rows, strict=True)) if rows else None
        if block is not None:
            yield block
        if reader.stopped:
            return
    reader.finish(warnings)


def _by_row(read_blocks: Callable[P, Iterator[RunColumns]]) -> Callable[P, Iterator[RunRow]]:
    def read_rows(*args: P.args, **kwargs: P.kwargs) -> Iterator[RunRow]:
        make = tuple.__new__  # a RunRow without the Python-level namedtuple constructor
        for block in read_blocks(*args, **kwargs):
            yield from map(make, repeat(RunRow), zip(*block, strict=True))
    return read_rows


# `read_run_blocks`'s rows one at a time, each a RunRow (pooling's reader), with its arguments.
read_run = _by_row(read_run_blocks)


BLOCK = 1 << 16  # bytes of a block of lines (about 1,800 rows of a TREC run)
# What makes a block go line by line besides what `block` checks: a space (the line rules strip fields then), an empty
# field (or an empty line). White space at the end of a line (stripped by the line rules) leaves a run tag unlike the
# file's, and one of the middle of a field is taken by both alike.
_NOT_PLAIN = (" ", "\t\t", "\n\t")


def _blocks(stream: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """(lines before it, block of whole lines) over the stream: the first line alone (it tells the format), then
    blocks of about BLOCK bytes. A line longer than LINE_MAX ends a block unfinished: the rest of it is skipped here
    (the line reader reports it)."""
    before, size = 0, 1
    while chunk := stream.read(size):
        long_line = False
        if not chunk.endswith(b"\n"):
            tail = stream.readline(LINE_MAX + 2)
            chunk += tail
            long_line = len(tail) == LINE_MAX + 2 and not tail.endswith(b"\n")
        yield before, chunk
        before += chunk.count(b"\n") + (not chunk.endswith(b"\n"))
        if long_line:
            while (rest := stream.readline(LINE_MAX)) and not rest.endswith(b"\n"):
                pass
        size = BLOCK


class _Reader:
    """read_run's state between blocks, and its two ways of reading a block."""

    def __init__(self, stream: BinaryIO, problems: Problems, topics: Mapping[str, object], task: str,
                 max_depth: int, summary: RunSummary, find_duplicates: bool) -> None:
        self.stream, self.problems, self.topics, self.task = stream, problems, topics, task
        self.max_depth, self.summary, self.find_duplicates = max_depth, summary, find_duplicates
        self.stopped = False
        self.seen: dict[str, dict[str, int]] = {}  # topic -> item -> line, for duplicates
        self.fmt: str | None = None
        self.ncols = 0
        self.low = 1  # the lowest rank of the format
        self.trec = False
        self.prev_topic = self.prev_item = ""  # the topic and item of the row before
        self.current_topic: str | None = None
        self.items: dict[str, int] | None = {}
        # topic -> (its latest rank, the lowest score at that rank, the lowest score at the rank before it); the
        # current topic's are in attributes of their own (a file is in stretches of one topic), its row count too
        self.last: dict[str, tuple[int, float, float]] = {}
        self.count, self.group_rank, self.group_low, self.before_low = 0, -1, _INF, _INF  # -1: no row yet
        self.last_tag: str | None = None
        self.tag_rows = 0
        self.tag_before: str | None = None  # the tag of the row before the last change of tag, and its line
        self.tag_line = self.lineno = 0

    def lines(self, numbered: Iterable[tuple[int, str]]) -> list[tuple[int, str, str, str, int, float, str]]:
        """The valid rows of a block read line by line, every problem reported by its rules. The state is in locals
        while the block is read: this loop is hot."""
        summary, problems, topics, task, max_depth = self.summary, self.problems, self.topics, self.task, self.max_depth
        find_duplicates, seen, counts, tags, last = self.find_duplicates, self.seen, summary.topic_rows, summary.tags, \
            self.last
        disorder, unsorted, irregular = summary.disorder, summary.unsorted_topics, summary.irregular_topics
        fmt, ncols, low, trec = self.fmt, self.ncols, self.low, self.trec
        prev_topic, prev_item, current_topic, items = self.prev_topic, self.prev_item, self.current_topic, self.items
        count, group_rank, group_low, before_low = self.count, self.group_rank, self.group_low, self.before_low
        last_tag, tag_rows, tag_before, tag_line = self.last_tag, self.tag_rows, self.tag_before, self.tag_line
        lineno = self.lineno
        found: list[tuple[int, str, str, str, int, float, str]] = []
        for lineno, text in numbered:
            if not text:
                continue
            # The quick split only for the plain case: tabs, no spaces, nothing trailing (_split handles the rest).
            fields = (text.split("\t") if "\t" in text and " " not in text and not text[-1].isspace()
                      else _split(text))
            if not fields or fields == [""]:
                continue
            if fmt is None:
                # A file of another known kind (qrels, topics, a formula index) fails on its first row, and would on
                # every row: say once what it looks like instead.
                other = stream_kind(self.stream) if not _run_row(fields) else None
                if other is not None and other not in RUN_KINDS:
                    problems.add(lineno, looks_like(other, "a run file"))
                    self.stopped = True
                    return found
                fmt = _start(fields, lineno, task, problems)
                if fmt is None:
                    continue
                if fmt not in TASK_FORMATS[task]:
                    self.stopped = True
                    return found
                summary.format = fmt
                ncols = 5 if fmt == ARQMATH_TASK1 else 6
                low, trec = RANK_MIN[fmt], fmt == TREC
                self.fmt, self.ncols, self.low, self.trec = fmt, ncols, low, trec
            if len(fields) != ncols:
                problems.add(lineno, f"expected {ncols} columns ({SHAPES[fmt]}), found {len(fields)}",
                             "expected … columns")
                continue
            if fmt == ARQMATH_TASK1:
                topic_id, item_id, rank_s, score_s, tag = fields
                post_id = item_id
            elif fmt == ARQMATH_TASK2:
                topic_id, item_id, post_id, rank_s, score_s, tag = fields
            else:
                topic_id, _q0, item_id, rank_s, score_s, tag = fields
                post_id = ""
            # The common case is checked with cheap tests; the messages come from _row_problems.
            try:
                rank = (int(rank_s) if rank_s.isdigit() and rank_s.isascii() and len(rank_s) <= 12
                        else rank_value(rank_s))
                score = float(score_s) if score_s.isascii() and "_" not in score_s else _NAN
            except ValueError:
                score = _NAN
            if not (low <= rank <= RANK_MAX and topic_id and item_id and len(item_id) <= ID_MAX
                    and len(topic_id) <= ID_MAX and (post_id or fmt != ARQMATH_TASK2) and len(post_id) <= ID_MAX
                    and _isfinite(score)):
                _row_problems(fmt, topic_id, item_id, post_id, rank_s, score_s, lineno, problems, low)
                continue
            if topic_id != current_topic:
                if topic_id not in topics:
                    problems.add(lineno, f"topic '{_shown(topic_id)}' is not a topic of this campaign",
                                 "topic … is not a topic of this campaign")
                    continue
                if current_topic is not None:
                    counts[current_topic] = count
                    if group_rank >= 0:
                        last[current_topic] = (group_rank, group_low, before_low)
                current_topic = topic_id
                items = seen.setdefault(topic_id, {}) if find_duplicates else None
                count = counts.get(topic_id, 0)
                group_rank, group_low, before_low = last.get(topic_id, (-1, _INF, _INF))
            if items is not None:
                first = items.get(item_id)
                if first is not None:
                    problems.add(lineno, f"'{item_id}' appears twice for topic {topic_id} (first on line {first})",
                                 "… appears twice for topic …")
                    continue
                items[item_id] = lineno
            count += 1
            if count > max_depth:
                problems.add(lineno, f"more than {max_depth} rows for topic {topic_id} (the campaign's maximum depth)",
                             "more than … rows for topic …")
                continue
            # Rows of equal rank form a group; a row disagrees when it scores above the lowest score of the group
            # before it, whatever the order of rows inside a group.
            if group_rank < 0:
                if rank != 1:
                    irregular.add(topic_id)
                group_rank, group_low, before_low = rank, score, _INF
            else:
                if rank != group_rank + 1:
                    irregular.add(topic_id)
                elif trec and topic_id not in irregular and not (prev_topic == topic_id and (score < group_low or (
                        score == group_low and item_id < prev_item))):
                    irregular.add(topic_id)  # a TREC run is pooled in trec_eval's order: here the file's is another
                if rank < group_rank:
                    unsorted.add(topic_id)
                else:
                    if rank > group_rank:
                        before_low, group_low, group_rank = group_low, score, rank
                    elif score < group_low:
                        group_low = score
                    if score > before_low and topic_id not in disorder:
                        disorder[topic_id] = (lineno, rank)
            if tag != last_tag:  # files have one tag, so count runs of rows rather than every row
                if last_tag is not None:
                    tags[last_tag] = tags.get(last_tag, 0) + tag_rows
                tag_before, tag_line = last_tag, lineno
                last_tag, tag_rows = tag, 0
            tag_rows += 1
            prev_topic, prev_item = topic_id, item_id
            found.append((lineno, topic_id, item_id, post_id, rank, score, tag))
        self.prev_topic, self.prev_item, self.current_topic, self.items = prev_topic, prev_item, current_topic, items
        self.count, self.group_rank, self.group_low, self.before_low = count, group_rank, group_low, before_low
        self.last_tag, self.tag_rows, self.tag_before, self.tag_line = last_tag, tag_rows, tag_before, tag_line
        self.lineno = lineno
        return found

    def block(self, before: int, chunk: bytes) -> RunColumns | None:
        """The rows of a block of plain rows that break no rule, checked a column at a time; None for any other
        block (one with a problem, or anything `lines` would read in a way of its own), which `lines` then reads.
        What it finds about rank order is what `lines` would find row by row."""
        fmt, ncols, low = self.fmt, self.ncols, self.low
        if fmt is None or not chunk.endswith(b"\n") or not chunk.isascii() or 0 in chunk or len(chunk) > LINE_MAX:
            return None
        text = chunk.decode("ascii")
        if "\r" in text:  # CRLF line ends, which the line reader takes off as it does LF
            text = text.replace("\r\n", "\n")
        if text[0] in "\t\n" or any(map(text.__contains__, _NOT_PLAIN)):
            return None
        # Every line ends with the tag of the rows before, a field found nowhere else: then, if the fields are as many
        # as the lines have columns and each line's last column is a tag, every line has its columns.
        n, tag = text.count("\n"), self.last_tag
        if tag is None or text.count(f"\t{tag}\n") != n or f"\t{tag}\t" in text or f"\n{tag}\t" in text or \
                text.startswith(f"{tag}\t"):
            return None
        fields = text.replace("\n", "\t").split("\t")
        fields.pop()  # after the last line end
        if len(fields) != n * ncols or fields[ncols - 1::ncols].count(tag) != n:
            return None
        topic_col = fields[0::ncols]
        if fmt == ARQMATH_TASK1:
            item_col = post_col = fields[1::ncols]
        elif fmt == ARQMATH_TASK2:
            item_col, post_col = fields[1::ncols], fields[2::ncols]
        else:
            item_col, post_col = fields[2::ncols], [""] * n
        rank_col, score_col = fields[ncols - 3::ncols], fields[ncols - 2::ncols]
        # No field is empty (_NOT_PLAIN); the topic ids are checked a stretch at a time below. int() and float() take
        # what the line rules take, and also signs and underscores, looked for here.
        ids = (item_col, post_col) if fmt == ARQMATH_TASK2 else (item_col,)
        if not all(max(map(len, column)) <= ID_MAX for column in ids) or not "".join(rank_col).isdigit() or (
                "_" in text and "_" in "".join(score_col)):
            return None
        try:
            ranks = list(map(int, rank_col))  # a rank of thousands of digits is refused by int(), and then here
            scores = list(map(float, score_col))
        except ValueError:
            return None
        if not (low <= min(ranks) and max(ranks) <= RANK_MAX and _isfinite(sum(scores))):
            return None
        # The block's stretches of one topic: each must go on from its topic's rows before it, one rank after
        # another.
        # The block's stretches of one topic: the first may go on from the rows before it, the others are topics
        # met for the first time; each one rank after another.
        stretches: list[tuple[str, int, int, bool]] = []
        at, count, met = 0, self.count, set()
        going_on = self.current_topic is not None and self.prev_topic == self.current_topic and self.group_rank >= 0
        for topic_id, rows in groupby(topic_col):
            end = at + len(list(rows))
            stretch = ranks[at:end]
            if going_on and topic_id == self.current_topic and not at:
                first = self.group_rank + 1
            elif len(topic_id) <= ID_MAX and topic_id in self.topics and topic_id != self.current_topic and \
                    topic_id not in met and topic_id not in self.summary.topic_rows:
                first, count = stretch[0], 0
            else:
                return None
            met.add(topic_id)
            count += end - at
            if stretch != list(range(first, first + end - at)) or count > self.max_depth:
                return None
            stretches.append((topic_id, at, end, not at and topic_id == self.current_topic))
            at = end
        if self.find_duplicates:
            for topic_id, at, end, going_on in stretches:
                items = self.seen[topic_id] if going_on else {}
                if len(set(item_col[at:end])) != end - at or not items.keys().isdisjoint(item_col[at:end]):
                    return None
        self.take(before, stretches, item_col, ranks, scores)
        self.tag_rows += n
        self.lineno = before + n
        return RunColumns(range(before + 1, before + n + 1), topic_col, item_col, post_col, ranks, scores, [tag] * n)

    def take(self, before: int, stretches: list[tuple[str, int, int, bool]], item_col: list[str], ranks: list[int],
             scores: list[float]) -> None:
        """The state after a block that `block` found plain: each row one rank after the row before it."""
        summary, trec = self.summary, self.trec
        irregular, disorder = summary.irregular_topics, summary.disorder
        for topic_id, at, end, going_on in stretches:
            if going_on:
                # As `lines` compares a row with the group before it: the lowest score and the item of the row
                # before this block.
                lows, items_before = [self.group_low, *scores[at:end - 1]], [self.prev_item, *item_col[at:end - 1]]
                checked = at
            else:
                if self.current_topic is not None:
                    summary.topic_rows[self.current_topic] = self.count
                    if self.group_rank >= 0:
                        self.last[self.current_topic] = (self.group_rank, self.group_low, self.before_low)
                self.current_topic = topic_id
                self.items = self.seen.setdefault(topic_id, {}) if self.find_duplicates else None
                self.count = 0
                if ranks[at] != 1:
                    irregular.add(topic_id)
                lows, items_before = scores[at:end - 1], item_col[at:end - 1]
                checked = at + 1
            these = scores[checked:end]
            if trec and topic_id not in irregular and not all(map(gt, lows, these)) and not all(
                    map(lt, zip(these, item_col[checked:end], strict=True), zip(lows, items_before, strict=True))):
                irregular.add(topic_id)
            if topic_id not in disorder and not all(map(ge, lows, these)):
                i = next(i for i, (low, score) in enumerate(zip(lows, these, strict=True)) if score > low) + checked
                disorder[topic_id] = (before + i + 1, ranks[i])
            if self.items is not None:
                self.items.update(zip(item_col[at:end], range(before + at + 1, before + end + 1), strict=True))
            self.count += end - at
            self.group_rank, self.group_low = ranks[end - 1], scores[end - 1]
            self.before_low = scores[end - 2] if end - at > 1 else (self.group_low if going_on else _INF)
            self.prev_topic, self.prev_item = topic_id, item_col[end - 1]

    def finish(self, warnings: Problems) -> None:
        """What is known at the end of the file: counts, a truncated last line, the whole file's warnings."""
        summary, problems, tags, last_tag = self.summary, self.problems, self.summary.tags, self.last_tag
        if self.current_topic is not None:
            summary.topic_rows[self.current_topic] = self.count
        if last_tag is not None:
            tags[last_tag] = tags.get(last_tag, 0) + self.tag_rows
        if (last_tag is not None and self.tag_before is not None and self.tag_rows == 1 and self.tag_line == self.lineno
                and cut_short(self.tag_before, last_tag) and _no_final_line_end(self.stream)):
            problems.add(self.lineno, f"the file ends inside this line: its run tag '{_shown(last_tag)}' is the "
                                      f"start of the tag '{_shown(self.tag_before)}' of the line before (the file "
                                      "looks truncated)")
        if self.fmt is None and not problems:
            problems.add(None, "the file has no rows")
        summary.rows = sum(tags.values())
        _file_warnings(summary, self.topics, warnings)


def cut_short(tag_before: str | None, last_tag: str) -> bool:
    """The rule for a run truncated inside its last field: the last line has no line end (checked by the caller) and
    its run tag is a strict start of the tag of the row before it ('myr' after 'myrun'). A last line cut anywhere else
    loses a column and is refused for that; a whole last line without a line end is a whole file."""
    return tag_before is not None and tag_before != last_tag and tag_before.startswith(last_tag)


def _no_final_line_end(stream: BinaryIO) -> bool:
    """Whether the stream's last byte is not a line end; False when that cannot be seen (a stream without seek)."""
    if not stream.seekable():
        return False
    stream.seek(-1, 2)
    return stream.read(1) != b"\n"


def _run_row(fields: list[str]) -> bool:
    """Whether a row has a run's shape with a whole-number rank and a numeric score (a run's own parse succeeds)."""
    fmt = detect_format(fields)
    if fmt is None or fmt == ARQMATH_TASK3:
        return fmt is not None
    rank_s, score_s = (fields[2], fields[3]) if fmt == ARQMATH_TASK1 else (fields[3], fields[4])
    try:
        float(score_s)
    except ValueError:
        return False
    return rank_value(rank_s) >= 0


def _start(fields: list[str], lineno: int, task: str, problems: Problems) -> str | None:
    """The file's format from its first row, with a problem when it has none or the wrong one."""
    fmt = detect_format(fields)
    if fmt is None:
        problems.add(lineno, f"expected 5 or 6 columns ({SHAPES[ARQMATH_TASK1]}, or "
                             f"{SHAPES[ARQMATH_TASK2]}, or {SHAPES[TREC]}), found {len(fields)}")
    elif fmt not in TASK_FORMATS[task]:
        problems.add(lineno, f"the file is in {_format_name(fmt)} format; a campaign of task '{task}' takes "
                             + " or ".join(_format_name(f) for f in TASK_FORMATS[task]))
    return fmt


def _shown(value: str, limit: int = 40) -> str:
    """A field as quoted in a message: a 16 MB field must not make a 16 MB message."""
    return value if len(value) <= limit else value[:limit] + "..."


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
            TREC: "TREC (Q0)", ARQMATH_TASK3: "ARQMath-3 Task 3 (answers)"}[fmt]


def rank_value(rank_s: str) -> int:
    """The rank a field holds: its value when it is ASCII digits with at most 12 after the leading zeros; a value
    above RANK_MAX for longer digit strings; -1 for anything else. int() alone would also take '1_0' and digits of
    other scripts, and the length keeps int() within its digit limit (5,000 digits are out of range, not a crash)."""
    if not (rank_s.isdigit() and rank_s.isascii()):
        return -1
    return int(rank_s) if len(rank_s.lstrip("0")) <= 12 else RANK_MAX + 1


def _row_problems(fmt, topic_id, item_id, post_id, rank_s, score_s, lineno: int, problems: Problems,
                  low: int = 1) -> None:
    """Every problem of a row that failed the quick checks of read_run, each with its message."""
    before = problems.count
    ids = [("topic id", topic_id), ("item id", item_id)] + ([("post id", post_id)] if fmt == ARQMATH_TASK2 else [])
    for name, value in ids:
        if not value:
            problems.add(lineno, f"empty {name}", f"empty {name}")
        elif len(value) > ID_MAX:
            problems.add(lineno, f"{name} '{value[:20]}...' is longer than {ID_MAX} characters",
                         f"{name} … is too long")
    rank = rank_value(rank_s)
    if rank < low:
        problems.add(lineno, f"rank '{_shown(rank_s)}' is not a whole number >= {low}", "rank … is not a whole number")
    elif rank > RANK_MAX:
        problems.add(lineno, f"rank {_shown(rank_s)} is out of range", "rank … is out of range")
    try:
        score = float(score_s) if score_s.isascii() and "_" not in score_s else _NAN
    except ValueError:
        score = _NAN
    if not math.isfinite(score):
        problems.add(lineno, f"score '{_shown(score_s)}' is not a finite number", "score … is not a finite number")
    if problems.count == before:  # the quick checks and these disagree: never drop a row without saying so
        problems.add(lineno, "this row could not be read")


def _file_warnings(summary: RunSummary, topics: Mapping[str, object], warnings: Problems) -> None:
    if summary.rows:
        uncovered_warning(topics, summary.topic_rows, warnings)
    if len(summary.tags) > 1:
        tags = ", ".join(f"{tag} ({n} rows)" for tag, n in sorted(summary.tags.items(), key=lambda kv: -kv[1]))
        warnings.add(None, f"several run tags in one file: {tags}")


def uncovered_warning(topics: Iterable[str], covered: Container[str], warnings: Problems) -> None:
    """The warning for a run that leaves some of the campaign's topics out (every run format)."""
    every = list(topics)
    missing = [t for t in every if t not in covered]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        warnings.add(None, f"the run does not cover {len(missing)} of the campaign's {len(every)} topics: {shown}")

"""Task 1 run files read for evaluation only: a whole file checked and prime-filtered with numpy, not row by row.

`ir.formats.runs.read_run` reads a run for the ingest, one row at a time with every check and message. To score
a run, evaluation needs only the judged rows and each topic's top 10, so this reader takes the common, plain shape
(ASCII ids, tab-separated, one `\\n` or `\\r\\n` per line, no blank line) as whole-file array operations, and gives
up (returns None) on anything else: the caller then reads the file with `read_run` and the prime filter, which accept
or reject it with the ingest's own line-numbered messages. Every row this reader accepts, `read_run` accepts with the
same topic, item and score; it accepts a file only when `read_run` would report no problem at all. Pure Python and
numpy: no Django.

A file is taken in parts of about 1 MB of lines (the arrays of a part stay in the processor's cache); in each, fields
are handled eight bytes at a time: a field is read as the 64-bit words that hold it (a view of the file with a word
at every byte), the bytes outside it masked, digits checked and converted within the word, ids hashed and looked
up in the qrels all at once. Then the parts' rows go through the prime filter together.

One entry: `read_prime_answers(path, judged)` (with `words.judged_keys(qrels)` made once for every run of an
evaluation); the word-level primitives and the qrels' keys are in ir/words.py.
"""
from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ir.formats.runs import ARQMATH_TASK1, RANK_MAX, RANK_MIN, TREC, bytes_cut_short
from ir.formats.textio import BOM, ID_MAX, LINE_MAX
from ir.prime import TOP, Prime, first_item, top_unjudged
from ir.words import (
    DOT_TO_ZERO,
    DOTS,
    JudgedKeys,
    U,
    all_digits,
    eight_digits,
    hash_words,
    id_words,
    lookup,
    right_word,
    topic_hash,
    word_view,
    zero_bytes,
)

# Larger files are left to the streaming reader: this one holds a file and a few arrays of its size in memory (a run
# of 1000 rows for 100 topics is about 4 MB).
FILE_MAX = 64 << 20
# Bytes the plain shape allows: printable ASCII, tab, line ends (spaces and other white space go to read_run, whose
# splitting rules for them are the reference).
_PLAIN = bytes(range(0x21, 0x7F)) + b"\t\n"
_NL = 10
_ZERO, _MINUS, _PLUS = ord("0"), ord("-"), ord("+")
# Ranks of up to 8 digits without a leading zero are within 1..RANK_MAX; others are checked one by one, as read_run.
RANK_DIGITS = 8
# A score of at most 16 characters (a sign, at most one dot, at most 15 digits, no exponent) is an integer below
# 2**53 divided by a power of ten below 10**22: both exact in a double, so one division gives the correctly rounded
# value, which is what float() gives. Other scores are converted one by one with float(), as read_run does.
SCORE_CHARS, SCORE_DIGITS = 16, 15
_FPOW10 = np.array([10.0**k for k in range(SCORE_CHARS + 1)])
_UPOW10 = np.array([10**k for k in range(SCORE_CHARS + 1)], dtype=np.uint64)
logger = logging.getLogger(__name__)
_PAD = 2 * ID_MAX  # room before and after the file's bytes, so that a word at any field stays inside the buffer


def _prime(judged: JudgedKeys, topics: list[str], unjudged: list[float], firsts: list[str], indexes: np.ndarray,
           scores: np.ndarray) -> Prime:
    """The prime filter of a file from its judged rows (first occurrences) as `indexes` into `judged` with their
    `scores`, topic by topic in file order, and per topic (in the order the file first has them) the unjudged
    fraction of its top 10 and its first item (prime.first_item's order)."""
    prime = Prime(first=dict(zip(topics, firsts, strict=True)))
    run: dict[str, dict[str, float]] = {topic: {} for topic in topics}
    if len(indexes):
        numbers = judged.item_topics[indexes]
        items = judged.items[indexes].tolist()
        values = scores.tolist()
        cuts = [0, *(np.flatnonzero(numbers[1:] != numbers[:-1]) + 1).tolist(), len(items)]
        names = judged.topic_names
        for a, b in zip(cuts, cuts[1:], strict=False):
            run[names[numbers[a]]].update(zip(items[a:b], values[a:b], strict=True))
    prime.run = {topic: items for topic, items in run.items() if items}
    prime.unjudged = dict(zip(topics, unjudged, strict=True))
    return prime


def _plain_text(data: bytes) -> tuple[bytes, int] | None:
    """The rule for the bytes of a file in the plain shape: printable ASCII, tab and line ends (LF, or CRLF: a CR
    only just before an LF, or among the line ends that end the file). The file's bytes with CRLF made LF, and the
    size without its trailing line ends (they make only blank lines, which the row-by-row readers pass over), or
    None if another byte is there."""
    if data.translate(None, _PLAIN):
        data = data.rstrip(b"\r\n")
        other = data.translate(None, _PLAIN)
        if other.strip(b"\r") or data.count(b"\r\n") != len(other):
            return None
        data = data.replace(b"\r\n", b"\n")
    size = len(data)
    while size and data[size - 1] == _NL:
        size -= 1
    return data, size


def read_prime_answers(path: str | os.PathLike, judged: JudgedKeys) -> Prime | None:
    """The prime filter of a Task 1 (or TREC) run file for an answers evaluation, or None when the file is not in
    the plain shape, has any problem, is too large, or this reader failed in any way: then `read_run` must read it
    (and report what it finds). A failure is logged: the scores stay right, but a bug here would otherwise only
    show as slowness."""
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > FILE_MAX:
                return None
            # As much as the file holds, and one byte more to see that it has not grown: a read of FILE_MAX bytes
            # would cost a buffer of that size (3 times the time of reading a 3 MB run).
            data = stream.read(size + 1)
            if len(data) > size:
                data += stream.read(FILE_MAX + 1 - len(data))
    except OSError:
        return None  # read_run meets it again and reports it
    if len(data) > FILE_MAX:
        return None
    try:
        return prime_answers_of(data, judged)
    except Exception:  # noqa: BLE001
        logger.exception("the whole-file reader failed on a run of %d bytes; it is read row by row instead",
                         len(data))
        return None


def prime_answers_of(data: bytes, judged: JudgedKeys) -> Prime | None:
    """`read_prime_answers` on a file's bytes."""
    if not judged.usable:
        return None
    if data.startswith(BOM):
        data = data[len(BOM):]
    if bytes_cut_short(data):  # a truncated file: read_run says so with its line
        return None
    found = _plain_text(data)
    if found is None:
        return None
    data, size = found
    shape = _columns(data, size) if 0 < size <= FILE_MAX else None
    if shape is None:
        return None
    padded = np.zeros(size + 2 * _PAD, dtype=np.uint8)
    padded[_PAD: _PAD + size] = np.frombuffer(data, dtype=np.uint8, count=size)
    file = _File(data=data, padded=padded, words=word_view(padded), ncols=shape[0], doc_col=shape[1], judged=judged)
    # A few hundred kB of lines at a time: the arrays of a part stay in the processor's cache (a whole file at once
    # took half as long again), then the parts' rows are put together for what needs the whole file.
    parts: list[_Part] = []
    start = rows = 0
    while start < size:
        end = data.find(b"\n", min(start + PART_BYTES, size), size)
        end = size if end < 0 else end
        part = _part(file, start, end, rows)
        if part is None:
            return None
        parts.append(part)
        rows += len(part.scores)
        start = end + 1
    return _prime_filter_parts(file, parts)


PART_BYTES = 1 << 20


def _columns(data: bytes, size: int) -> tuple[int, int] | None:
    """The number of fields of the file's first line and which one is the item: a Task 1 run (5) or a TREC run
    (6, the second one Q0); None for any other (Task 2 shape, or not a run: read_run says which)."""
    end = data.find(b"\n", 0, size)
    fields = data[: end if end >= 0 else size].split(b"\t")
    if len(fields) == 5:
        return 5, 1
    if len(fields) == 6 and fields[1] == b"Q0":
        return 6, 2
    return None


@dataclass
class _File:
    data: bytes
    padded: np.ndarray  # the bytes with _PAD zeros on both sides
    words: np.ndarray  # word_view(padded)
    ncols: int
    doc_col: int
    judged: JudgedKeys


class _Part(NamedTuple):
    """The rows of one part of a file (row numbers counted from the file's first row)."""

    scores: np.ndarray
    doc_start: np.ndarray  # in the file
    doc_len: np.ndarray
    keys: np.ndarray  # doc hash + topic hash
    stretch_first: np.ndarray  # the first row of each stretch of rows with the same topic
    stretch_topic: np.ndarray  # its topic number in the qrels, -1 for a topic the qrels do not have
    stretch_names: list[str]
    judged_rows: np.ndarray  # the rows whose (topic, doc) is judged
    judged_items: np.ndarray  # and their index in JudgedKeys


def _part(file: _File, start: int, end: int, first_row: int) -> _Part | None:
    """Lines start..end (end at a line end or the end of the file) checked and read, or None on any doubt."""
    padded, words, data, ncols, doc_col = file.padded, file.words, file.data, file.ncols, file.doc_col
    buf = padded[_PAD + start: _PAD + end]
    size = end - start
    # Separators: the bytes below '!', tabs and line ends only (`_plain_text`); each line has exactly ncols - 1 tabs
    # and its line end.
    seps = np.flatnonzero(buf < 0x21)
    n = int(np.count_nonzero(buf[seps] == _NL)) + 1
    if len(seps) != ncols * n - 1:
        return None
    bounds = np.empty(ncols * n + 1, dtype=np.int64)  # -1, then every separator, then the end
    bounds[0] = -1
    bounds[1:-1] = seps
    bounds[-1] = size
    rows = bounds[1:].reshape(n, ncols)
    if n > 1 and (buf[rows[:-1, -1]] != _NL).any():
        return None  # n line ends, each where a line of ncols fields ends: so every other separator is a tab
    lengths = np.diff(bounds) - 1
    if lengths.min() < 1:
        return None  # an empty field, or a blank line (which read_run passes over; not the plain shape)
    lengths = lengths.reshape(n, ncols)
    starts = np.empty(n, dtype=np.int64)  # where each line (and its topic) starts, in the file
    starts[0] = start
    starts[1:] = rows[:-1, -1] + 1 + start
    line_ends = rows[:, -1] + start
    if (line_ends - starts).max() > LINE_MAX - len(BOM):
        return None
    topic_len, doc_len = np.ascontiguousarray(lengths[:, 0]), np.ascontiguousarray(lengths[:, doc_col])
    if topic_len.max() > ID_MAX or doc_len.max() > ID_MAX:
        return None
    offset = start + _PAD
    low = RANK_MIN[TREC] if ncols == 6 else RANK_MIN[ARQMATH_TASK1]  # _columns: 6 columns here are TREC's
    if not _ranks_valid(words, padded, data, rows[:, doc_col + 1] + offset, lengths[:, doc_col + 1], low):
        return None
    scores = _scores(words, padded, data, rows[:, doc_col + 2] + offset, lengths[:, doc_col + 2])
    if scores is None:
        return None
    doc_start = rows[:, doc_col] + start - doc_len
    # Stretches of rows with the same topic.
    topic_words = id_words(words, starts + _PAD, topic_len, -(-int(topic_len.max()) // 8))
    changes = np.zeros(n - 1, dtype=bool)
    for word in topic_words:
        changes |= word[1:] != word[:-1]
    first = np.concatenate([[0], np.flatnonzero(changes) + 1])
    names = [data[a: a + length].decode("ascii") for a, length in zip(starts[first].tolist(),
                                                                       topic_len[first].tolist(), strict=True)]
    doc_hash = hash_words(id_words(words, doc_start + _PAD, doc_len, -(-int(doc_len.max()) // 8)))
    return _judged_part(file, first_row, scores, doc_start, doc_len, doc_hash, first, names)


def _stretch_topics(judged: JudgedKeys, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each stretch's topic number in the qrels (-1 for a topic they do not have) and its topic's part of a key."""
    return (np.array([judged.topic_numbers.get(name, -1) for name in names], dtype=np.int64),
            np.array([topic_hash(name) for name in names], dtype=np.uint64))


def _judged_part(file: _File, first_row: int, scores: np.ndarray, doc_start: np.ndarray, doc_len: np.ndarray,
                 doc_hash: np.ndarray, first: np.ndarray, names: list[str]) -> _Part:
    """A part's rows, read, looked up in the qrels: each stretch's topic number, each row's key, the judged rows
    (the key found, then the item's bytes and the topic compared)."""
    judged = file.judged
    stretch_topic, topic_hashes = _stretch_topics(judged, names)
    sizes = np.diff(np.append(first, len(scores)))
    topic_of = np.repeat(stretch_topic, sizes)
    keys = doc_hash + np.repeat(topic_hashes, sizes)
    at = lookup(judged, keys)
    hit = np.flatnonzero((at >= 0) & (topic_of >= 0))
    item = at[hit]
    hit_len = doc_len[hit]
    same = (judged.lengths[item] == hit_len) & (judged.item_topics[item] == topic_of[hit])
    if len(hit):
        hit_words = id_words(file.words, doc_start[hit] + _PAD, hit_len, -(-int(hit_len.max()) // 8))
        for j, word in enumerate(hit_words):
            same &= judged.words[item, j] == word
    return _Part(scores=scores, doc_start=doc_start, doc_len=doc_len, keys=keys, stretch_first=first + first_row,
                 stretch_topic=stretch_topic, stretch_names=names, judged_rows=hit[same] + first_row,
                 judged_items=item[same])


def _ranks_valid(words, padded, data: bytes, end, length, low: int = 1) -> bool:
    """read_run's rank check: digits, and low <= rank <= RANK_MAX (low: 0 in a TREC run, 1 in an ARQMath run,
    runs.RANK_MIN). `end` is in `padded`. A rank of more than 12 characters (leading zeros) makes the file go to
    read_run, whose rule for it is the reference."""
    plain = ((length <= RANK_DIGITS) & all_digits(right_word(words, end, np.minimum(length, RANK_DIGITS)))
             & (padded[end - length] != _ZERO))
    for i in np.flatnonzero(~plain).tolist():
        text = data[end[i] - _PAD - length[i]: end[i] - _PAD].decode("ascii")
        rank = int(text) if text.isdigit() and text.isascii() and len(text) <= 12 else -1
        if not low <= rank <= RANK_MAX:
            return False
    return True


def _scores(words, padded, data: bytes, end, length) -> np.ndarray | None:
    """Every score as float() reads it, or None if one is not a finite number (read_run's check). `end` is in
    `padded`."""
    lead = padded[end - length]
    minus = lead == _MINUS
    signed = minus | (lead == _PLUS)
    chars = length - signed  # the sign is left out of the words: made '0', it adds nothing
    short = np.minimum(chars, SCORE_CHARS)
    low = right_word(words, end, np.minimum(short, 8))
    high = right_word(words, end - 8, short - np.minimum(short, 8))
    dot_low, dot_high = zero_bytes(low ^ DOTS), zero_bytes(high ^ DOTS)
    dots = np.bitwise_count(dot_low) + np.bitwise_count(dot_high)
    # The dot made '0' too: the number is then the integer part, a 0, and the fraction's digits.
    low ^= (dot_low >> U(7)) * DOT_TO_ZERO
    high ^= (dot_high >> U(7)) * DOT_TO_ZERO
    digits = chars - dots
    plain = ((chars <= SCORE_CHARS) & (dots <= 1) & (digits >= 1) & (digits <= SCORE_DIGITS)
             & all_digits(low) & all_digits(high))
    spelled = eight_digits(high) * U(10**8) + eight_digits(low)
    # Digits after the dot: the bytes above the dot's byte (the bits above its bit, by eight).
    after = (np.bitwise_count(~(dot_low | (dot_low - U(1)))) >> 3) + np.where(
        dot_high != 0, 8 + (np.bitwise_count(~(dot_high | (dot_high - U(1)))) >> 3), 0)
    after = np.where(plain, after, 0)  # two dots can make it 22: those scores go to float() below
    fraction = spelled % _UPOW10[after]
    number = np.where(dots == 1, (spelled - fraction) // U(10) + fraction, spelled)
    scores = number.astype(np.float64) / _FPOW10[after]
    np.negative(scores, out=scores, where=minus)
    for i in np.flatnonzero(~plain).tolist():
        text = data[end[i] - _PAD - length[i]: end[i] - _PAD].decode("ascii")
        try:
            score = float(text) if text.isascii() and "_" not in text else math.nan
        except ValueError:
            return None
        if not math.isfinite(score):
            return None
        scores[i] = score
    return scores


def _prime_filter_parts(file: _File, parts: list[_Part]) -> Prime:
    """The prime filter over the rows of every part."""
    judged, data = file.judged, file.data
    scores = np.concatenate([p.scores for p in parts])
    doc_start = np.concatenate([p.doc_start for p in parts])
    doc_len = np.concatenate([p.doc_len for p in parts])
    judged_rows = np.concatenate([p.judged_rows for p in parts])
    judged_items = np.concatenate([p.judged_items for p in parts])
    n = len(scores)
    # Stretches, joined where a topic goes on from one part to the next.
    first = np.concatenate([p.stretch_first for p in parts])
    stretch_topic = np.concatenate([p.stretch_topic for p in parts])
    names = [name for p in parts for name in p.stretch_names]
    go_on = np.zeros(len(first), dtype=bool)
    go_on[1:] = np.array([a == b for a, b in zip(names, names[1:], strict=False)], dtype=bool)
    if go_on.any():
        first, stretch_topic = first[~go_on], stretch_topic[~go_on]
        names = [name for name, joined in zip(names, go_on.tolist(), strict=True) if not joined]
    after = np.append(first[1:], n)
    sizes = after - first
    topic_of = np.repeat(stretch_topic, sizes)
    kept = topic_of >= 0
    order: dict[str, int] = {}  # the file's qrels topics, in the order it first has them
    for name, number in zip(names, stretch_topic.tolist(), strict=True):
        if number >= 0:
            order.setdefault(name, number)
    # The first occurrence of a (topic, doc) counts: a topic where a key repeats (by hash, so also where two keys
    # only share a hash) is filtered row by row, as prime_answers does.
    slow = _repeating_topics(np.concatenate([p.keys for p in parts]), topic_of, kept)
    # Unjudged@10. Where a topic is one stretch whose scores never rise (a file in rank order) and its 10th and
    # 11th rows do not tie, its top 10 are its first 10 rows: counted for every such topic at once. Other topics
    # pass their candidates (rows scoring at least the 10th best of their stretch) through prime's own function.
    judged_mask = np.zeros(n, dtype=bool)
    judged_mask[judged_rows] = True
    counted = np.concatenate([[0], np.cumsum(judged_mask)])
    rises = np.zeros(n, dtype=bool)
    rises[1:] = scores[1:] > scores[:-1]
    rises[first] = False
    rising = np.add.reduceat(rises, first) > 0
    top = np.minimum(sizes, TOP)
    tied = np.zeros(len(first), dtype=bool)
    long = sizes > TOP
    tied[long] = scores[first[long] + TOP - 1] == scores[first[long] + TOP]
    stretches_of = np.bincount(stretch_topic[stretch_topic >= 0], minlength=max(1, len(judged.topic_names)))
    simple = (stretch_topic >= 0) & ~rising & ~tied & (stretches_of[np.maximum(stretch_topic, 0)] == 1)
    fraction = (top - (counted[first + top] - counted[first])) / top

    def doc_text(row: int) -> str:
        start = int(doc_start[row])
        return data[start: start + int(doc_len[row])].decode("ascii")

    unjudged: dict[int, float] = {}
    firsts: dict[int, str] = {}  # the first item: of the rows tied at the top of a simple stretch, the greatest id
    for number, ok, value, a, b in zip(stretch_topic.tolist(), simple.tolist(), fraction.tolist(), first.tolist(),
                                       after.tolist(), strict=True):
        if ok and number not in slow:
            unjudged[number] = value
            below = np.flatnonzero(scores[a:b] != scores[a])
            firsts[number] = max(doc_text(row) for row in range(a, a + int(below[0]) if len(below) else b))
    rest = {t for t in stretch_topic.tolist() if t >= 0 and t not in unjudged}

    for number in sorted(rest):
        grades = judged.qrels[judged.topic_names[number]]
        spans = [(a, b) for a, b, t in zip(first.tolist(), after.tolist(), stretch_topic.tolist(), strict=True)
                 if t == number]
        if number in slow:  # every row, the first occurrence of each doc kept
            items: dict[str, float] = {}
            for a, b in spans:
                for row, score in zip(range(a, b), scores[a:b].tolist(), strict=True):
                    items.setdefault(doc_text(row), score)
            unjudged[number], firsts[number] = top_unjudged(items, grades), first_item(items)
            continue
        rows: list[int] = []
        for a, b in spans:
            if b - a > TOP:
                tenth = np.partition(scores[a:b], b - a - TOP)[b - a - TOP]
                rows.extend((np.flatnonzero(scores[a:b] >= tenth) + a).tolist())
            else:
                rows.extend(range(a, b))
        candidates = {doc_text(r): s for r, s in zip(rows, scores[rows].tolist(), strict=True)}
        unjudged[number], firsts[number] = top_unjudged(candidates, grades), first_item(candidates)
    if slow:
        # Judged rows of those topics: the first occurrence of each item only (keys are unique per item), in row
        # order like the others, so that which topics were filtered row by row does not show in the result.
        in_slow = np.flatnonzero(np.isin(topic_of[judged_rows], list(slow)))
        keep = np.ones(len(judged_rows), dtype=bool)
        keep[in_slow] = False
        keep[in_slow[np.unique(judged_items[in_slow], return_index=True)[1]]] = True
        judged_rows, judged_items = judged_rows[keep], judged_items[keep]
    out_items, out_scores = judged_items, scores[judged_rows]
    topics = list(order)
    return _prime(judged, topics, [unjudged[order[t]] for t in topics], [firsts[order[t]] for t in topics],
                  out_items, out_scores)


def _repeating_topics(keys: np.ndarray, topic_of: np.ndarray, kept: np.ndarray) -> set[int]:
    """The topics of the kept rows whose key another kept row has: at least every topic where a (topic, doc)
    repeats, whose key is then the same."""
    ordered = np.sort(keys[kept])
    repeats = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(repeats):
        return set()
    where = np.minimum(np.searchsorted(repeats, keys), len(repeats) - 1)
    return set(topic_of[(repeats[where] == keys) & kept].tolist())


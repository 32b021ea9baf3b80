"""Task 1 run files read for evaluation only: a whole file checked and prime-filtered with numpy, not row by row.

`pooling.formats.runs.read_run` reads a run for the ingest, one row at a time with every check and message. To score
a run, evaluation needs only the judged rows and each topic's top 10, so this reader takes the common, plain shape
(ASCII ids, tab-separated, one `\\n` or `\\r\\n` per line, no blank line) as whole-file array operations, and gives up
(returns None) on anything else: the caller then reads the file with `read_run` and the prime filter, which accept
or reject it with the ingest's own line-numbered messages. Every row this reader accepts, `read_run` accepts with the
same topic, item and score; it accepts a file only when `read_run` would report no problem at all. Pure Python and
numpy: no Django.
"""
from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from pooling.formats.runs import RANK_MAX
from pooling.formats.textio import BOM, ID_MAX, LINE_MAX

from .prime import Prime, _top_unjudged

# Larger files are left to the streaming reader: this one holds a file and a few arrays of its size in memory (a run
# of 1000 rows for 100 topics is about 4 MB).
FILE_MAX = 64 << 20
# Bytes the plain shape allows: printable ASCII, tab, line ends (spaces and other white space go to read_run, whose
# splitting rules for them are the reference).
_PLAIN = bytes(range(0x21, 0x7F)) + b"\t\n"
_TAB, _NL = 9, 10
_ZERO, _DOT, _MINUS, _PLUS = ord("0"), ord("."), ord("-"), ord("+")
RANK_DIGITS = 9  # ranks of up to 9 digits without a leading zero are within 1..RANK_MAX; others are checked one by one
# A score of at most 15 digits with at most one dot and no exponent is an integer below 2**53 divided by a power of
# ten below 10**22: both exact in a double, so one division gives the correctly rounded value, which is what
# float() gives. Other scores are converted one by one with float().
SCORE_DIGITS = 15
_SCORE_WIDTH = SCORE_DIGITS + 2
_POW10 = 10 ** np.arange(SCORE_DIGITS + 1, dtype=np.int64)
_FPOW10 = np.array([10.0**k for k in range(_SCORE_WIDTH + 1)])
TOP = 10


_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)
_HASH_SHIFT = np.uint64(29)
_TOPIC_MUL = np.uint64(0xBF58476D1CE4E5B9)


def _hashes(chars: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of an (n, 8k) uint8 matrix of zero-padded ids. A word of zeros adds nothing, so
    the hash of an id does not depend on how wide the matrix is."""
    words = np.ascontiguousarray(chars).view(np.uint64) * _HASH_MUL
    words ^= words >> _HASH_SHIFT
    return words.sum(axis=1, dtype=np.uint64)


def _matrix(ids: list[bytes], width: int | None = None) -> np.ndarray:
    width = width or max(8, -(-max((len(i) for i in ids), default=1) // 8) * 8)
    return np.frombuffer(b"".join(i.ljust(width, b"\0") for i in ids), dtype=np.uint8).reshape(len(ids), width)


@dataclass
class TopicJudgments:
    """One qrels topic's items, ordered by the hash of their UTF-8 bytes for looking up a run's rows at once."""

    hashes: np.ndarray  # uint64, sorted
    items: list[str]  # in the same order
    keys: np.ndarray  # the items' bytes ("S" array), in the same order
    grades: Mapping[str, int]


@dataclass
class JudgedKeys:
    """The qrels prepared once for every run: per topic, its judged items by hash. `usable` is False when two
    items of a topic share a hash (a lookup by hash could then miss one): every file then goes to read_run."""

    qrels: Mapping[str, Mapping[str, int]]
    topics: dict[str, TopicJudgments]
    usable: bool


def judged_keys(qrels: Mapping[str, Mapping[str, int]]) -> JudgedKeys:
    topics: dict[str, TopicJudgments] = {}
    usable = True
    for topic, grades in qrels.items():
        items = list(grades)
        raw = [item.encode() for item in items]
        hashes = _hashes(_matrix(raw)) if raw else np.zeros(0, dtype=np.uint64)
        order = np.argsort(hashes, kind="stable")
        hashes = hashes[order]
        if len(hashes) > 1 and (hashes[1:] == hashes[:-1]).any():
            usable = False
        topics[topic] = TopicJudgments(hashes=hashes, items=[items[i] for i in order.tolist()],
                                       keys=np.array([raw[i] for i in order.tolist()] or [b""])[: len(raw)],
                                       grades=grades)
    return JudgedKeys(qrels=qrels, topics=topics, usable=usable)


@dataclass
class FastPrime:
    """One file's prime filter as a reader process sends it back: per topic (in the order the file first has
    them), its judged rows' items (first occurrences, in file order) with their scores, and the unjudged fraction
    of its top 10. Items are given by their index in `TopicJudgments.items`, so little crosses between processes."""

    topics: list[str]
    judged: list[tuple[np.ndarray, np.ndarray]]  # per topic: (item indexes, scores)
    unjudged: list[float]

    def to_prime(self, judged: JudgedKeys) -> Prime:
        prime = Prime()
        for topic, (at, scores), fraction in zip(self.topics, self.judged, self.unjudged, strict=True):
            prime.unjudged[topic] = fraction
            if len(at):
                items = judged.topics[topic].items
                prime.run[topic] = dict(zip(map(items.__getitem__, at.tolist()), scores.tolist(), strict=True))
        return prime


def read_prime_answers(path: str | os.PathLike, judged: JudgedKeys) -> FastPrime | None:
    """The prime filter of a Task 1 (or TREC) run file for an answers evaluation, or None when the file is not in
    the plain shape, has any problem, or is too large: then `read_run` must read it."""
    if not judged.usable:
        return None
    try:
        if os.path.getsize(path) > FILE_MAX:
            return None
        with open(path, "rb") as stream:
            data = stream.read(FILE_MAX + 1)
        return prime_answers_of(data, judged)
    except Exception:  # noqa: BLE001 - whatever went wrong, read_run reads the file and reports what it finds
        return None


def prime_answers_of(data: bytes, judged: JudgedKeys) -> FastPrime | None:
    """`read_prime_answers` on a file's bytes."""
    if data.startswith(BOM):
        data = data[len(BOM):]
    data = data.rstrip(b"\r\n")  # trailing line ends make only blank lines, which read_run passes over
    if not data or len(data) > FILE_MAX or not data.isascii():
        return None
    other = data.translate(None, _PLAIN)
    if other:  # only CRs of CRLF line ends may be left
        if other.strip(b"\r") or data.count(b"\r\n") != len(other):
            return None
        data = data.replace(b"\r\n", b"\n")
    end = data.find(b"\n")
    fields = data[: end if end >= 0 else len(data)].split(b"\t")
    if len(fields) == 5:
        doc_col = 1
    elif len(fields) == 6 and fields[1] == b"Q0":
        doc_col = 2
    else:
        return None  # Task 2 shape, or not a run: read_run says which
    ncols = len(fields)
    size = len(data)
    # The buffer with room on both sides, so that a fixed-width window at any field stays inside it.
    pad = 2 * _SCORE_WIDTH + 2 * ID_MAX
    padded = np.zeros(size + 2 * pad, dtype=np.uint8)
    padded[pad: pad + size] = np.frombuffer(data, dtype=np.uint8)
    buf = padded[pad: pad + size]
    # Separators (only tabs and line ends are below '!' now): each line exactly ncols - 1 tabs and its line end.
    n = data.count(b"\n") + 1
    seps = np.flatnonzero(buf < 0x21)
    if len(seps) != (ncols - 1) * n + n - 1:
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
    line_len = rows[:, -1] - np.concatenate([[0], rows[:-1, -1] + 1])
    if line_len.max() > LINE_MAX - len(BOM):
        return None
    starts = rows[:, -1] - line_len  # where each line (and its topic) starts
    topic_len, doc_len = lengths[:, 0], lengths[:, doc_col]
    if topic_len.max() > ID_MAX or doc_len.max() > ID_MAX:
        return None
    doc_end = rows[:, doc_col]
    rank_end, rank_len = rows[:, doc_col + 1], lengths[:, doc_col + 1]
    score_end, score_len = rows[:, doc_col + 2], lengths[:, doc_col + 2]
    if not _ranks_valid(padded, pad, data, rank_end, rank_len):
        return None
    scores = _scores(padded, pad, data, score_end, score_len)
    if scores is None:
        return None
    return _prime(padded, pad, judged, starts, topic_len, doc_end - doc_len, doc_len, scores)


def _window(padded: np.ndarray, pad: int, at: np.ndarray, width: int) -> np.ndarray:
    """The `width` bytes from each position of `at` (in the unpadded buffer), as an (n, width) copy."""
    return sliding_window_view(padded, width)[at + pad]


def _ranks_valid(padded, pad: int, data: bytes, end, length) -> bool:
    """read_run's rank check: digits, and 1 <= rank <= RANK_MAX."""
    chars = _window(padded, pad, end - RANK_DIGITS, RANK_DIGITS)  # right-aligned: the rank ends each row
    inside = np.arange(RANK_DIGITS) >= (RANK_DIGITS - np.minimum(length, RANK_DIGITS))[:, None]
    digits = (((chars - _ZERO) < 10) & inside).sum(axis=1)
    plain = (length <= RANK_DIGITS) & (digits == length) & (padded[end - length + pad] != _ZERO)
    for i in np.flatnonzero(~plain).tolist():
        text = data[end[i] - length[i]: end[i]].decode("ascii")
        rank = int(text) if text.isdigit() and text.isascii() and len(text) <= 12 else 0
        if not 0 < rank <= RANK_MAX:
            return False
    return True


def _scores(padded, pad: int, data: bytes, end, length) -> np.ndarray | None:
    """Every score as float() reads it, or None if one is not a finite number (read_run's check)."""
    width = min(int(length.max()), _SCORE_WIDTH)
    short = np.minimum(length, width)
    lead = padded[end - short + pad]  # the score's first character
    signed = (lead == _MINUS) | (lead == _PLUS)
    # Right-aligned: each row ends with its score. A digit's value, '.' wraps around to 254, anything else is 10 or
    # more; left of the digits (the sign, the field before) is made 0, which adds nothing.
    values = _window(padded, pad, end - width, width) - np.uint8(_ZERO)
    values *= np.arange(width) >= (width - short + signed)[:, None]
    dot = values == 254
    ndots = dot.sum(axis=1)
    digits = length - signed - ndots
    plain = ((length <= width) & ((values >= 10).sum(axis=1) == ndots) & (ndots <= 1)
             & (digits >= 1) & (digits <= SCORE_DIGITS))
    values[dot] = 0
    dot_col = np.where(ndots == 1, dot.argmax(axis=1), width)
    cols = np.unique(dot_col).tolist()
    scores = np.empty(len(values), dtype=np.float64)
    for col in cols:
        # Digits right of the dot weigh 10**(width-1-j), left of it one power less: integers below 2**53, exact
        # in a double, and so is their sum; one division by a power of ten then rounds as float() does.
        exponents = np.arange(width - 1, -1, -1) - ((np.arange(width) < col) if col < width else 0)
        weights = np.where(np.arange(width) == col, 0.0, 10.0 ** np.maximum(exponents, 0))
        divisor = _FPOW10[max(width - 1 - col, 0)]
        if len(cols) == 1:
            scores = (values @ weights) / divisor
        else:
            group = dot_col == col
            scores[group] = (values[group] @ weights) / divisor
    np.negative(scores, out=scores, where=lead == _MINUS)
    for i in np.flatnonzero(~plain).tolist():
        text = data[end[i] - length[i]: end[i]].decode("ascii")
        try:
            score = float(text) if text.isascii() and "_" not in text else math.nan
        except ValueError:
            return None
        if not math.isfinite(score):
            return None
        scores[i] = score
    return scores


def _prime(padded, pad: int, judged: JudgedKeys, starts, topic_len, doc_start, doc_len, scores) -> FastPrime | None:
    n = len(starts)
    topic_width = -(-int(topic_len.max()) // 8) * 8
    doc_width = -(-int(doc_len.max()) // 8) * 8
    topics = _window(padded, pad, starts, topic_width)
    topics *= np.arange(topic_width) < topic_len[:, None]
    docs = _window(padded, pad, doc_start, doc_width)
    docs *= np.arange(doc_width) < doc_len[:, None]
    doc_hashes = _hashes(docs)
    doc_keys = docs.view(f"S{doc_width}").ravel()
    # Stretches of rows with the same topic.
    topic_keys = topics.view(f"S{topic_width}").ravel()
    cuts = np.concatenate([[0], np.flatnonzero(topic_keys[1:] != topic_keys[:-1]) + 1, [n]]).tolist()
    qrels = judged.topics
    index: dict[str, int] = {}  # qrels topic -> its place in the output
    stretches: list[tuple[int, int, int]] = []
    all_stretches: list[tuple[int, int, int]] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        topic = topic_keys[a].decode("ascii")
        place = index.setdefault(topic, len(index))
        all_stretches.append((place, a, b))
        if topic in qrels:
            stretches.append((place, a, b))
    # The first occurrence of a (topic, doc) counts: where a key repeats (by hash, so also where two keys only share
    # a hash), its topic is filtered row by row below, the way prime_answers does.
    topic_of = np.empty(n, dtype=np.uint64)
    for place, a, b in all_stretches:
        topic_of[a:b] = place
    keys = doc_hashes + (topic_of + np.uint64(1)) * _TOPIC_MUL
    ordered = np.sort(keys)
    repeats = ordered[1:][ordered[1:] == ordered[:-1]]
    repeated: set[int] = set()
    if len(repeats):
        at = np.minimum(np.searchsorted(repeats, keys), len(repeats) - 1)
        repeated = set(topic_of[repeats[at] == keys].tolist())
    names = [topic for topic in index if topic in qrels]
    place_of = {index[topic]: i for i, topic in enumerate(names)}
    found: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in names]  # per topic: (rows, item indexes)
    candidates: list[list[np.ndarray]] = [[] for _ in names]
    for place, a, b in stretches:
        if place in repeated:
            continue
        i = place_of[place]
        topic = qrels[names[i]]
        # Judged rows: the doc's hash among the topic's judged items', then the bytes compared.
        if len(topic.hashes):
            at = np.minimum(np.searchsorted(topic.hashes, doc_hashes[a:b]), len(topic.hashes) - 1)
            hit = np.flatnonzero(topic.hashes[at] == doc_hashes[a:b])
            hit = hit[topic.keys[at[hit]] == doc_keys[a + hit]]
            found[i].append((hit + a, at[hit]))
        # Every row of the topic's top 10 scores at least the 10th best score of its own stretch.
        if b - a > TOP:
            tenth = np.partition(scores[a:b], b - a - TOP)[b - a - TOP]
            candidates[i].append(np.flatnonzero(scores[a:b] >= tenth) + a)
        else:
            candidates[i].append(np.arange(a, b))
    out_judged: list[tuple[np.ndarray, np.ndarray]] = []
    unjudged: list[float] = []
    none = (np.zeros(0, dtype=np.int64), np.zeros(0))
    for i, topic in enumerate(names):
        tj = qrels[topic]
        if index[topic] in repeated:
            rows = np.concatenate([np.arange(a, b) for place, a, b in stretches if place == index[topic]])
            first: dict[str, tuple[int, float]] = {}
            for row, doc, score in zip(rows.tolist(), doc_keys[rows].tolist(), scores[rows].tolist(), strict=True):
                first.setdefault(doc.decode("ascii"), (row, score))
            position = {item: k for k, item in enumerate(tj.items)}
            kept = sorted((row, position[doc], score) for doc, (row, score) in first.items() if doc in tj.grades)
            out_judged.append((np.array([k for _r, k, _s in kept], dtype=np.int64),
                               np.array([s for _r, _k, s in kept], dtype=np.float64)) if kept else none)
            unjudged.append(_top_unjudged({doc: score for doc, (_row, score) in first.items()}, tj.grades))
            continue
        parts = found[i]
        if len(parts) == 1:
            rows, items = parts[0]
            out_judged.append((items, scores[rows]))
        elif parts:
            rows = np.concatenate([r for r, _ in parts])
            out_judged.append((np.concatenate([k for _, k in parts]), scores[rows]))
        else:
            out_judged.append(none)
        rows = np.concatenate(candidates[i])
        top = {doc.decode("ascii"): score
               for doc, score in zip(doc_keys[rows].tolist(), scores[rows].tolist(), strict=True)}
        unjudged.append(_top_unjudged(top, tj.grades))
    return FastPrime(topics=names, judged=out_judged, unjudged=unjudged)


# --- several files: on every core when there is enough to read ---------------------------------------------------

# Below this much to read, a process pool costs more than it saves (starting a process, sending results back).
PARALLEL_BYTES = 16 << 20
_worker_judged: JudgedKeys | None = None


def read_primes(paths: Sequence[str | os.PathLike], judged: JudgedKeys, *, workers: int | None = None
                ) -> Iterator[FastPrime | None]:
    """`read_prime_answers` of each file, in order, as soon as each is read. With more than one worker the files
    are read by forked processes (which inherit `judged`), each sending back only its small FastPrime; a pool that
    breaks (a worker killed) leaves the remaining files to read_run."""
    if workers is None:
        workers = default_workers(paths)
    if workers <= 1:
        for path in paths:
            yield read_prime_answers(path, judged)
        return
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker,
                               initargs=(judged,))
    try:
        futures = [pool.submit(_read_in_worker, os.fspath(path)) for path in paths]
        for future in futures:
            try:
                yield future.result()
            except BrokenProcessPool:
                yield None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def default_workers(paths: Sequence[str | os.PathLike]) -> int:
    """One reader per core for several files with enough to read, where processes can be forked; else 1."""
    if len(paths) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    total = 0
    for path in paths:
        try:
            total += os.path.getsize(path)
        except OSError:
            return 1  # read_run reports it, in order
    if total < PARALLEL_BYTES:
        return 1
    return min(len(paths), len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def _start_worker(judged: JudgedKeys) -> None:
    global _worker_judged
    _worker_judged = judged


def _read_in_worker(path: str) -> FastPrime | None:
    assert _worker_judged is not None
    return read_prime_answers(path, _worker_judged)

"""evaluation/runscan.c through ctypes: the compiled pass over a Task 1 run file that evaluation/reading.py uses
where it is built (`make install` compiles it into evaluation/_runscan.so). Without it, `scan` answers None and
reading.py's numpy code does the work. Plain arrays in and out; no Django.

What the C code takes and declines, and why it changes nothing but the speed: reading.py and runscan.c's header."""
from __future__ import annotations

import ctypes
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

VERSION = 1  # runscan.c's RUNSCAN_VERSION
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_runscan.so")
logger = logging.getLogger(__name__)


def load(path: str = PATH):
    """runscan.c's two functions, typed, or None when the library is not there, cannot be loaded, or is of another
    version than this module expects."""
    try:
        library = ctypes.CDLL(path)
        if library.runscan_version() != VERSION:
            logger.warning("%s is not of version %d: rebuild it with `make install`", path, VERSION)
            return None
    except (OSError, AttributeError):
        return None
    i32, i64, u64, f64, u8 = (np.ctypeslib.ndpointer(dtype=t, ndim=1, flags="C_CONTIGUOUS")
                              for t in (np.int32, np.int64, np.uint64, np.float64, np.uint8))
    number, size, out = ctypes.c_int32, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)
    scan, judged = library.runscan, library.runscan_judged
    scan.restype = judged.restype = ctypes.c_int64
    scan.argtypes = [ctypes.c_char_p, size, number, number, size, i64, i64, u64, f64, i64, i64, i64, out]
    judged.argtypes = [ctypes.c_char_p, size, i64, i64, u64, size, i64, i64, u64, size, u64, i32, number, i64, i64,
                       u8, u64, u8, number, i64, i64, i64, out]
    return scan, judged


_library = load()


def loaded() -> bool:
    return _library is not None


@contextmanager
def unloaded() -> Iterator[None]:
    """Within it, this thread and every other read as if the library were not built (numpy only): for comparing
    the two, in the tests and the benchmark."""
    global _library
    saved, _library = _library, None
    try:
        yield
    finally:
        _library = saved


class Scan(NamedTuple):
    """A file's rows as runscan read them: per row its item's place, length and hash and its score; per stretch of
    rows with the same topic, its first row and where its topic is in the file."""

    doc_start: np.ndarray
    doc_len: np.ndarray
    doc_hash: np.ndarray
    scores: np.ndarray
    stretch_first: np.ndarray
    stretch_start: np.ndarray
    stretch_len: np.ndarray


# runscan's output arrays, kept by each thread for the next file up to this many rows (7 arrays of 8 MB: files up
# to about 10 MB): new arrays would cost a page fault every 4 kB written, a third of the time of the scan. A Scan
# is good until the thread's next `scan`; what reading.py returns holds copies, never these.
SCRATCH_ROWS = 1 << 20
_scratch = threading.local()


def _arrays(rows: int) -> list[np.ndarray]:
    kept = getattr(_scratch, "arrays", None)
    if kept is not None and len(kept[0]) >= rows:
        return kept
    arrays = [np.empty(rows, dtype=t) for t in (np.int64, np.int64, np.uint64, np.float64, np.int64, np.int64,
                                                np.int64)]
    if rows <= SCRATCH_ROWS:
        _scratch.arrays = arrays
    return arrays


def scan(data: bytes, size: int, ncols: int, doc_col: int) -> Scan | None:
    """data[:size] split and checked in one pass, or None where the library is not loaded or declines the file
    (anything outside its strict shape)."""
    if _library is None:
        return None
    rows = size // (2 * ncols) + 1  # a line has at least ncols bytes and ncols separators
    arrays = _arrays(rows)
    stretches = ctypes.c_int64(0)
    n = _library[0](data, size, ncols, doc_col, rows, *arrays, ctypes.byref(stretches))
    if n < 0:
        return None
    count = stretches.value
    return Scan(*(a[:n] for a in arrays[:4]), *(a[:count] for a in arrays[4:]))


def judged_rows(data: bytes, found: Scan, stretch_topic: np.ndarray, stretch_hash: np.ndarray, *, keys: np.ndarray,
                buckets: np.ndarray, bits: int, item_topics: np.ndarray, item_lengths: np.ndarray,
                item_bytes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The judged rows of a scanned file and their index in `keys`, and the rows of known topics (stretch_topic
    >= 0) whose key (item hash + stretch_hash) an earlier such row has; the qrels' index as reading.JudgedKeys
    holds it."""
    n = len(found.scores)
    table_bits = max(4, (2 * n).bit_length())
    table, used = np.empty(1 << table_bits, dtype=np.uint64), np.zeros(1 << table_bits, dtype=np.uint8)
    rows, items, repeated = (np.empty(n, dtype=np.int64) for _ in range(3))
    repeats = ctypes.c_int64(0)
    count = _library[1](data, n, found.doc_start, found.doc_len, found.doc_hash, len(found.stretch_first),
                        found.stretch_first, stretch_topic, stretch_hash, len(keys), keys, buckets, bits, item_topics,
                        item_lengths, item_bytes, table, used, table_bits, rows, items, repeated,
                        ctypes.byref(repeats))
    if count < 0:
        return None
    return rows[:count], items[:count], repeated[:repeats.value]

"""Ids and numbers as 64-bit words, for the whole-file reader (ir/reading.py): a view of a buffer with a
word at every byte, fields masked, digits checked and converted within a word, ids hashed; and the qrels prepared
once as hashed (topic, item) keys (`judged_keys`) that every row of a run is looked up in at once (`lookup`).
Pure numpy: no Django."""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ir.formats.textio import ID_MAX

U = np.uint64
_LOW7 = U(0x7F7F7F7F7F7F7F7F)
_HIGH = U(0x8080808080808080)
_ZEROS = U(0x3030303030303030)  # eight '0'
DOTS = U(0x2E2E2E2E2E2E2E2E)
DOT_TO_ZERO = U(ord(".") ^ ord("0"))
_SIX = U(0x7676767676767676)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)  # the first k bytes
_KEEP_LAST = np.array([~((1 << (8 * (8 - k))) - 1) & (2**64 - 1) for k in range(9)], dtype=np.uint64)  # last k bytes
_FILL_FIRST = _ZEROS & ~_KEEP_LAST  # the other bytes, '0'
_HASH_MULS = [U((0x9E3779B97F4A7C15 * (2 * j + 1)) % 2**64) for j in range(ID_MAX // 8)]
_HASH_SHIFT = U(29)


def word_view(buf: np.ndarray) -> np.ndarray:
    """The 64-bit little-endian word starting at every byte of `buf` (overlapping, unaligned: no copy)."""
    return np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))


def id_words(words: np.ndarray, start: np.ndarray, length: np.ndarray, count: int) -> list[np.ndarray]:
    """Fields as `count` words each, left-aligned, zero past their end."""
    return [words[start + 8 * j] & _LOW_BYTES[np.clip(length - 8 * j, 0, 8)] for j in range(count)]


def right_word(words: np.ndarray, end: np.ndarray, chars: np.ndarray) -> np.ndarray:
    """The word ending at each field's end (`end`, in the buffer), with its bytes before the field's last `chars`
    (0 to 8) made '0'."""
    return (words[end - 8] & _KEEP_LAST[chars]) | _FILL_FIRST[chars]


def all_digits(word: np.ndarray) -> np.ndarray:
    """Whether each of a word's eight bytes is an ASCII digit (no carry crosses a byte: a byte that could carry
    has its high bit set already)."""
    x = word ^ _ZEROS
    return (((x + _SIX) | x) & _HIGH) == 0


def zero_bytes(word: np.ndarray) -> np.ndarray:
    """The high bit of every zero byte of each word, exactly (no borrow crosses a byte)."""
    return ~(((word & _LOW7) + _LOW7) | word) & _HIGH


def eight_digits(word: np.ndarray) -> np.ndarray:
    """The number eight ASCII digits spell, the first byte the most significant."""
    x = word - _ZEROS
    x = (x * U(10) + (x >> U(8))) & U(0x00FF00FF00FF00FF)
    x = (x * U(100) + (x >> U(16))) & U(0x0000FFFF0000FFFF)
    return (x * U(10000) + (x >> U(32))) & U(0xFFFFFFFF)


def hash_words(words: list[np.ndarray]) -> np.ndarray:
    """A 64-bit hash of ids given as zero-padded words; a zero word adds nothing, so an id hashes the same
    whatever the number of words."""
    h = np.zeros(len(words[0]) if words else 0, dtype=np.uint64)
    for j, word in enumerate(words):
        x = word * _HASH_MULS[j]
        h += x ^ (x >> _HASH_SHIFT)
    return h


def topic_hash(topic: str) -> np.uint64:
    """A topic's part of a row's key (the same in every process: not Python's salted hash)."""
    return U(int.from_bytes(hashlib.blake2b(topic.encode(), digest_size=8).digest(), "little"))


@dataclass
class JudgedKeys:
    """The qrels prepared once for every run: each judged (topic, item) as a 64-bit key (the item's hash plus its
    topic's), sorted, with a bucket index over the keys' top bits to look up every row of a run at once; and each
    item's bytes (its first 64, as words) and length, to confirm a match. `usable` is False when two judged keys are
    equal (a lookup could then miss one): every file then goes to read_run."""

    qrels: Mapping[str, Mapping[str, int]]
    keys: np.ndarray  # uint64, sorted
    buckets: np.ndarray  # where each bucket of keys (by their top `bits` bits) starts in `keys`, then len(keys)
    bits: int
    items: np.ndarray  # the item of each key (str objects)
    item_topics: np.ndarray  # the topic number of each key
    topic_names: list[str]  # topic number -> topic
    topic_numbers: dict[str, int]
    words: np.ndarray  # (keys, 8) uint64
    lengths: np.ndarray
    usable: bool


def judged_keys(qrels: Mapping[str, Mapping[str, int]]) -> JudgedKeys:
    topic_names = list(qrels)
    counts = [len(qrels[topic]) for topic in topic_names]
    items = [item for topic in topic_names for item in qrels[topic]]
    raw = list(map(str.encode, items))
    width = ID_MAX // 8
    # Each item's first ID_MAX bytes, zero past its end (numpy's fixed-width bytes), as `width` words.
    words = np.array(raw or [b""], dtype=f"S{ID_MAX}").view("<u8").reshape(-1, width)[: len(raw)]
    numbers = np.repeat(np.arange(len(topic_names), dtype=np.int64), counts)
    topic_hashes = np.repeat(np.array([topic_hash(topic) for topic in topic_names], dtype=np.uint64), counts)
    keys = hash_words([words[:, j] for j in range(width)]) + topic_hashes
    order = np.argsort(keys, kind="stable")
    keys, words = keys[order], np.ascontiguousarray(words[order])
    bits = max(1, int(len(keys)).bit_length() + 3)
    buckets = np.zeros(2**bits + 1, dtype=np.int32)  # where each bucket starts in `keys`, then len(keys)
    np.cumsum(np.bincount((keys >> U(64 - bits)).astype(np.int64), minlength=2**bits), out=buckets[1:])
    return JudgedKeys(qrels=qrels, keys=keys, buckets=buckets, bits=bits,
                      items=np.array(items, dtype=object)[order],
                      item_topics=numbers[order], topic_names=topic_names,
                      topic_numbers={topic: number for number, topic in enumerate(topic_names)},
                      words=words, lengths=np.fromiter(map(len, raw), dtype=np.int64, count=len(raw))[order],
                      usable=not (len(keys) > 1 and (keys[1:] == keys[:-1]).any()))


def lookup(judged: JudgedKeys, keys: np.ndarray) -> np.ndarray:
    """For each key, its index in `judged.keys`, or -1."""
    count = len(judged.keys)
    if not count:
        return np.full(len(keys), -1, dtype=np.int64)
    bucket = (keys >> U(64 - judged.bits)).astype(np.int64)
    pos = judged.buckets[bucket]
    size = judged.buckets[bucket + 1] - pos
    found = np.where((size > 0) & (judged.keys[np.minimum(pos, count - 1)] == keys), pos, -1)
    # Buckets of two keys or more are few (the index has about 8 buckets a key): the rest of them one by one.
    rows = np.flatnonzero((size > 1) & (found < 0))
    pos, end = pos[rows] + 1, pos[rows] + size[rows]
    while len(rows):
        match = judged.keys[pos] == keys[rows]
        found[rows[match]] = pos[match]
        live = ~match & (pos + 1 < end)
        rows, pos, end = rows[live], pos[live] + 1, end[live]
    return found

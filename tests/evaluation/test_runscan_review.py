"""runscan.c (evaluation/scanner.py) against the numpy reader and read_run at the edges a review found: ids whose
64-bit keys collide (within a topic and across judged topics), fields that end the buffer, files of nothing but the
shortest lines, and several threads reading at once."""
import random
import threading

import numpy as np
import pytest

from evaluation import reading, scanner
from tests.evaluation.test_reading import by_read_run, numpy_only, same_prime, scanned

_MASK = 2**64 - 1


def _unmix(y: int) -> int:
    """The inverse of reading._hash's x ^ (x >> 29)."""
    return y ^ (y >> 29) ^ (y >> 58)


def _id_hash(item: bytes) -> int:
    words = np.frombuffer(item.ljust(-(-len(item) // 8) * 8, b"\0"), dtype="<u8")
    return int(reading._hash([words[j: j + 1] for j in range(len(words))])[0])


def colliding_id(target: int, seed: int) -> str:
    """A 16-byte printable ASCII id whose reading._hash is `target`: a random first word, and the second word that
    makes the sum (about one try in 3,000 gives printable bytes)."""
    first_mul, second_mul = (int(m) for m in reading._HASH_MULS[:2])
    inverse = pow(second_mul, -1, 2**64)
    rnd = random.Random(seed)
    while True:
        first = bytes(rnd.randrange(0x30, 0x7B) for _ in range(8))
        x = int.from_bytes(first, "little") * first_mul & _MASK
        need = (target - (x ^ (x >> 29))) & _MASK
        second = (_unmix(need) * inverse & _MASK).to_bytes(8, "little")
        if all(0x21 <= c <= 0x7E for c in second):
            item = first + second
            assert _id_hash(item) == target
            return item.decode("ascii")


def _topic(topic: str) -> int:
    return int(reading._topic_hash(topic))


# "1"'s twin: another id with its hash (so its key in any topic); and an id whose key in A.10 is (A.1, "1")'s.
TWIN = colliding_id(_id_hash(b"1"), 1)
ACROSS = colliding_id((_id_hash(b"1") + _topic("A.1") - _topic("A.10")) & _MASK, 3)
QRELS = {"A.1": {"1": 2, "2": 0, "x" * 64: 1}, "A.10": {"5": 2, "7": 0}, "B.2": {"9": 3}}


def _same_as_read_run(data: bytes, found, tmp_path) -> None:
    keys = reading.judged_keys(QRELS)
    expected, problems = by_read_run(data, tmp_path, QRELS)
    assert not problems
    prime = found.to_prime(keys)
    assert (prime.run, prime.unjudged) == (expected.run, expected.unjudged)
    assert [list(items) for items in prime.run.values()] == [list(items) for items in expected.run.values()]
    assert [repr(v) for items in prime.run.values() for v in items.values()] == \
        [repr(v) for items in expected.run.values() for v in items.values()]


COLLIDING = [
    # A judged id and its twin in one topic, each way round, the twin at the very end of the file.
    f"A.1\t1\t1\t3\tr\nA.1\t{TWIN}\t2\t2\tr\nA.1\t2\t3\t1\tr\nA.1\t{TWIN}".encode() + b"\t4\t0.5\tr",
    f"A.1\t{TWIN}\t1\t3\tr\nA.1\t1\t2\t2\tr\nA.1\t1\t3\t1\tr\n".encode(),
    # A key of A.10 that is a judged key of A.1, A.1 first and A.10 first.
    f"A.1\t1\t1\t3\tr\nA.10\t{ACROSS}\t1\t2\tr\nA.10\t5\t2\t1\tr\n".encode(),
    f"A.10\t{ACROSS}\t1\t2\tr\nA.10\t5\t2\t1\tr\nA.1\t1\t1\t3\tr\nA.1\t2\t2\t0\tr\n".encode(),
]


@pytest.mark.parametrize("data", COLLIDING)
def test_ids_whose_keys_collide_score_as_with_read_run(data, tmp_path):
    keys = reading.judged_keys(QRELS)
    assert keys.usable  # the collisions are between run rows, or a run row and a judged key, never two judged keys
    for found in (reading.prime_answers_of(data, keys), numpy_only(data, keys)):
        assert found is not None
        _same_as_read_run(data, found, tmp_path)


@pytest.mark.scanner
def test_a_key_shared_by_rows_of_two_judged_topics_gives_the_numpy_readers_prime():
    # A.10's row has (A.1, "1")'s key; A.10's judged row comes after A.1's.
    data = f"A.10\t{ACROSS}\t1\t3\tr\nA.1\t1\t1\t1\tr\nA.10\t5\t2\t2\tr\n".encode()
    keys = reading.judged_keys(QRELS)
    assert scanned(data, QRELS)
    assert same_prime(reading.prime_answers_of(data, keys), numpy_only(data, keys))


def test_a_score_with_two_dots_far_apart_is_left_to_read_run():
    # Sixteen characters, one dot in each of the two words the numpy code reads: read_run rejects the score.
    data = b"A.1\t1\t1\t1.2345672.456789\tr\n"
    assert reading.prime_answers_of(data, reading.judged_keys(QRELS)) is None


# Fields that end the buffer (ids of 7, 8, 9, 63 and 64 bytes, scores of 15 digits, a tag of 64 bytes), with and
# without the line end; and lines as short as a line can be, as many as the row bound (size // (2 * ncols) + 1).
ENDS = [b"A.1\t1\t1\t1\t" + b"r" * n for n in (1, 7, 8, 9, 63, 64, 65)] + \
    [b"A.1\t" + b"x" * n + b"\t1\t1\tr" for n in (7, 8, 9, 63, 64)] + \
    [b"A.1\t1\t1\t" + s for s in (b"1" * 15, b"-." + b"1" * 15, b"+" + b"9" * 14 + b".", b"-0")] + \
    [b"A.1\tQ0\t" + b"x" * 64 + b"\t1\t1\tr\n\n", b"x" * 64 + b"\t1\t1\t1\tr"] + \
    [(b"A.1\tb\t1\t1\tc\n" * 3)[:-1], b"a\tb\t1\t1\tc\n" * 7, (b"a\tQ0\tb\t1\t1\tc\n" * 5)[:-1]]


@pytest.mark.scanner
@pytest.mark.parametrize("data", ENDS)
def test_fields_at_the_end_of_the_file_read_as_by_the_numpy_code(data, tmp_path):
    keys = reading.judged_keys(QRELS)
    found = reading.prime_answers_of(data, keys)
    assert same_prime(found, numpy_only(data, keys))
    if found is not None:
        _same_as_read_run(data, found, tmp_path)


@pytest.mark.scanner
def test_the_shortest_lines_fill_the_row_bound_exactly():
    for ncols, line in ((5, b"a\tb\t1\t1\tc\n"), (6, b"a\tq\tb\t1\t1\tc\n")):  # Q0 is checked in reading.py
        for count in (1, 2, 3, 100):
            data = (line * count)[:-1]
            assert len(data) // (2 * ncols) + 1 == count
            found = scanner.scan(data, len(data), ncols, ncols - 4)
            assert found is not None and len(found.scores) == count and len(found.stretch_first) == 1


@pytest.mark.scanner
def test_threads_reading_at_once_each_get_their_own_files_prime():
    rnd = random.Random(7)
    qrels = {"A.1": {str(i): i % 4 for i in range(0, 300, 3)}, "A.10": {str(i): 1 for i in range(0, 300, 5)}}
    keys = reading.judged_keys(qrels)
    files = [b"".join(b"%s\t%d\t%d\t%.4f\tr\n" % (rnd.choice([b"A.1", b"A.10", b"B"]), rnd.randrange(300), i + 1,
                                                  rnd.random()) for i in range(n)) for n in (3, 40, 900, 2500)]
    expected = [numpy_only(data, keys) for data in files]
    wrong = []

    def read(offset: int) -> None:
        got = [(i % len(files), reading.prime_answers_of(files[i % len(files)], keys))
               for i in range(offset, offset + 24)]
        wrong.extend(i for i, found in got if not same_prime(found, expected[i]))  # read after the others too

    threads = [threading.Thread(target=read, args=(k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []

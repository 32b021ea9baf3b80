"""The whole-file reader of evaluation (ir/reading.py) against read_run and the prime filter it stands in for:
the same prime runs, scores and messages on generated valid and invalid files."""
import dataclasses
import logging
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from assessor.models import Assignment
from assessor.services import assignment_withdraw, judgments_import
from evaluation import selectors, services
from ir import reading, words
from ir.formats.runs import read_run
from ir.prime import Evaluator, prime_answers
from ir.problems import InputError, Problems
from tests.evaluation.test_campaign import judged_answers, judged_formulas  # noqa: F401 (fixtures)

QRELS = {"A.1": {"1": 2, "2": 0, "3": 3, "x" * 64: 1, "10": 1},
         "A.10": {"1": 1, "5": 2, "7": 0},
         "B.2": {"9": 3}}
QRELS_LINES = "".join(f"{t}\t0\t{d}\t{g}\n" for t, items in QRELS.items() for d, g in items.items())

TOPICS = ["A.1", "A.10", "B.2", "A.2", "é.1", "x" * 64, "x" * 65]
DOCS = ["1", "2", "3", "5", "7", "9", "10", "11", "12", "x" * 64, "x" * 65, "é", "0001"]
RANKS = ["1", "2", "3", "10", "999999999", "1000000000", "2147483647", "2147483648", "007", "0", "-1", "1.0", "",
         "١", "1_0", "x", "9" * 13]
SCORES = ["1.5", "-0.0", "0", "3", "2.25", "-7.125", "0.1", "0.30000000000000004", "123456789012345",
          "1234567890123456",
          "12345678901234567890", "1e5", "1E-3", "+2.25", ".5", "5.", "-.5", "nan", "inf", "-inf", "1e999", "abc", "",
          "1_0", "-", ".", "1.2.3", "0.12345678901234", "９", "1e-400", "-0"]
plain = st.sampled_from
# A file is either plain (what runs look like: most are read whole) or has, here and there, anything read_run has a
# rule for: bad ranks and scores, wrong column counts, long or non-ASCII ids, white space, blank lines, bad bytes.
PLAIN = {"topic": plain(TOPICS[:4]), "doc": plain(DOCS[:9]), "rank": st.integers(1, 1200).map(str),
         "score": st.one_of(st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: f"{f:.6f}"),
                            st.floats(allow_nan=False, allow_infinity=False).map(repr),
                            st.integers(-10**6, 10**6).map(str)),
         "tag": st.just("run")}
ANY = {"topic": plain(TOPICS), "doc": plain(DOCS), "rank": plain(RANKS), "score": plain(SCORES),
       "tag": plain(["run", "other", "t t", ""])}


@st.composite
def run_files(draw) -> bytes:
    trec = draw(st.booleans())
    odd = draw(st.integers(0, 3)) == 0  # one file in four breaks some rule
    sep = draw(plain(["\t", " ", "  ", "\t ", " \t"])) if odd and draw(st.booleans()) else "\t"
    end = draw(plain(["\n", "\r\n", "\r\r\n"] if odd else ["\n", "\r\n"]))
    chance = draw(st.integers(3, 60))

    def field(name: str) -> str:
        return draw(ANY[name]) if odd and draw(st.integers(0, chance)) == 0 else draw(PLAIN[name])

    lines = []
    for _ in range(draw(st.integers(0, 40))):
        fields = [field("topic")] + (["Q0"] if trec else []) + [field("doc"), field("rank"), field("score"),
                                                                field("tag")]
        if odd and draw(st.integers(0, chance)) == 0:
            fields = fields[:-1] if draw(st.booleans()) else [*fields, "extra"]
        if trec and odd and draw(st.integers(0, chance)) == 0:
            fields[1] = draw(plain(["Q1", "", "q0"]))
        line = sep.join(fields)
        if odd and draw(st.integers(0, chance)) == 0:
            line = draw(plain(["", " ", "\t", line + " ", " " + line, line + "\t", line + "\r"]))
        lines.append(line + end)
    data = "".join(lines).encode()
    if draw(st.integers(0, 20)) == 0:
        data = b"\xef\xbb\xbf" + data
    if odd and draw(st.integers(0, 10)) == 0 and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + draw(plain([b"\xff", b"\x00", b"\x0b", b"\r"])) + data[at:]
    if draw(st.integers(0, 10)) == 0:
        data = data.rstrip(b"\r\n")
    return data


def by_read_run(data: bytes, tmp_path: Path, qrels=QRELS):
    """What evaluation did before the whole-file reader: read_run with its checks, then the prime filter."""
    path = tmp_path / "run.tsv"
    path.write_bytes(data)
    problems = Problems(file="run.tsv")
    with open(path, "rb") as stream:
        rows = [(r.topic_id, r.item_id, r.score) for r in read_run(
            stream, problems, Problems(), topics=services._AnyTopic(), task="answers",
            max_depth=services.NO_DEPTH_LIMIT, find_duplicates=False)]
    return prime_answers(rows, qrels), problems


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=run_files())
@example(data=b"A.1\t1\t1\t1.5\trun\nA.1\t1\t2\t9.5\trun\n")  # a repeated post scoring higher the second time
@example(data=b"A.1\t1\t1\t1.5\trun\n\nA.1\t2\t2\t0.5\trun\n")  # a blank line
@example(data=b"A.1\t1\t01\t1.5\trun\n")  # a rank with a leading zero
@example(data=b"A.1 1 1 1.5 run\n")  # spaces
def test_the_whole_file_reader_accepts_only_what_read_run_accepts_and_filters_the_same(data, tmp_path):
    expected, problems = by_read_run(data, tmp_path)
    prime = reading.prime_answers_of(data, words.judged_keys(QRELS))
    event("read whole" if prime is not None else "left to read_run")
    if prime is None:
        return  # evaluate_files reads it with read_run: the same by construction (next test)
    assert not problems, problems.messages()
    assert prime.run == expected.run
    assert list(prime.run) == list(expected.run)
    assert prime.unjudged == expected.unjudged
    assert prime.first == expected.first  # the first result, for AR and P@1
    # The same floats, bit for bit (== would take 0.0 for -0.0).
    assert [repr(v) for items in prime.run.values() for v in items.values()] == \
        [repr(v) for items in expected.run.values() for v in items.values()]
    # Read in parts of a line or two (a topic's rows across parts), the same.
    assert in_parts(data, QRELS) == (prime.run, prime.unjudged, prime.first)


def in_parts(data: bytes, qrels, part_bytes: int = 40):
    """The whole-file reader, in parts of `part_bytes`."""
    saved, reading.PART_BYTES = reading.PART_BYTES, part_bytes
    try:
        prime = reading.prime_answers_of(data, words.judged_keys(qrels))
    finally:
        reading.PART_BYTES = saved
    return prime.run, prime.unjudged, prime.first


plain_rows = st.lists(st.tuples(plain(TOPICS[:4]), plain(DOCS[:10]), st.integers(1, 10**9),
                                st.one_of(st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: f"{f:.6f}"),
                                          st.floats(allow_nan=False, allow_infinity=False).map(repr),
                                          st.integers(-10**14, 10**14).map(str))),
                      min_size=1, max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=plain_rows, trec=st.booleans(), crlf=st.booleans())
def test_plain_files_are_read_whole_not_sent_to_read_run(rows, trec, crlf, tmp_path):
    # Repeated posts, ties, scores out of rank order and topics in several stretches included.
    q0 = "Q0\t" if trec else ""
    data = "".join(f"{t}\t{q0}{d}\t{r}\t{s}\trun{chr(13) if crlf else ''}\n" for t, d, r, s in rows).encode()
    expected, problems = by_read_run(data, tmp_path)
    assert not problems
    prime = reading.prime_answers_of(data, words.judged_keys(QRELS))
    assert prime is not None
    assert (prime.run, prime.unjudged, prime.first) == (expected.run, expected.unjudged, expected.first)
    assert in_parts(data, QRELS) == (expected.run, expected.unjudged, expected.first)


def outcome(qrels: Path, runs: list[Path], **kw):
    """evaluate_files' scores, or the messages of its rejection."""
    try:
        result = services.evaluate_files(qrels_path=qrels, run_paths=runs, **kw)
    except InputError as exc:
        return exc.messages()
    return [(s.name, s.per_topic, s.means, s.topics) for s in result.runs]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(run_files(), min_size=1, max_size=3), all_topics=st.booleans())
def test_evaluate_files_gives_the_same_scores_and_messages_as_with_read_run_alone(files, all_topics, monkeypatch):
    with tempfile.TemporaryDirectory() as name:
        check_evaluate_files(files, all_topics, Path(name), monkeypatch)


def check_evaluate_files(files, all_topics, folder: Path, monkeypatch):
    qrels = folder / "qrels.txt"
    qrels.write_text(QRELS_LINES)
    runs = []
    for i, data in enumerate(files):
        runs.append(folder / f"run{i}.tsv")
        runs[-1].write_bytes(data)
    fused = outcome(qrels, runs, task="answers", all_topics=all_topics)
    with monkeypatch.context() as patch:
        patch.setattr(reading, "read_prime_answers", lambda path, judged: None)
        alone = outcome(qrels, runs, task="answers", all_topics=all_topics)
    assert fused == alone


def test_a_problem_in_one_file_gives_read_runs_line_numbered_message(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_LINES)
    good = tmp_path / "good.tsv"
    good.write_text("A.1\t1\t1\t2.0\trun\nA.1\t2\t2\t1.0\trun\n")
    bad = tmp_path / "bad.tsv"
    bad.write_text("A.1\t1\t1\t2.0\trun\nA.1\t2\t2\tinf\trun\nA.1\t3\t0\t1.0\trun\n")
    with pytest.raises(InputError) as info:
        services.evaluate_files(qrels_path=qrels, run_paths=[good, bad])
    assert info.value.messages() == ["bad.tsv:line 2: score 'inf' is not a finite number",
                                     "bad.tsv:line 3: rank '0' is not a whole number >= 1"]


def test_real_runs_are_read_whole_with_the_scores_of_read_run(arqmath_data, tmp_path):
    qrels = arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt"
    judged: dict[str, dict[str, int]] = {}
    for line in qrels.read_text().splitlines():
        t, _zero, d, g = line.split()
        judged.setdefault(t, {})[d] = int(g)
    keys = words.judged_keys(judged)
    for name in ("psu-task1-auto-both-A.tsv", "ensemble-task1.tsv"):
        data = (arqmath_data / "runs" / name).read_bytes()
        prime = reading.prime_answers_of(data, keys)
        assert prime is not None, name  # CRLF, TREC shape: still the whole-file path
        problems = Problems()
        with open(arqmath_data / "runs" / name, "rb") as stream:
            rows = [(r.topic_id, r.item_id, r.score) for r in read_run(
                stream, problems, Problems(), topics=services._AnyTopic(), task="answers", max_depth=2**31,
                find_duplicates=False)]
        expected = prime_answers(rows, judged)
        assert (prime.run, prime.unjudged, prime.first) == (expected.run, expected.unjudged, expected.first)
        evaluator = Evaluator(judged)
        assert evaluator.scores(name, prime).means == evaluator.scores(name, expected).means


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stretches=st.lists(st.tuples(plain(["A.1", "A.10", "B.2"]), st.integers(1, 150)), min_size=1, max_size=5),
       scores=st.lists(plain(["1", "0.5", "2.25", "-3", "7"]), min_size=1, max_size=30), repeat=st.booleans())
def test_top_ten_with_tied_scores_across_long_stretches(stretches, scores, repeat, tmp_path):
    # Long stretches of a topic (so the top 10 is chosen by score within each), few distinct scores (ties at the
    # 10th place, broken by doc id descending), a topic in several stretches, with or without a repeated doc.
    lines, doc = [], 0
    for topic, count in stretches:
        for i in range(count):
            doc += 1
            name = "1" if repeat and i == count - 1 else str(doc)
            lines.append(f"{topic}\t{name}\t{i + 1}\t{scores[(doc * 7) % len(scores)]}\trun\n")
    qrels = {topic: {str(d): d % 4 for d in range(1, doc + 1) if d % 3 == 0} for topic in ("A.1", "A.10", "B.2")}
    data = "".join(lines).encode()
    expected, problems = by_read_run(data, tmp_path, qrels)
    assert not problems
    prime = reading.prime_answers_of(data, words.judged_keys(qrels))
    assert prime is not None
    assert (prime.run, prime.unjudged, prime.first) == (expected.run, expected.unjudged, expected.first)
    assert in_parts(data, qrels, 200) == (expected.run, expected.unjudged, expected.first)


def test_campaign_qrels_in_one_query_are_the_exports_topic_by_topic(judged_answers, judged_formulas, ada):  # noqa: F811
    def by_topic(campaign):
        return [(topic, rows) for topic, rows in selectors.qrels_by_topic(campaign=campaign)]

    def in_one(campaign):
        return [(topic, list(items.items())) for topic, items in selectors.campaign_qrels(campaign=campaign).items()]

    assert in_one(judged_formulas) == by_topic(judged_formulas) != []
    assert in_one(judged_answers) == by_topic(judged_answers) == [("A.1", [("10", 3), ("12", 0)]), ("A.2", [("20", 2)])]
    # A topic handed over: the second assessor's grades where they have one, the first one's elsewhere.
    assignment_withdraw(assignment=Assignment.objects.get(assessor=ada, topic__topic_id="A.1", kind="official"))
    judgments_import(campaign=judged_answers, lines=["cy\tA.1\t10\t1\t", "cy\tA.1\t12\tDK\tunsure", "cy\tA.1\t11\t2\t"])
    assert in_one(judged_answers) == by_topic(judged_answers) == [("A.1", [("10", 1), ("11", 2)]), ("A.2", [("20", 2)])]


def test_what_the_fast_reader_cannot_vouch_for_goes_to_read_run(tmp_path, monkeypatch):
    data = b"A.1\t1\t1\t2.0\trun\nA.1\t2\t2\t1.0\trun\n"
    path = tmp_path / "run.tsv"
    path.write_bytes(data)
    keys = words.judged_keys(QRELS)
    assert reading.read_prime_answers(path, keys) is not None
    # Two judged keys with one hash (a lookup could miss one): no file is read whole.
    assert reading.prime_answers_of(data, dataclasses.replace(keys, usable=False)) is None
    # A file larger than the reader holds; a file that is not there (read_run reports it).
    monkeypatch.setattr(reading, "FILE_MAX", len(data) - 1)
    assert reading.read_prime_answers(path, keys) is None
    assert reading.read_prime_answers(tmp_path / "missing.tsv", keys) is None


def test_a_run_that_grows_while_it_is_read_is_read_whole(tmp_path, monkeypatch):
    data = b"A.1\t1\t1\t2.0\trun\nA.1\t2\t2\t1.0\trun\nA.10\t5\t1\t3\trun\n"
    path = tmp_path / "run.tsv"
    path.write_bytes(data)
    keys = words.judged_keys(QRELS)
    expected = reading.read_prime_answers(path, keys)
    real = os.fstat
    monkeypatch.setattr(reading.os, "fstat", lambda fd: os.stat_result((*real(fd)[:6], 5, *real(fd)[7:])))
    assert reading.read_prime_answers(path, keys) == expected
    assert expected.run == {"A.1": {"1": 2.0, "2": 1.0}, "A.10": {"5": 3.0}}
    # Grown past the reader's limit: left to read_run.
    monkeypatch.setattr(reading, "FILE_MAX", 20)
    assert reading.read_prime_answers(path, keys) is None


def test_an_error_in_the_whole_file_reader_is_logged_and_the_run_read_row_by_row(tmp_path, monkeypatch, caplog):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_LINES)
    run = tmp_path / "run.tsv"
    run.write_text("A.1\t1\t1\t2.0\trun\nA.1\t2\t2\t1.0\trun\n")
    expected = outcome(qrels, [run])

    def bug(data, judged):
        raise IndexError("a bug in the reader")

    monkeypatch.setattr(reading, "prime_answers_of", bug)
    with caplog.at_level(logging.ERROR, logger="ir.reading"):
        assert outcome(qrels, [run]) == expected
    assert "read row by row instead" in caplog.text and "IndexError: a bug in the reader" in caplog.text

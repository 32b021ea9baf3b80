"""The run reader takes plain blocks of rows a column at a time: whatever a file holds, it finds the same rows,
problems, warnings and summary as when every line is read by the line rules."""
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir.formats import runs
from ir.formats.runs import RunSummary, read_run
from ir.problems import Problems

TOPICS = {"A.1": 1, "A.2": 2, "A.3": 3}


def read(data: bytes, *, task: str = "answers", max_depth: int = 6, find_duplicates: bool = True):
    problems, warnings, summary = Problems(), Problems(), RunSummary()
    rows = list(read_run(io.BytesIO(data), problems, warnings, topics=TOPICS, task=task, max_depth=max_depth,
                         summary=summary, find_duplicates=find_duplicates))
    return rows, [(p.line, p.message) for p in problems.items], [(p.line, p.message) for p in warnings.items], summary


def line_by_line(data: bytes, **options):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runs._Reader, "block", lambda self, before, chunk: None)
        return read(data, **options)


# Mostly good rows in rank order, with now and then a row that breaks a rule, a topic out of place, a tie, a second
# tag, an empty line or a line end of another kind.
TOPIC = st.sampled_from(["A.1", "A.1", "A.2", "A.2", "A.3", "A.9", ""])
ITEM = st.sampled_from([str(n) for n in range(1, 9)] + ["", "x" * 70, "r_n"])  # "r_n": also a run tag
RANK = st.one_of(st.integers(0, 8).map(str),
                 st.sampled_from(["-1", "+1", "1.5", "0001", "9" * 13, "0" * 13 + "1", "abc"]))
SCORE = st.one_of(st.sampled_from(["1", "0.5", "0.5", "0.25", "2e0", "-3"]),
                  st.sampled_from(["nan", "inf", "1_0", "x", "1e400"]))


@st.composite
def run_files(draw) -> bytes:
    shape = draw(st.sampled_from(["trec", "task1", "task2"]))
    lines = []
    for _ in range(draw(st.integers(0, 40))):
        topic, item, rank, score = draw(TOPIC), draw(ITEM), draw(RANK), draw(SCORE)
        tag = draw(st.sampled_from(["r_n", "r_n", "r_n", "r_", "other"]))
        fields = {"trec": [topic, "Q0", item, rank, score, tag], "task1": [topic, item, rank, score, tag],
                  "task2": [topic, item, draw(ITEM), rank, score, tag]}[shape]
        columns = draw(st.integers(0, 9))
        if columns == 0:
            fields = fields[:-1]
        elif columns == 1:
            fields.insert(1, draw(ITEM))
        sep = draw(st.sampled_from(["\t"] * 8 + [" ", "\t "]))
        lines.append(sep.join(fields) + draw(st.sampled_from(["\n"] * 8 + ["\r\n", "\t\n", "\n\n"])))
    text = "".join(lines)
    if text and draw(st.booleans()):
        text = text.rstrip("\n")
    return text.encode()


@st.composite
def ranked_files(draw) -> bytes:
    """Files whose rows are mostly in rank order: the block path's own case, with its edges."""
    lines = []
    for topic in draw(st.permutations(["A.1", "A.2", "A.3"]))[:draw(st.integers(1, 3))]:
        start = draw(st.sampled_from([0, 1, 1, 2]))
        score = 100.0
        for i in range(draw(st.integers(1, 8))):
            score -= draw(st.sampled_from([0.0, 1.0, 1.0, -1.0]))
            item = draw(st.sampled_from([str(9 - i), str(i), "5"]))
            lines.append(f"{topic}\tQ0\t{item}\t{start + i}\t{score}\trun\n")
        if draw(st.integers(0, 4)) == 0:
            lines.append(lines[draw(st.integers(0, len(lines) - 1))])
    return "".join(lines).encode()


@pytest.mark.parametrize("block", [1, 7, 40, 1 << 18])
@settings(max_examples=150, deadline=None)
@given(data=st.one_of(run_files(), ranked_files()), max_depth=st.sampled_from([3, 6, 1000]),
       find_duplicates=st.booleans())
def test_a_file_read_in_blocks_gives_what_its_lines_give(block, data, max_depth, find_duplicates):
    options = {"max_depth": max_depth, "find_duplicates": find_duplicates}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runs, "BLOCK", block)
        found = read(data, **options)
    assert found == line_by_line(data, **options)


def test_a_bad_line_in_the_middle_of_a_block_is_reported_with_its_number():
    lines = [f"A.1\tQ0\t{n}\t{n}\t{100 - n}\trun\n" for n in range(1, 1001)]
    lines[500] = "A.1\tQ0\t501\t501\tfive\trun\n"
    rows, problems, _warnings, summary = read("".join(lines).encode(), max_depth=1000)
    assert problems == [(501, "score 'five' is not a finite number")]
    assert len(rows) == summary.rows == 999 and rows[500].line == 502


def test_a_line_with_a_column_too_many_is_found_when_the_next_has_one_too_few():
    # Run tag A.1, as the topic: read as one stream of fields, the lines would make three good rows.
    data = (b"A.1\t1\t1\t9\tA.1\n"
            b"A.1\t2\t2\t8\tA.1\tA.1\n"  # six columns
            b"5\t3\t7\tA.1\n")  # four
    rows, problems, _warnings, _summary = read(data)
    assert [row.line for row in rows] == [1]
    assert [message for _line, message in problems] == [
        "expected 5 columns (topic post_id rank score run_tag), found 6",
        "expected 5 columns (topic post_id rank score run_tag), found 4"]

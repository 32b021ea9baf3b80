"""nuggetizer's nugget banks and assignments, and the TREC RAG topics (ir/formats/nuggets.py)."""
import io
import json

import pytest

from ir.formats.nuggets import (
    AssignedNugget,
    Nugget,
    NuggetAssignment,
    NuggetBank,
    read_file,
    read_nugget_assignments,
    read_nugget_banks,
    read_rag_topics,
    write_nugget_assignments,
    write_nugget_banks,
)
from ir.nugget_metrics import assignment_scores
from ir.problems import InputError, Problems
from tests.ir.nuggetizer_reference import calculate_nugget_scores

# nuggetizer's create output and assign output (answers), as its documentation shows them.
BANK = {"query": "What is Python?", "qid": "q1", "nuggets": [
    {"text": "Python is a high-level programming language", "importance": "vital"},
    {"text": "Python is used for web development", "importance": "okay"}]}
ASSIGNED = {"query": "What is Python?", "qid": "q1", "answer_text": "Python is a high-level programming language...",
            "response_length": 42, "run_id": "run-123", "nuggets": [
                {"text": "Python is a high-level programming language", "importance": "vital",
                 "assignment": "support"},
                {"text": "Python is used for data science", "importance": "okay", "assignment": "partial_support"},
                {"text": "Python supports multithreading", "importance": "okay", "assignment": "not_support"}]}


def lines(*records):
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)
    return io.BytesIO(text.encode())


def run(reader, *records, **options):
    problems = Problems(file="f.jsonl")
    return reader(lines(*records), problems, **options), problems.messages()


def test_a_bank_reads_each_topics_nuggets():
    (bank,), problems = run(read_nugget_banks, BANK)
    assert problems == []
    assert bank == NuggetBank(1, "q1", "What is Python?", (
        Nugget("Python is a high-level programming language", "vital"),
        Nugget("Python is used for web development", "okay")))


def test_a_bank_with_nuggetizers_reasoning_and_trace_fields_is_read_past_them():
    traced = {**BANK, "creator_reasoning_traces": ["r"], "trace": {"prompt": "p"},
              "nuggets": [{**BANK["nuggets"][0], "reasoning": "why", "trace": {"model": "m"}}]}
    (bank,), problems = run(read_nugget_banks, traced)
    assert problems == [] and bank.nuggets == (Nugget("Python is a high-level programming language", "vital"),)


def test_a_nugget_without_importance_is_vital_as_nuggetizer_reads_it():
    (bank,), _ = run(read_nugget_banks, {**BANK, "nuggets": [{"text": "x"}]})
    assert bank.nuggets == (Nugget("x", "vital"),)


@pytest.mark.parametrize(("record", "message"), [
    ("[1]", "line 1: not a JSON object"),
    ({k: v for k, v in BANK.items() if k != "qid"}, "line 1: missing qid"),
    ({k: v for k, v in BANK.items() if k != "query"}, "line 1: missing query"),
    ({k: v for k, v in BANK.items() if k != "nuggets"}, "line 1: missing nuggets"),
    ({**BANK, "nuggets": {}}, "nuggets is not a list"),
    ({**BANK, "nuggets": ["x"]}, "nuggets[0] is not an object"),
    ({**BANK, "nuggets": [{"text": ""}]}, "nuggets[0].text is not a non-empty string"),
    ({**BANK, "nuggets": [{"text": "x", "importance": "high"}]}, "nuggets[0] has importance \"high\""),
    ({**BANK, "nuggets": [{"text": "x", "assignment": "support"}]}, "unknown field 'assignment' in nuggets[0]"),
    ({**BANK, "candidates": []}, "unknown field 'candidates'"),
    ({**BANK, "qid": ["q"]}, "qid must be a string or an integer"),
])
def test_a_bad_bank_line_is_refused_with_its_line_number(record, message):
    banks, problems = run(read_nugget_banks, record)
    assert banks == []
    assert any(message in p for p in problems), problems


def test_a_second_bank_for_a_topic_refuses_the_file():
    banks, problems = run(read_nugget_banks, BANK, {**BANK, "qid": "q2"}, BANK)
    assert banks == []
    assert problems == ["f.jsonl:line 3: a second line of nuggets for topic 'q1' (the first is on line 1)"]


def test_an_assignment_reads_each_nuggets_support():
    (a,), problems = run(read_nugget_assignments, ASSIGNED)
    assert problems == []
    assert (a.topic_id, a.run_id, a.response_length) == ("q1", "run-123", 42)
    assert [n.assignment for n in a.nuggets] == ["support", "partial_support", "not_support"]


@pytest.mark.parametrize(("record", "message"), [
    ({**ASSIGNED, "nuggets": [{"text": "x", "importance": "vital"}]}, "nuggets[0] has no assignment"),
    ({**ASSIGNED, "nuggets": [{"text": "x", "importance": "vital", "assignment": "yes"}]},
     "nuggets[0] has assignment \"yes\""),
    ({k: v for k, v in ASSIGNED.items() if k != "run_id"}, "missing run_id"),
    ({**ASSIGNED, "response_length": -1}, "response_length -1 is not a whole number of words"),
    ({**ASSIGNED, "docid": "d1"}, "unknown field 'docid'"),
])
def test_a_bad_assignment_line_is_refused(record, message):
    records, problems = run(read_nugget_assignments, record)
    assert records == []
    assert any(message in p for p in problems), problems


def test_two_runs_may_be_assigned_to_one_topic_but_not_one_run_twice():
    records, problems = run(read_nugget_assignments, ASSIGNED, {**ASSIGNED, "run_id": "other"})
    assert problems == [] and len(records) == 2
    _, problems = run(read_nugget_assignments, ASSIGNED, ASSIGNED)
    assert problems == ["f.jsonl:line 2: a second assignment for topic and run 'q1' 'run-123' (the first is on line 1)"]


def test_written_banks_and_assignments_are_nuggetizers_lines_byte_for_byte():
    banks, _ = run(read_nugget_banks, BANK)
    out = io.StringIO()
    write_nugget_banks(banks, out)
    assert out.getvalue() == json.dumps(BANK) + "\n"  # nuggetizer writes json.dumps(record) + "\n"
    assignments, _ = run(read_nugget_assignments, ASSIGNED)
    out = io.StringIO()
    write_nugget_assignments(assignments, out)
    assert out.getvalue() == json.dumps(ASSIGNED) + "\n"


def test_written_assignments_score_the_same_in_nuggetizer_and_here():
    a = NuggetAssignment(1, "7", "r", "q", "text", 1, (AssignedNugget("a", "vital", "partial_support"),
                                                          AssignedNugget("b", "okay", "support"),
                                                          AssignedNugget("c", "vital", "failed")))
    out = io.StringIO()
    write_nugget_assignments([a], out)
    record = json.loads(out.getvalue())
    theirs = calculate_nugget_scores(record["qid"], record["nuggets"])
    ours = assignment_scores(a)
    assert (ours.strict_vital, ours.strict_all, ours.vital, ours.all) == (
        theirs.strict_vital_score, theirs.strict_all_score, theirs.vital_score, theirs.all_score)
    assert (ours.strict_vital, ours.strict_all, ours.vital, ours.all) == (0, 1 / 3, 0.25, 0.5)


def test_rag_topics_read_the_2025_narratives_and_the_guidelines_titles():
    topics, problems = run(read_rag_topics, {"id": "464", "narrative": "I want a thorough understanding."},
                           {"id": 1, "title": "I'm trying to understand."})
    assert problems == []
    assert [(t.line, t.topic_id, t.text) for t in topics] == [
        (1, "464", "I want a thorough understanding."), (2, "1", "I'm trying to understand.")]


@pytest.mark.parametrize(("record", "message"), [
    ({"id": "1"}, "line 1: a topic has its text in narrative (or title)"),
    ({"id": "1", "narrative": "a", "title": "b"}, "both narrative and title"),
    ({"id": "1", "narrative": " "}, "topic '1' has an empty narrative"),
    ({"narrative": "a"}, "missing id"),
    ({"id": "1", "narrative": "a", "query": "b"}, "unknown field 'query'"),
])
def test_a_bad_topic_line_is_refused(record, message):
    topics, problems = run(read_rag_topics, record)
    assert topics == []
    assert any(message in p for p in problems), problems


def test_read_file_raises_input_error_with_the_uploads_name(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"id": "1"}\n')
    with pytest.raises(InputError) as caught:
        read_file(path, read_rag_topics, filename="topics.jsonl")
    assert caught.value.messages() == ["topics.jsonl:line 1: a topic has its text in narrative (or title)"]
    path.write_text(json.dumps(BANK) + "\n")
    assert read_file(path, read_nugget_banks, topics={"q1"})[0].topic_id == "q1"

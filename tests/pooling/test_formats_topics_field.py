"""Topics in the field's formats (issue 25): classic TREC topic files with their quirks, TSV queries and JSONL with
micro-topics, told apart by shape; their problems with line numbers; nothing of a bad file kept."""
import io

import pytest

from ir.formats.kinds import head_kind
from ir.formats.topics import read_topic_file
from ir.problems import InputError, Problems
from pooling import services
from pooling.models import Campaign
from tests.factories import CampaignFactory

# As TREC's own files are: field tags never closed, `Number:`/`Description:` labels, blank lines, wrapped prose,
# tags of no field (<dom>, <con>), a trailing space after the number.
TREC = b"""<top>
<head> Tipster Topic Description
<num> Number: 301\x20
<dom> Domain: International Economics
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal
activity, the activity, and, if possible, collaborating organizations.

<narr> Narrative:
A relevant document must as a minimum identify the organization and the
type of illegal activity (e.g., Columbian cartel exporting cocaine).

<con> Concept(s):
1. organized crime
</top>


<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio</title>
<desc> Is the disease of Poliomyelitis (polio) under control in the world?
</top>
"""


def read(data: bytes, task: str = "answers"):
    problems = Problems(file="topics")
    return read_topic_file(io.BytesIO(data), problems, task=task), problems.messages()


def test_a_trec_file_gives_number_title_description_and_narrative():
    topics, problems = read(TREC)
    assert problems == []
    first, second = topics
    assert (first.line, first.topic_id, first.title) == (1, "301", "International Organized Crime")
    assert first.description == ("Identify organizations that participate in international criminal activity, the "
                                 "activity, and, if possible, collaborating organizations.")
    assert first.narrative.startswith("A relevant document must as a minimum identify the organization and the type")
    assert first.narrative.endswith("(e.g., Columbian cartel exporting cocaine).")  # <con> is no part of it
    assert (second.topic_id, second.title, second.narrative) == ("302", "Poliomyelitis and Post-Polio", "")
    assert second.description == "Is the disease of Poliomyelitis (polio) under control in the world?"


@pytest.mark.parametrize("data, expected", [
    (b"<top>\n<title> no number\n</top>\n", ["topics:line 1: topic without <num>"]),
    (b"<top>\n<num> 1\n<title> a\n<top>\n<num> 2\n<title> b\n</top>\n",
     ["topics:line 4: <top> inside the <top> of line 1 (its </top> is missing)"]),
    (b"<top>\n<num> 1\n<title> a\n", ["topics:line 3: the <top> of line 1 has no </top>"]),
    (b"<top>\n<num> 1\n</top>\nstray words\n<top>\n<num> 1\n</top>\n",
     ["topics:line 4: text outside <top> ... </top>", "topics:line 5: duplicate topic id '1' (lines 1 and 5)"]),
    (b"<top>\n<num> Number: 3 01\n</top>\n", ["topics:line 1: topic number '3 01' has a space"]),
])
def test_a_bad_trec_file_says_where_and_keeps_nothing_bad(data, expected):
    topics, problems = read(data)
    assert problems == expected


def test_tsv_queries_with_or_without_a_header():
    topics, problems = read(b"qid\tquery\n1\tcheap flights\n\n2\tdog breeds\n")
    assert problems == [] and [(t.line, t.topic_id, t.title) for t in topics] == [(2, "1", "cheap flights"),
                                                                                  (4, "2", "dog breeds")]
    topics, problems = read(b"1\tcheap flights\n2\ta\tb\n3\t\n1\tagain\n")
    assert [t.topic_id for t in topics] == ["1"]
    assert problems == ["topics:line 2: 3 tab-separated fields, expected 2 (topic id, query text)",
                        "topics:line 3: topic '3' has no text",
                        "topics:line 4: duplicate topic id '1' (lines 1 and 4)"]


JSONL = (b'{"id": "301", "title": "Planning a trip", "prelude": "I am going to Japan in May.", "micro_topics": '
         b'[{"text": "Which cities?"}, {"id": "301-b", "text": "What to pack?", "narrative": "weather"}]}\n'
         b'{"id": 302, "title": "Dogs", "description": "breeds", "narrative": "any breed"}\n')


def test_jsonl_topics_and_their_micro_topics():
    topics, problems = read(JSONL)
    assert problems == []
    (a, b, dogs) = topics
    assert (a.topic_id, a.title, a.prelude, a.parent, a.parent_title) == (
        "301.1", "Which cities?", "I am going to Japan in May.", "301", "Planning a trip")
    assert (b.topic_id, b.narrative, b.parent) == ("301-b", "weather", "301")
    assert (dogs.topic_id, dogs.description, dogs.narrative, dogs.parent) == ("302", "breeds", "any breed", "")


def test_bad_jsonl_lines_are_reported_by_line():
    data = (b'{"id": "1", "title": "ok"}\n{"id": "2"}\nnot json\n{"id": "3", "title": "t", "narative": "typo"}\n'
            b'{"id": "4", "title": "t", "micro_topics": []}\n{"id": "5", "title": "t", "prelude": "p"}\n'
            b'{"id": "6", "title": "t", "micro_topics": [{"id": "x", "text": "a"}, {"id": "x", "text": "b"}]}\n')
    topics, problems = read(data)
    assert [t.topic_id for t in topics] == ["1", "x"]
    assert problems == [
        "topics:line 2: missing title",
        "topics:line 3: invalid JSON: Expecting value (column 1)",
        "topics:line 4: unknown key narative (known: description, id, micro_topics, narrative, prelude, title)",
        "topics:line 5: micro_topics is not a non-empty list of objects",
        "topics:line 6: a prelude without micro_topics",
        "topics:line 7: duplicate topic id 'x' (line 7)",
    ]


def test_a_jsonl_topic_with_an_integer_of_thousands_of_digits_is_a_problem_of_its_line():
    data = b'{"id": "1", "title": "ok"}\n{"id": ' + b"9" * 5000 + b', "title": "t"}\n'
    topics, problems = read(data)
    assert [t.topic_id for t in topics] == ["1"]
    assert problems == ["topics:line 2: invalid JSON: an integer of 5,000 digits (at most 64)"]


def test_the_formats_are_told_by_shape_and_refused_for_task_2():
    assert head_kind(TREC) == "topics-trec" and head_kind(JSONL) == "topics-jsonl"
    assert head_kind(b"1\tcheap flights\n") == "topics-tsv"
    post = b'{"id": "1", "kind": "question", "title": "t", "body": "b"}\n'  # a collection's post
    assert head_kind(post) == "documents-jsonl"
    assert read(TREC, task="formulas") == ([], [
        "topics:line 1: this looks like a TREC topic file (<top> <num> <title> <desc> <narr>), not an ARQMath Task 2 "
        "topic file"])


def test_a_bad_file_writes_nothing_and_a_good_one_is_stored_with_its_texts(db, tmp_path):
    campaign = CampaignFactory(task=Campaign.Task.ANSWERS)
    path = tmp_path / "topics.jsonl"
    path.write_bytes(JSONL + b'{"id": "303"}\n')
    with pytest.raises(InputError, match="line 3: missing title"):
        services.topics_ingest(campaign=campaign, path=path)
    assert not campaign.topics.exists()
    path.write_bytes(JSONL)
    assert services.topics_ingest(campaign=campaign, path=path).created == 3
    rows = campaign.topics.order_by("position").values_list("topic_id", "parent", "parent_title", "prelude",
                                                             "narrative")
    assert list(rows) == [("301.1", "301", "Planning a trip", "I am going to Japan in May.", ""),
                          ("301-b", "301", "Planning a trip", "I am going to Japan in May.", "weather"),
                          ("302", "", "", "", "any breed")]


@pytest.mark.parametrize(("data", "said"), [
    (b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00topics.xlsx", "a binary file"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a binary file"),
    (b'{"id": "DOC1", "title": "A page", "text": "Its words."}\n{"id": "DOC2", "text": "More."}\n',
     "a JSONL collection"),
    (b'{"docid": "p1", "contents": "A passage."}\n', "a JSONL collection"),
])
def test_a_file_that_is_no_topic_file_is_named_for_what_it_looks_like(data, said):
    # Not "malformed XML: not well-formed (invalid token)": what the file looks like, on its first line.
    for task in ("answers", "formulas"):
        problems = Problems()
        assert read_topic_file(io.BytesIO(data), problems, task=task) == []
        [problem] = problems.items
        assert problem.line == 1 and f"this looks like {said}" in problem.message
        assert "malformed XML" not in problem.message


def test_jsonl_topics_with_a_title_are_still_topics():
    assert head_kind(b'{"id": "T1", "title": "A query", "description": "Find it."}\n') == "topics-jsonl"

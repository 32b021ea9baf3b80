"""Micro-topics from TREC and TSV topic files (issue 25 point 3), as JSONL gives them: TREC Web's `<subtopic>` inside a
classic `<top>` with a `<prelude>`, and a TSV `parent` column; each micro-topic a topic with its parent's id, title and
prelude; line-numbered problems; nothing of a bad file stored."""
import io

import pytest

from ir.formats.kinds import head_kind
from ir.formats.topics import read_topic_file
from ir.problems import InputError, Problems
from pooling import services
from pooling.models import Campaign
from tests.factories import CampaignFactory

# A classic TREC topic (unclosed field tags, labels, wrapped prose) split the TREC Web track's way: `<subtopic
# number="N" type="...">` closed by `</subtopic>`, one with its number left out; a plain topic after it.
TREC = b"""<top>
<num> Number: 301
<title> Planning a trip
<prelude> Prelude: I am going to Japan
in May, with two children.
<desc> Description: Travel advice for a family.
<subtopic number="1" type="inf"> Which cities
are worth a visit? </subtopic>
<subtopic type='nav'>What to pack?</subtopic>
<narr> Narrative: Anything a family could use.
</top>

<top>
<num> Number: 302
<title> Dogs
<desc> Breeds
</top>
"""


def read(data: bytes):
    problems = Problems(file="topics")
    return read_topic_file(io.BytesIO(data), problems, task="answers"), problems.messages()


def test_trec_subtopics_are_micro_topics_with_the_prelude_and_the_parents_texts():
    topics, problems = read(TREC)
    assert problems == []
    cities, pack, dogs = topics
    assert (cities.line, cities.topic_id, cities.title, cities.parent, cities.parent_title) == (
        1, "301.1", "Which cities are worth a visit?", "301", "Planning a trip")
    assert cities.prelude == "I am going to Japan in May, with two children."
    # a micro-topic without a number is numbered by its place; the parent's description and narrative are its own
    assert (pack.topic_id, pack.title, pack.description, pack.narrative) == (
        "301.2", "What to pack?", "Travel advice for a family.", "Anything a family could use.")
    assert (dogs.topic_id, dogs.parent, dogs.prelude, dogs.description) == ("302", "", "", "Breeds")


@pytest.mark.parametrize("data, kept, expected", [
    (b"<top>\n<num> 1\n<title> t\n<prelude> p\n</top>\n", [], ["topics:line 1: a prelude without <subtopic>"]),
    (b"<top>\n<num> 1\n<title> t\n<subtopic number=\"1\"> a</subtopic>\n<subtopic number=\"1\">b</subtopic>\n"
     b"</top>\n", ["1.1"], ["topics:line 1: duplicate topic id '1.1' (line 1)"]),
    (b"<top>\n<num> 1\n<title> t\n<subtopic number=\"2\">  </subtopic>\n</top>\n", [],
     ["topics:line 1: <subtopic> 1 has no text"]),
    (b"<top>\n<num> 1\n<title> t\n<subtopic number=\"a b\">x</subtopic>\n</top>\n", [],
     ["topics:line 1: <subtopic> of line 4: number 'a b' has a space"]),
    (b"<top>\n<num> 1\n<title> t\n</top>\n<subtopic>x</subtopic>\n", ["1"],
     ["topics:line 5: <subtopic> outside <top> ... </top>", "topics:line 5: </subtopic> outside <top> ... </top>",
      "topics:line 5: text outside <top> ... </top>"]),
])
def test_bad_trec_subtopics_are_reported_with_their_topics_line(data, kept, expected):
    topics, problems = read(data)
    assert ([t.topic_id for t in topics], problems) == (kept, expected)


def test_a_trec_narrative_with_a_less_than_sign_is_no_tag():
    topics, problems = read(b"<top>\n<num> 7\n<title> bounds\n<narr> a <b and c> d, x < y\n</top>\n")
    assert problems == [] and topics[0].narrative == "a <b and c> d, x < y"


TSV = (b"id\ttext\tparent\tprelude\n"
       b"301.1\tWhich cities?\t301\n"
       b"301\tPlanning a trip\t\tI am going to Japan in May.\n"
       b"301.2\tWhat to pack?\t301\t\n"
       b"302\tDogs\n")


def test_a_tsv_parent_column_makes_micro_topics_of_the_parents_line():
    assert head_kind(TSV) == "topics-tsv" and head_kind(b"qid\tquery\tparent\n1\ta\t\n") == "topics-tsv"
    topics, problems = read(TSV)
    assert problems == []
    assert [(t.line, t.topic_id, t.title, t.parent, t.parent_title, t.prelude) for t in topics] == [
        (2, "301.1", "Which cities?", "301", "Planning a trip", "I am going to Japan in May."),
        (4, "301.2", "What to pack?", "301", "Planning a trip", "I am going to Japan in May."),
        (5, "302", "Dogs", "", "", ""),
    ]


def test_bad_tsv_micro_topics_are_reported_by_line():
    data = (b"qid\tquery\tparent\tprelude\n"
            b"1\tok\n"
            b"2\tno parent line\t9\n"
            b"3\ta prelude alone\t\tp\n"
            b"4\tparent\n"
            b"4.1\tnested\t4\n"
            b"4.1.1\tdeeper\t4.1\n"
            b"5\ttoo\tmany\tfields\there\n")
    topics, problems = read(data)
    assert [t.topic_id for t in topics] == ["1", "4.1.1"]
    assert problems == [
        "topics:line 3: parent '9' has no line of its own (with its title)",
        "topics:line 4: a prelude without micro-topics (no line names '3' as its parent)",
        "topics:line 6: topic '4.1' is a micro-topic of '4' and has micro-topics of its own",
        "topics:line 8: 5 tab-separated fields, expected 4 (topic id, query text, parent, prelude)",
    ]


def test_a_bad_tsv_file_stores_nothing_and_a_good_one_stores_its_micro_topics(db, tmp_path):
    campaign = CampaignFactory(task=Campaign.Task.ANSWERS)
    path = tmp_path / "topics.tsv"
    path.write_bytes(TSV + b"303\tno parent\t404\n")
    with pytest.raises(InputError, match="line 6: parent '404' has no line"):
        services.topics_ingest(campaign=campaign, path=path)
    assert not campaign.topics.exists()
    path.write_bytes(TSV)
    assert services.topics_ingest(campaign=campaign, path=path).created == 3
    rows = campaign.topics.order_by("position").values_list("topic_id", "parent", "parent_title", "prelude")
    assert list(rows) == [("301.1", "301", "Planning a trip", "I am going to Japan in May."),
                          ("301.2", "301", "Planning a trip", "I am going to Japan in May."),
                          ("302", "", "", "")]

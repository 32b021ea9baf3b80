"""Topic XML reader on the four real ARQMath topic files and on malformed topic files."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from ir.formats.topics_xml import read_topics
from ir.problems import Problems

TOPICS = Path(__file__).resolve().parents[1] / "data" / "arqmath" / "topics"
TASK1_2020 = TOPICS / "topics.arqmath-2020-task1-origin.xml"
TASK2_2020 = TOPICS / "topics.arqmath-2020-task2-origin.xml"
TASK1_2022 = TOPICS / "topics.arqmath-2022-task1-or-task3-origin.xml"
TASK2_2022 = TOPICS / "topics.arqmath-2022-task2-origin.xml"


def topics(data: bytes, task: str = "answers") -> tuple[list, Problems]:
    problems = Problems()
    return read_topics(io.BytesIO(data), problems, task=task), problems


def wrap(*topic_xml: str) -> bytes:
    return ("<Topics>\n" + "\n".join(topic_xml) + "\n</Topics>\n").encode()


@pytest.mark.parametrize(
    ("path", "task", "count", "first", "last"),
    [
        (TASK1_2020, "answers", 98, "A.1", "A.100"),
        (TASK2_2020, "formulas", 85, "B.1", "B.98"),
        (TASK1_2022, "answers", 100, "A.301", "A.400"),
        (TASK2_2022, "formulas", 100, "B.301", "B.400"),
    ],
)
def test_real_topic_files_are_read_whole(path, task, count, first, last):
    with path.open("rb") as stream:
        problems = Problems()
        records = read_topics(stream, problems, task=task)

    assert not problems, problems.messages()
    assert len(records) == count
    assert (records[0].topic_id, records[-1].topic_id) == (first, last)
    assert len({r.topic_id for r in records}) == count
    assert all(r.title and r.question and r.tags for r in records)
    assert all(bool(r.formula_id) == (task == "formulas") for r in records)


def test_answer_topic_fields_are_html_and_space_separated_tags():
    with TASK1_2022.open("rb") as stream:
        first = read_topics(stream, Problems(), task="answers")[0]

    assert first.line == 3
    assert first.title.startswith('Inequality between norm 1,norm 2 and norm <span class="math-container" id="q_1">')
    assert first.question.startswith("<p>Suppose ")
    assert " " in first.tags and "," not in first.tags
    assert (first.formula_id, first.latex) == ("", "")


def test_formula_topic_has_its_formula_id_and_latex():
    with TASK2_2020.open("rb") as stream:
        first = read_topics(stream, Problems(), task="formulas")[0]

    assert (first.line, first.topic_id, first.formula_id) == (3, "B.1", "q_4")
    assert first.latex == "f(x)= \\frac{x^2 + x + c}{x^2 + 2x + c}"
    assert 'id="q_4"' in first.question
    assert first.tags == "functions"


def test_comma_separated_tags_become_space_separated():
    records, problems = topics(wrap('<Topic number="A.1"><Title>t</Title><Question>q</Question>'
                                    "<Tags>linear-algebra, matrices,eigenvalues</Tags></Topic>"))
    assert not problems
    assert records[0].tags == "linear-algebra matrices eigenvalues"


@pytest.mark.parametrize("path", [TASK1_2020, TASK2_2022])
def test_topics_with_bom_and_other_line_ends_read_the_same(tmp_path, path):
    original = path.read_bytes()
    lf = original.replace(b"\r\n", b"\n")
    variant = tmp_path / "topics.xml"
    variant.write_bytes(b"\xef\xbb\xbf" + lf.replace(b"\n", b"\r\n"))
    task = "formulas" if "task2" in path.name else "answers"

    with path.open("rb") as plain, variant.open("rb") as other:
        problems = Problems()
        assert read_topics(other, problems, task=task) == read_topics(plain, Problems(), task=task)
    assert not problems


FORMULA_TOPIC = ('<Topic number="B.2"><Formula_Id>q_1</Formula_Id>'
                 '<Question>&lt;span class="math-container" id="q_1"&gt;$x$&lt;/span&gt;</Question></Topic>')
MALFORMED = [
    (b"<Queries>\n<Topic number='A.1'/>\n</Queries>", "answers", 1, "root element is <Queries>, expected <Topics>"),
    (wrap("<Topic><Title>t</Title></Topic>"), "answers", 2, "topic without number"),
    (wrap('<Topic number="A.1"/>', '<Topic number=" "/>'), "answers", 3, "topic without number"),
    (wrap('<Topic number="A.1"/>', '<Topic number="A.2"/>', '<Topic number="A.1"/>'), "answers", 4,
     "duplicate topic number 'A.1' (lines 2 and 4)"),
    (wrap('<Topic number="B.1"><Title>t</Title></Topic>', FORMULA_TOPIC), "formulas", 2,
     "topic 'B.1' has no Formula_Id"),
    (wrap('<Topic number="B.1">\n<Formula_Id>q_6</Formula_Id>\n'
          '<Question>&lt;span class="math-container" id="q_16"&gt;$x$&lt;/span&gt;</Question>\n</Topic>'),
     "formulas", 2, "Formula_Id 'q_6' of topic 'B.1' is not the id of a formula in its title or question"),
    (b'<?xml version="1.0"?>\n<!DOCTYPE Topics [\n<!ENTITY a "aaaaaaaaaa">\n<!ENTITY b "&a;&a;&a;&a;&a;">\n]>\n'
     b"<Topics><Topic number='A.1'><Title>&b;</Title></Topic></Topics>", "answers", 3,
     "entity declarations are not allowed"),
    (b'<!DOCTYPE Topics [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<Topics><Topic number="A.1">'
     b"<Title>&xxe;</Title></Topic></Topics>", "answers", 1, "entity declarations are not allowed"),
    (wrap('<Topic number="A.1"><Title>t</Title></Topic>', '<Topic number="A.2"><Title>t</Tilte></Topic>'),
     "answers", 3, "malformed XML: mismatched tag"),
    (b"<Topics>\n<Topic number='A.1'><Title>caf\xe9</Title></Topic>\n</Topics>", "answers", 2, "malformed XML"),
]


@pytest.mark.parametrize(("data", "task", "line", "message"), MALFORMED)
def test_malformed_topic_file_reports_line_and_message(data, task, line, message):
    _records, problems = topics(data, task)

    assert any(p.line == line and message in p.message for p in problems.items), problems.messages()


def test_entity_bomb_in_topics_yields_no_topic():
    records, problems = topics(MALFORMED[6][0])
    assert records == []
    assert len(problems) == 1


def test_unknown_task_is_a_programming_error():
    with pytest.raises(ValueError, match="task must be one of"):
        topics(wrap(), "comments")


RUNS = TOPICS.parent / "runs"
QRELS = TOPICS.parent / "qrels"


@pytest.mark.parametrize(("path", "task", "line", "message"), [
    (TASK2_2020, "answers", 3, "this looks like an ARQMath Task 2 topic file (its topics have a Formula_Id), not an "
                               "ARQMath Task 1 (or Task 3) topic file"),
    (TASK1_2022, "formulas", 3, "this looks like an ARQMath Task 1 (or Task 3) topic file, not an ARQMath Task 2 "
                                "topic file"),
])
def test_topic_file_of_the_other_task_is_refused_once(path, task, line, message):
    with path.open("rb") as stream:
        problems = Problems()
        records = read_topics(stream, problems, task=task)

    assert records == []
    assert [(p.line, p.message) for p in problems.items] == [(line, message)]


@pytest.mark.parametrize(("path", "kind"), [
    (RUNS / "ensemble-task1.tsv", "an ARQMath Task 1 run file (topic post_id rank score run_tag)"),
    (RUNS / "psu-task1-auto-both-A.tsv", "a TREC run file (topic Q0 doc_id rank score run_tag)"),
    (QRELS / "qrels.arqmath-2020-task1.txt", "a qrels file (topic iteration doc_id grade)"),
    (TOPICS / "Task1_ARQMath3_Topic_Information.head12.csv", "a topic-information CSV (a Topic column)"),
])
def test_file_of_another_kind_as_topics_says_what_it_looks_like(path, kind):
    with path.open("rb") as stream:
        problems = Problems()
        read_topics(stream, problems, task="answers")

    assert problems.messages() == [f"line 1: this looks like {kind}, not an ARQMath Task 1 (or Task 3) topic file"]

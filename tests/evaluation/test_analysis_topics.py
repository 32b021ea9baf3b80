"""Topic information files and means by topic category (issue 18 point 5), without a database."""
from pathlib import Path

import pytest

from ir.formats.topic_info import parse_topic_info, read_topic_info
from ir.problems import InputError
from ir.statistics import category_lines, category_means

ARQMATH3 = Path(__file__).parents[1] / "data" / "arqmath" / "topics" / "Task1_ARQMath3_Topic_Information.head12.csv"


def problems(text, file="info.csv"):
    with pytest.raises(InputError) as caught:
        parse_topic_info(text.splitlines(keepends=True), file=file)
    return [str(p) for p in caught.value.problems]


def test_the_arqmath3_topic_information_file_is_read():
    info = read_topic_info(ARQMATH3)
    assert info.columns[0] == "Topic" and "Category" in info.columns and "Multi-Part" in info.columns
    assert len(info.topics) == 12 and "A.311" not in info.topics
    assert info.topics["A.307"]["Category"] == "Proof & Concept"
    assert info.topics["A.305"] == {"AssessorId": "1", "#Answers": "519", "HM": "11", "HML": "14", "H": "0", "M": "11",
                                    "L": "3", "N": "505", "Category": "Computation", "Difficulty": "Low",
                                    "Dependency": "Formula", "Multi-Part": "No"}


def test_category_means_over_the_arqmath3_file():
    info = read_topic_info(ARQMATH3)
    topics = sorted(info.topics)
    # The run scores 1 on Computation topics (A.305, A.310), 0.5 on the two Proof & Concept ones, 0.25 elsewhere,
    # and returned nothing for A.309 (a Proof topic): it counts 0.
    values = {"run1": {t: {"Computation": 1.0, "Proof & Concept": 0.5}.get(info.topics[t]["Category"], 0.25)
                       for t in topics if t != "A.309"}}
    means = category_means(values, info, "Category", topics)
    # Proof: A.301, A.303, A.304, A.306, A.309, A.312, A.313 -> (6 x 0.25 + 0) / 7.
    assert means == {"run1": {"Computation": 1.0, "Concept": 0.25, "Proof": pytest.approx(1.5 / 7),
                              "Proof & Concept": 0.5}}
    lines = list(category_lines({"ndcg_prime": means}, "Category"))
    assert lines == ["run1\tndcg_prime\tCategory=Computation\t1.0000\n",
                     "run1\tndcg_prime\tCategory=Concept\t0.2500\n",
                     "run1\tndcg_prime\tCategory=Proof\t0.2143\n",
                     "run1\tndcg_prime\tCategory=Proof & Concept\t0.5000\n"]


def test_only_the_evaluated_topics_enter_a_group():
    info = parse_topic_info(["Topic,Difficulty\n", "A.1,Low\n", "A.2,Low\n", "A.3,High\n", "A.4,\n"])
    values = {"r": {"A.1": 0.2, "A.2": 0.4, "A.3": 0.9, "A.4": 1.0, "A.5": 1.0}}
    # A.2 has no qrels (not evaluated); A.4 has no Difficulty; A.5 is not in the file: none of them is in a group.
    assert category_means(values, info, "Difficulty", ["A.1", "A.3", "A.4", "A.5"]) == {"r": {"High": 0.9, "Low": 0.2}}


def test_an_unknown_column_is_refused_with_the_columns_there_are():
    info = parse_topic_info(["Topic,Difficulty,Category\n", "A.1,Low,Proof\n"])
    with pytest.raises(InputError, match="no column Dificulty .*columns: Difficulty, Category"):
        category_means({"r": {}}, info, "Dificulty", ["A.1"])


def test_a_header_without_a_topic_column_is_refused_on_line_1():
    assert problems("Topics,Category\nA.1,Proof\n") == [
        "info.csv:line 1: no Topic column in the header (Topics, Category)"]
    assert problems("") == ["info.csv:line 1: the file is empty: a header with a Topic column is needed"]


def test_every_bad_row_is_reported_with_its_line():
    text = ("Topic,Category,Difficulty\n"
            "A.1,Proof,Low\n"
            ",Proof,Low\n"
            "A.1,Concept,High\n"
            "\n"
            "A.2,Proof\n"
            '"A.3","Proof, with a comma",Low\n'
            "A.4,Proof,Low,extra\n")
    assert problems(text) == [
        "info.csv:line 3: the topic is empty",
        "info.csv:line 4: topic A.1 appears twice (first on line 2)",
        "info.csv:line 6: 2 fields, the header has 3",
        "info.csv:line 8: 4 fields, the header has 3",
    ]


def test_a_quoted_field_over_two_lines_keeps_the_line_numbers_right(tmp_path):
    path = tmp_path / "info.csv"
    path.write_bytes('\ufeffTopic,Note\r\nA.1,"two\r\nlines"\r\nA.1,again\r\n'.encode())
    with pytest.raises(InputError) as caught:
        read_topic_info(path)
    assert [str(p) for p in caught.value.problems] == ["info.csv:line 4: topic A.1 appears twice (first on line 2)"]


def test_a_file_that_is_not_utf8_is_refused_with_its_line(tmp_path):
    path = tmp_path / "info.csv"
    path.write_bytes(b"Topic,Category\nA.1,Proof\nA.2,Caf\xe9\n")
    with pytest.raises(InputError, match=r"info.csv:line 3: not UTF-8 \(byte 8 of the line\)"):
        read_topic_info(path)

"""A campaign's topic information: `ingest_topic_info`, its page, and `evaluate --campaign ... --by COLUMN`."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from evaluation.models import CampaignTopicInfo
from evaluation.topic_info import campaign_topic_info
from tests.commands import command_output, rejected
from tests.evaluation.test_campaign import judged_answers  # noqa: F401 (fixture)

ARQMATH3 = "Task1_ARQMath3_Topic_Information.head12.csv"


def test_the_arqmath3_file_is_stored_with_warnings_for_topics_that_do_not_match(judged_answers, arqmath_data):  # noqa: F811
    out, _err = command_output("ingest_topic_info", "--campaign", judged_answers.name,
                               str(arqmath_data / "topics" / ARQMATH3))
    assert "warning: 12 topics of the file are not in the campaign: A.301, A.302" in out
    assert "warning: 2 topics of the campaign have no row in the file: A.1, A.2" in out
    assert ("topic information of 12 topics, columns AssessorId, #Answers, HM, HML, H, M, L, N, Category, "
            "Difficulty, Dependency, Multi-Part") in out
    info = campaign_topic_info(campaign=judged_answers)
    assert info.topics["A.307"]["Category"] == "Proof & Concept" and info.topics["A.313"]["N"] == "454"


def test_a_bad_file_changes_nothing(judged_answers, tmp_path):  # noqa: F811
    good = tmp_path / "good.csv"
    good.write_text("Topic,Category\nA.1,Proof\nA.2,Concept\n")
    command_output("ingest_topic_info", "--campaign", judged_answers.name, str(good))
    bad = tmp_path / "bad.csv"
    bad.write_text("Topic,Category\nA.1,Proof\nA.1,Concept\nA.2\n")
    lines = rejected("ingest_topic_info", "--campaign", judged_answers.name, str(bad))
    assert lines == ["bad.csv:line 3: topic A.1 appears twice (first on line 2)",
                     "bad.csv:line 4: 1 fields, the header has 2"]
    assert campaign_topic_info(campaign=judged_answers).topics == {"A.1": {"Category": "Proof"},
                                                                  "A.2": {"Category": "Concept"}}


def test_evaluate_campaign_groups_by_its_topic_information(judged_answers, tmp_path):  # noqa: F811
    assert any("has no topic information" in line
               for line in rejected("evaluate", "--campaign", judged_answers.name, "--by", "Category"))
    info = tmp_path / "info.csv"
    info.write_text("Topic,Category\nA.1,Proof\nA.2,Concept\n")
    command_output("ingest_topic_info", "--campaign", judged_answers.name, str(info))
    out, _ = command_output("evaluate", "--campaign", judged_answers.name, "--all-topics", "--per-topic",
                            "--by", "Category")
    rows = [line.split("\t") for line in out.splitlines()]
    per_topic = {(r, m, t): float(v) for r, m, t, v in rows if t in ("A.1", "A.2")}
    grouped = [(r, m, t, v) for r, m, t, v in rows if t.startswith("Category=")]
    assert grouped  # every run, every analysed measure, both categories
    for run, measure, group, value in grouped:
        topic = {"Category=Proof": "A.1", "Category=Concept": "A.2"}[group]
        assert float(value) == pytest.approx(per_topic[(run, measure, topic)], abs=5e-5)
    assert any("no column Colour" in line for line in rejected("evaluate", "--campaign", judged_answers.name,
                                                               "--by", "Colour"))


def test_the_page_shows_and_replaces_the_topic_information(judged_answers, client, organizer, arqmath_data):  # noqa: F811
    client.force_login(organizer)
    url = reverse("evaluation:topic_info", args=[judged_answers.pk])
    assert 'id="no-topic-info"' in client.get(url).content.decode()
    data = (arqmath_data / "topics" / ARQMATH3).read_bytes()
    answer = client.post(url, {"file": SimpleUploadedFile(ARQMATH3, data)}, follow=True)
    page = answer.content.decode()
    assert answer.status_code == 200 and "<td>Proof &amp; Concept</td>" in page and "12 topics of the file" in page
    bad = client.post(url, {"file": SimpleUploadedFile("bad.csv", b"Category\nProof\n")})
    assert bad.status_code == 400
    assert "bad.csv:line 1: no Topic column in the header (Category)" in bad.content.decode()
    assert CampaignTopicInfo.objects.get(campaign=judged_answers).filename == ARQMATH3


BAD_FILES = [
    (b"Topic,Category\nA.1,Pro\x00of\n", ["bad.csv:line 2: a NUL character (byte 8 of the line)"]),
    (b"Topic,Category\nA.1,Proof\nA.2," + b"x" * 131_073 + b"\n",
     ["bad.csv:line 3: bad CSV: a field longer than 131,072 characters (a quote not closed?)"]),
    (b'Topic,Category\nA.1,Proof\nA.2,"Proof & Con',
     ["bad.csv:line 3: bad CSV: a quoted field is not closed before the end of the file (the file looks truncated)"]),
    (b"Topic,Category\nA.1,Concept\nA.2,Conc",
     ["bad.csv:line 3: the file ends inside this line: its last field 'Conc' is the start of the field 'Concept' of "
      "the line before (the file looks truncated)"]),
]


@pytest.mark.parametrize(("data", "lines"), BAD_FILES)
def test_nul_long_field_and_truncated_file_are_refused_by_the_command(judged_answers, tmp_path, data,  # noqa: F811
                                                                      lines):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(data)
    assert rejected("ingest_topic_info", "--campaign", judged_answers.name, str(bad)) == lines
    assert campaign_topic_info(campaign=judged_answers) is None


@pytest.mark.parametrize(("data", "lines"), BAD_FILES)
def test_nul_long_field_and_truncated_file_are_a_form_error_on_the_page(judged_answers, client, organizer,  # noqa: F811
                                                                        data, lines):
    client.force_login(organizer)
    answer = client.post(reverse("evaluation:topic_info", args=[judged_answers.pk]),
                         {"file": SimpleUploadedFile("bad.csv", data)})
    assert answer.status_code == 400
    assert escape(lines[0]) in answer.content.decode()
    assert not CampaignTopicInfo.objects.filter(campaign=judged_answers).exists()

"""nuggetizer's JSON lines in and out (docs/nuggets.md, "Nugget banks"): import_nuggets all or nothing, with the
lines of its problems; export_nuggets of the banks and of the official support labels."""
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from nuggets.models import Nugget, NuggetChange, SupportAssignment, SupportJudgment
from nuggets.services import bank as services
from tests.factories import UserFactory
from tests.nuggets.bank_world import answers_of

pytestmark = pytest.mark.django_db

BANKS = [
    {"query": "How do I integrate $x^2$?", "qid": "A.1", "nuggets": [
        {"text": "The integral is one third", "importance": "vital"},
        {"text": "The power rule applies", "importance": "okay"}]},
    {"query": "Euler", "qid": "A.2", "nuggets": [{"text": "e to the i pi is minus one", "importance": "vital"}]},
]


def lines(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_import_then_export_gives_the_banks_back(answers, tmp_path, capsys):
    source = tmp_path / "banks.jsonl"
    source.write_text(lines(BANKS))
    call_command("import_nuggets", "--campaign", "answers", str(source))
    assert "Imported 3 nuggets into 2 topic banks." in capsys.readouterr().out
    nuggets = Nugget.objects.filter(campaign=answers)
    assert {(n.source, n.status) for n in nuggets} == {("imported", "accepted")}
    assert NuggetChange.objects.filter(action="import").count() == 3
    out = tmp_path / "out.jsonl"
    call_command("export_nuggets", "--campaign", "answers", "-o", str(out))
    assert out.read_text() == lines(BANKS)


def test_import_appends_to_a_bank(answers, tmp_path):
    topic = answers.topics.get(topic_id="A.1")
    services.nugget_add(topic=topic, text="written first")
    source = tmp_path / "banks.jsonl"
    source.write_text(lines(BANKS[:1]))
    call_command("import_nuggets", "--campaign", "answers", str(source))
    assert [n.text for n in Nugget.objects.filter(topic=topic).order_by("position")] == [
        "written first", "The integral is one third", "The power rule applies"]


def test_an_unknown_topic_or_a_malformed_line_writes_nothing(answers, tmp_path, capsys):
    source = tmp_path / "bad.jsonl"
    source.write_text(lines([BANKS[0], {"query": "?", "qid": "Z.9", "nuggets": [{"text": "x"}]}])
                      + "{not json\n")
    with pytest.raises(CommandError) as raised:
        call_command("import_nuggets", "--campaign", "answers", str(source))
    assert raised.value.returncode == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "Z.9" in err and "not a topic of this campaign" in err
    assert "line 3" in err
    assert not Nugget.objects.exists()


def test_a_nugget_nuggetizer_could_not_grade_is_refused_with_its_line(answers, tmp_path, capsys):
    source = tmp_path / "failed.jsonl"
    source.write_text(lines([BANKS[0], {"query": "Euler", "qid": "A.2",
                                        "nuggets": [{"text": "y", "importance": "failed"}]}]))
    with pytest.raises(CommandError):
        call_command("import_nuggets", "--campaign", "answers", str(source))
    err = capsys.readouterr().err
    assert "line 2" in err and "importance failed" in err
    assert not Nugget.objects.exists()


def test_export_of_assignments_gives_the_official_labels_against_the_frozen_bank(answers, tmp_path):
    topic, (alpha, beta) = answers_of(answers)
    one = services.nugget_add(topic=topic, text="The integral is one third", importance="vital")
    two = services.nugget_add(topic=topic, text="The power rule applies")
    version = services.bank_freeze(topic=topic)
    services.nugget_edit(nugget=two, text="changed after the freeze")  # the export is of the frozen bank
    assessor = UserFactory(username="sam")
    official = SupportAssignment.objects.create(campaign=answers, topic=topic, assessor=assessor, bank=version)
    now = timezone.now()
    SupportJudgment.objects.create(assignment=official, answer=alpha, nugget=one, label="support", submitted_at=now,
                                   updated_at=now)
    SupportJudgment.objects.create(assignment=official, answer=alpha, nugget=two, label="partial_support",
                                   submitted_at=now, updated_at=now)
    out = tmp_path / "assignments.jsonl"
    call_command("export_nuggets", "--campaign", "answers", "--assignments", "-o", str(out))
    [line] = [json.loads(text) for text in out.read_text().splitlines()]  # beta has no label: left out
    assert beta.run.name == "beta"
    assert (line["qid"], line["run_id"], line["answer_text"]) == ("A.1", "alpha", alpha.text)
    assert line["response_length"] == len(alpha.text.split())
    assert line["nuggets"] == [
        {"text": "The integral is one third", "importance": "vital", "assignment": "support"},
        {"text": "The power rule applies", "importance": "okay", "assignment": "partial_support"}]

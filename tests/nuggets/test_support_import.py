"""import_nugget_assignments and assign_support: nuggetizer's assign output as an official assignment's labels, all
or nothing, each refusal with its line (docs/nuggets.md, "Support judging")."""
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from nuggets.models import SupportAssignment, SupportJudgment, SupportRevision
from nuggets.services.support import support_assign
from tests.nuggets.support_world import NUGGETS, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(answers):
    return make_world(answers)


def line(run, qid="A.1", labels=("support", "partial_support", "not_support"), texts=None):
    texts = texts or [text for text, _ in NUGGETS]
    return json.dumps({"query": "q", "qid": qid, "answer_text": "a", "response_length": 3, "run_id": run,
                       "nuggets": [{"text": t, "importance": "vital", "assignment": a}
                                   for t, a in zip(texts, labels, strict=True)]})


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_an_assign_file_becomes_the_official_labels(world, ada, tmp_path):
    path = tmp_path / "assign.jsonl"
    path.write_text(line("alpha") + "\n" + line("beta", labels=("support", "failed", "support")) + "\n")
    out, _ = run("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "A.1\tada\tofficial\tbank v1" in out and "5 labels created" in out and "1 left out" in out
    official = SupportAssignment.objects.get(kind="official")
    assert official.assessor == ada and official.bank is not None and official.bank.number == 1
    labels = {(j.answer.run.name, j.nugget.text): j.label for j in SupportJudgment.objects.all()}
    assert labels[("alpha", NUGGETS[1][0])] == "partial_support" and ("beta", NUGGETS[1][0]) not in labels
    assert set(SupportRevision.objects.values_list("source", flat=True)) == {"import"}
    # Again with one label changed: a revision, nothing doubled.
    path.write_text(line("alpha", labels=("support", "support", "not_support")) + "\n")
    out, _ = run("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "0 labels created, 1 revised, 2 unchanged" in out
    assert SupportJudgment.objects.count() == 5


def refused(*args) -> str:
    err = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command(*args, stdout=StringIO(), stderr=err)
    assert failed.value.returncode == 2
    return err.getvalue()


def test_unknown_runs_and_nuggets_are_refused_with_their_lines_and_nothing_written(world, ada, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([line("alpha"), line("nobody"),
                               line("beta", texts=[NUGGETS[0][0], NUGGETS[1][0], "a nugget nobody wrote"])]) + "\n")
    text = refused("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "line 2: no run named 'nobody'" in text
    assert "line 3: topic A.1: no nugget 'a nugget nobody wrote' in its bank" in text
    assert not SupportJudgment.objects.exists() and not SupportAssignment.objects.exists()


def test_an_unknown_topic_is_refused_with_its_line(world, ada, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(line("alpha") + "\n" + line("alpha", qid="A.9") + "\n")
    text = refused("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "line 2" in text and "A.9" in text
    assert not SupportJudgment.objects.exists()


def test_an_official_held_by_another_assessor_is_refused(world, bob, ada, tmp_path):
    support_assign(campaign=world.campaign, topic=world.topic, assessor=bob)
    path = tmp_path / "assign.jsonl"
    path.write_text(line("alpha") + "\n")
    text = refused("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "line 1: topic A.1: bob holds its official nugget assignment" in text
    assert not SupportJudgment.objects.exists()


def test_assign_support_makes_an_assignment_and_refuses_a_topic_without_answers(world, ada):
    out, _ = run("assign_support", "--campaign", "answers", "--topic", "A.1", "--assessor", "ada", "--kind",
                 "training", "--round", "2")
    assert out == "A.1\tada\tnuggets\ttraining\tbank v1\tassigned\n"
    assert SupportAssignment.objects.get().round == 2
    out, _ = run("assign_support", "--campaign", "answers", "--topic", "A.1", "--assessor", "ada", "--task",
                 "citations")
    assert out == "A.1\tada\tcitations\tofficial\tassigned\n"
    assert "topic A.2 has no answers" in refused("assign_support", "--campaign", "answers", "--topic", "A.2",
                                                 "--assessor", "ada")

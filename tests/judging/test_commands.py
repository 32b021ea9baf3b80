"""assign_topics and import_judgments (docs/formats.md, Judgments): what they print, and rejected files that change
nothing."""

import pytest

from judging.models import Assignment, Judgment
from tests.commands import command_output, rejected
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    return command_output(*args)[0]


def test_assign_topics_assigns_and_says_what_existed(answers, ada):
    out = run("assign_topics", "--campaign", "answers", "--assessor", "ada", "A.1", "A.2")
    assert out.splitlines() == ["A.1\tada\tofficial\tassigned", "A.2\tada\tofficial\tassigned",
                                "2 assignments created, 0 already there"]
    out = run("assign_topics", "--campaign", "answers", "--assessor", "ada", "A.1")
    assert out.splitlines()[-1] == "0 assignments created, 1 already there"


def test_assign_topics_training_round_for_several_assessors(answers, ada, bob):
    run("assign_topics", "--campaign", "answers", "--assessor", "ada", "--assessor", "bob", "--kind", "training",
        "--round", "2", "A.1")
    assert sorted(Assignment.objects.values_list("assessor__username", "kind", "round")) == [
        ("ada", "training", 2), ("bob", "training", 2)]


def test_assign_topics_rejects_unknown_accounts_and_topics(answers, ada):
    assert rejected("assign_topics", "--campaign", "answers", "--assessor", "zed", "A.1") == [
        "no account named 'zed': create it first (import_judgments and the assignments page create accounts)"]
    assert rejected("assign_topics", "--campaign", "answers", "--assessor", "ada", "A.1", "A.7") == [
        "topic 'A.7' is not a topic of campaign 'answers'"]
    assert not Assignment.objects.exists()


def test_import_judgments_creates_accounts_assignments_and_judgments(answers, tmp_path, django_user_model):
    path = tmp_path / "j.tsv"
    path.write_text("assessor\ttopic\titem_id\tgrade\tcomment\n"
                    "ada\tA.1\t10\t3\t\n"
                    "ada\tA.1\t11\tSF\tbroken rendering\n"
                    "bob\tA.1\t10\t2\tsecond opinion\tdual\n"
                    "cy\tA.2\t20\t1\t\ttraining\t2\n")
    out = run("import_judgments", "--campaign", "answers", str(path))
    assert "created account ada (no usable password: set one before they log in)" in out
    assert out.splitlines()[-1] == "4 judgments read: 4 new, 0 revised, 0 unchanged; 3 assignments created"
    assert not django_user_model.objects.get(username="cy").has_usable_password()
    assert sorted(Judgment.objects.values_list("assignment__assessor__username", "assignment__kind",
                                               "assignment__round", "item_id", "grade")) == [
        ("ada", "official", 0, "10", "3"), ("ada", "official", 0, "11", "SF"), ("bob", "dual", 0, "10", "2"),
        ("cy", "training", 2, "20", "1")]
    # The same file again changes nothing.
    assert run("import_judgments", "--campaign", "answers", str(path)).splitlines()[-1] == (
        "4 judgments read: 0 new, 0 revised, 4 unchanged; 0 assignments created")


def test_import_judgments_of_formulas_names_instances_by_formula_id(formulas, tmp_path):
    path = tmp_path / "j.tsv"
    path.write_text("ada\tB.1\t1\t3\t\nada\tB.1\t2\t0\t\n")
    run("import_judgments", "--campaign", "formulas", str(path))
    assert sorted(Judgment.objects.values_list("item_id", "formula_id", "post_id", "grade")) == [
        ("100", "1", "20", "3"), ("100", "2", "30", "0")]


def test_a_bad_import_file_is_rejected_with_line_numbers_and_changes_nothing(answers, tmp_path, django_user_model):
    path = tmp_path / "j.tsv"
    path.write_bytes(b"ada\tA.1\t10\t3\t\n"
                     b"ada\tA.1\t10\t5\t\n"
                     b"ada\tA.9\t10\t3\t\n"
                     b"ada\tA.1\t77\t3\t\n"
                     b"ada\tA.1\t11\tDK\t\n"
                     b"ada\tA.1\t12\t3\n"
                     b"ada\tA.1\t12\t3\t\tofficial\t2\n"
                     b"ada\tA.1\t\xff\t3\t\n"
                     b"ada\tA.1\t10\t3\tagain\n")
    assert rejected("import_judgments", "--campaign", "answers", str(path)) == [
        "j.tsv:line 2: '5' is not a grade: use 3, 2, 1, 0, SF or DK",
        "j.tsv:line 3: topic 'A.9' is not a topic of campaign 'answers'",
        "j.tsv:line 4: post 77 is not in the pool of topic A.1",
        "j.tsv:line 5: a comment is required with Do not know (DK): say what went wrong",
        "j.tsv:line 6: expected 5 to 7 tab-separated columns (assessor, topic, item_id, grade, comment[, kind[, "
        "round]]), found 4: a TREC qrels file (topic iteration item grade) is imported whole, with the assessor and "
        "kind chosen on the form (import_judgments --assessor USER --kind KIND)",
        "j.tsv:line 7: a round is given for training assignments only, not for official",
        "j.tsv:line 8: not UTF-8 (byte 9 of the line)",
        "j.tsv:line 9: the same judgment again (first on line 1)",
        "j.tsv: 1 line names items outside the pools: choose to skip them or to add them to the pools (on the form, "
        "or import_judgments --outside skip|add)",
    ]
    assert not Judgment.objects.exists() and not Assignment.objects.exists()
    assert not django_user_model.objects.filter(username="ada").exists()


def test_import_rejects_names_that_cannot_be_accounts(answers, tmp_path):
    path = tmp_path / "j.tsv"
    path.write_text("x" * 200 + "\tA.1\t10\t3\t\nbad name\tA.1\t11\t3\t\n")
    assert rejected("import_judgments", "--campaign", "answers", str(path)) == [
        "j.tsv:line 1: '" + "x" * 40 + "' cannot be an account name: at most 150 letters, digits and @ . + - _",
        "j.tsv:line 2: 'bad name' cannot be an account name: at most 150 letters, digits and @ . + - _"]


def test_import_into_a_closed_topic_is_rejected(answers, ada, tmp_path):
    from judging import services
    a = assign(answers, ada, "A.1")
    services.topic_close(topic=a.topic)
    path = tmp_path / "j.tsv"
    path.write_text("ada\tA.1\t10\t3\t\n")
    assert rejected("import_judgments", "--campaign", "answers", str(path)) == [
        "j.tsv:line 1: this topic is closed: its judgments can no longer be changed"]

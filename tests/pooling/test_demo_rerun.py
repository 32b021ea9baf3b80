"""A second `make demo` rewrites nobody's work: load_demo run again leaves every judgment, revision, assignment and
password as it was, and prints the same passwords (kept under DATA_DIR)."""
import re
import stat
from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command

from agreement.models import TrainingRound
from agreement.rounds import training_round_create
from characterisation.services import characterisation_submit
from judging.models import (
    Assignment,
    CharacterisationAnswer,
    CharacterisationQuestion,
    ItemVisit,
    Judgment,
    JudgmentRevision,
    SampleItem,
)
from judging.services import GradeInput, assignment_withdraw, judgment_submit
from pooling.models import Campaign, Candidate, PoolItem, Run
from workflow.demo import CAMPAIGNS

pytestmark = pytest.mark.django_db


def _load_demo(*args) -> str:
    out = StringIO()
    call_command("load_demo", *args, stdout=out)
    return out.getvalue()


def _passwords(text: str) -> dict[str, str]:
    """The `user NAME  password SECRET` lines of load_demo's output."""
    return dict(re.findall(r"^ +\w+ +user (\S+) +password (\S+)$", text, flags=re.M))


def _everything() -> dict:
    users = get_user_model().objects.order_by("pk")
    return {
        "users": list(users.values("username", "password", "is_active", "is_superuser")),
        "groups": [(u.username, sorted(u.groups.values_list("name", flat=True))) for u in users],
        "assignments": list(Assignment.objects.order_by("pk").values()),
        "judgments": list(Judgment.objects.order_by("pk").values()),
        "revisions": list(JudgmentRevision.objects.order_by("pk").values()),
        "visits": list(ItemVisit.objects.order_by("pk").values()),
        "rounds": list(TrainingRound.objects.order_by("pk").values()),
        "questions": list(CharacterisationQuestion.objects.order_by("pk").values("campaign_id", "label", "text")),
        "samples": list(SampleItem.objects.order_by("pk").values()),
        "characterisations": list(CharacterisationAnswer.objects.order_by("pk").values()),
        "runs": Run.objects.count(),
        "candidates": list(Candidate.objects.order_by("pk").values()),
        "pool items": PoolItem.objects.count(),
    }


def test_a_second_load_demo_changes_nothing_and_prints_the_same_passwords(settings, tmp_path):
    settings.DATA_DIR, settings.DEMO_SITE = tmp_path, True
    first = _passwords(_load_demo())
    assert set(first) == {"organizer", "assessor1", "assessor2", "assessor3"}
    # The Task 1 campaign has ARQMath-3's two questions and assessor1's characterisation sample of one topic.
    task1 = Campaign.objects.get(name=CAMPAIGNS["answers"])
    assert sorted(task1.characterisation_questions.values_list("label", flat=True)) == ["MG", "UI"]
    sampled = Assignment.objects.get(campaign=task1, kind="characterisation")
    assert sampled.assessor.username == "assessor1" and sampled.sample.count() == 5
    assert not Campaign.objects.get(name=CAMPAIGNS["formulas"]).characterisation_questions.exists()
    kept = tmp_path / "demo-passwords.txt"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600

    # Between the runs, the organizer makes a training round of their own (round 2) and withdraws a demo
    # assignment; an assessor revises one of the demo's judgments.
    users = {u.username: u for u in get_user_model().objects.all()}
    campaign = Campaign.objects.get(name=CAMPAIGNS["answers"])
    topic = campaign.topics.order_by("position")[10].topic_id
    training_round_create(campaign=campaign, topic_ids=[topic], user=users["organizer"],
                          assessors=[users["assessor1"], users["assessor2"], users["assessor3"]])
    official = Assignment.objects.filter(campaign=campaign, assessor=users["assessor3"], kind="official").first()
    assert assignment_withdraw(assignment=official) == "deleted"
    judgment = Judgment.objects.filter(assignment__assessor=users["assessor1"], assignment__kind="training",
                                       assignment__round=1).select_related("assignment").first()
    item = PoolItem.objects.get(topic=judgment.assignment.topic, item_id=judgment.item_id)
    revised = "3" if judgment.grade != "3" else "0"
    judgment_submit(assignment_pk=judgment.assignment.pk, item_id=item.item_id, grades=[GradeInput(grade=revised)],
                    user=users["assessor1"], source="web")
    first_item = sampled.sample.order_by("number").first()
    characterisation_submit(assignment_pk=sampled.pk, item_id=first_item.item_id, answers={"MG": "no", "UI": "yes"},
                            user=users["assessor1"])
    before = _everything()

    second = _load_demo("--port", "8001")   # `make demo PORT=8001`
    assert _passwords(second) == first
    assert "Open http://127.0.0.1:8001/ and log in." in second
    assert _everything() == before
    assert Judgment.objects.get(pk=judgment.pk).grade == revised
    assert not Judgment.objects.filter(assignment__round=2).exists()
    assert not Assignment.objects.filter(pk=official.pk).exists()
    for username, password in first.items():
        assert authenticate(username=username, password=password) is not None

    # --reset takes the demo campaigns away with their characterisation (questions, samples, answers) and loads
    # them anew.
    _load_demo("--reset")
    task1 = Campaign.objects.get(name=CAMPAIGNS["answers"])
    assert task1.characterisation_questions.count() == 2 and CharacterisationAnswer.objects.count() == 0
    assert SampleItem.objects.filter(assignment__campaign=task1).count() == 5


def test_load_demo_says_which_passwords_it_does_not_know_and_resets_none(settings, tmp_path):
    settings.DATA_DIR, settings.DEMO_SITE = tmp_path, True
    first = _passwords(_load_demo())
    # An assessor chose a password of their own: the file's is not printed, nor is it set back.
    assessor1 = get_user_model().objects.get(username="assessor1")
    assessor1.set_password("my-own-password")
    assessor1.save()
    text = _load_demo()
    assert "user assessor1   password unknown (changed since load_demo set it)" in text
    assert _passwords(text) == {k: v for k, v in first.items() if k != "assessor1"}
    assert authenticate(username="assessor1", password="my-own-password") is not None

    (tmp_path / "demo-passwords.txt").unlink()
    before = _everything()

    text = _load_demo()
    assert _everything() == before
    assert not _passwords(text)
    assert text.count("password unknown (the account exists, its password is not in demo-passwords.txt)") == 4
    assert "changepassword USER" in text
    assert authenticate(username="assessor2", password=first["assessor2"]) is not None


def test_load_demo_adds_a_missing_account_and_keeps_the_others(settings, tmp_path):
    settings.DATA_DIR, settings.DEMO_SITE = tmp_path, True
    get_user_model().objects.create_user(username="assessor3", password="chosen-by-someone-else")
    first = _passwords(_load_demo())
    # An account that existed before the demo keeps its password, which the demo does not know.
    assert set(first) == {"organizer", "assessor1", "assessor2"}
    assert authenticate(username="assessor3", password="chosen-by-someone-else") is not None

    # An account removed since is made again, with a new password; the others keep theirs.
    get_user_model().objects.filter(username="assessor2").update(username="assessor2-renamed")
    second = _passwords(_load_demo())
    assert {k: v for k, v in second.items() if k != "assessor2"} == {k: v for k, v in first.items()
                                                                     if k != "assessor2"}
    assert authenticate(username="assessor2", password=second["assessor2"]) is not None
    assert _passwords(_load_demo()) == second

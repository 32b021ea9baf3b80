"""The demo gives the agreement dashboard, the disagreement review and the progress page something to show."""
from io import StringIO

import pytest
from django.core.management import call_command

from tests.commands import command_output
from workflow.demo import CAMPAIGNS

pytestmark = pytest.mark.django_db


def test_demo_has_a_judged_training_round_and_dual_topic(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    call_command("load_demo", "--force", stdout=StringIO())
    out, _ = command_output("agreement", "--campaign", CAMPAIGNS["answers"])
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    training = {(r[2], r[3]) for r in rows if r[:2] == ["training", "1"]}
    assert {("assessor1", "assessor2"), ("assessor2", "assessor3"), ("assessor3", "mean")} <= training
    assert ["dual", "-", "assessor2", "assessor1"] in [r[:4] for r in rows]
    assert all(r[5] != "n/a" and int(r[6]) > 10 for r in rows if r[3] != "mean")
    # Run again, the demo changes nothing.
    call_command("load_demo", "--force", stdout=StringIO())
    assert command_output("agreement", "--campaign", CAMPAIGNS["answers"])[0] == out

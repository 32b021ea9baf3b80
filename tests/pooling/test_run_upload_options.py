"""A run's upload options are declared once (pooling/run_options.py): the upload page, the API and ingest_run refuse
the same value with the same message, and an option added to the declaration is taken by all three."""
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from jobs.models import Job
from pooling import run_options
from pooling.models import Run
from tests.commands import command_output, rejected
from tests.pooling import test_pages_and_api as pages

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]

RUN = b"A.1\t5\t1\t2.0\tsys1\nA.1\t6\t2\t1.0\tsys1\n"
campaign = pages.campaign  # campaign "demo", topic A.1


def page_says(client, campaign, **fields) -> str:
    response = client.post(f"/campaigns/{campaign.pk}/runs/upload/",
                           {"file": SimpleUploadedFile("sys1.tsv", RUN), **fields})
    assert response.status_code == 200  # the form again, with its errors
    return unescape(response.content.decode())


def api_says(organizer, campaign, **fields) -> dict:
    api = APIClient()
    api.force_authenticate(organizer)
    response = api.post(f"/api/campaigns/{campaign.pk}/runs/", {"file": SimpleUploadedFile("sys1.tsv", RUN),
                                                                **fields})
    assert response.status_code == 400
    return response.json()


def command_says(tmp_path, *args) -> list[str]:
    path = tmp_path / "sys1.tsv"
    path.write_bytes(RUN)
    return rejected("ingest_run", "--campaign", "demo", *args, str(path))


@pytest.mark.parametrize(("field", "value", "message"), [
    ("kind", "sideways", "kind 'sideways' is not a run kind: use name, primary, alternate"),
    ("depth", "0", "a run's pool depth must be at least 1, not 0"),
    ("depth", "-3", "a run's pool depth must be at least 1, not -3"),
    ("depth", "deep", "a run's pool depth is a whole number"),
    ("depth", "99999999999", "a run's pool depth must be at most 2147483647, not 99999999999"),
    ("name", "n" * 201, "the run name is longer than 200 characters"),
    ("llm_model", "m" * 201, "the LLM model name is longer than 200 characters"),
])
def test_the_page_the_api_and_ingest_run_refuse_a_bad_option_with_one_message(client, organizer, campaign, tmp_path,
                                                                                field, value, message):
    client.force_login(organizer)
    assert message in page_says(client, campaign, **{field: value})
    assert api_says(organizer, campaign, **{field: value}) == {field: [message]}
    assert command_says(tmp_path, "--" + field.replace("_", "-"), value) == [message]
    assert not Run.objects.exists() and not Job.objects.exists()


def test_an_option_added_to_the_declaration_is_taken_and_checked_everywhere(client, organizer, campaign, tmp_path,
                                                                            monkeypatch):
    added = run_options.RunOption("priority", "number", "the run's priority", min_value=1, max_value=9,
                                  messages={"max_value": "a priority is at most %(limit_value)s, not %(value)s"})
    monkeypatch.setattr(run_options, "RUN_UPLOAD_OPTIONS", (*run_options.RUN_UPLOAD_OPTIONS, added))
    message = "a priority is at most 9, not 12"
    client.force_login(organizer)
    assert 'name="priority"' in page_says(client, campaign, priority="12")
    assert message in page_says(client, campaign, priority="12")
    assert api_says(organizer, campaign, priority="12") == {"priority": [message]}
    assert command_says(tmp_path, "--priority", "12") == [message]
    # The service knows no such option: a good value is checked, then left out of what the run is given.
    out, _ = command_output("ingest_run", "--campaign", "demo", "--priority", "3", str(tmp_path / "sys1.tsv"))
    assert "run 'sys1'" in out


def test_the_kind_is_decided_once_and_the_command_and_the_job_page_say_why(client, organizer, campaign, tmp_path):
    path = tmp_path / "team-task1-sys-auto-both-A.tsv"
    path.write_bytes(RUN)
    out, _ = command_output("ingest_run", "--campaign", "demo", str(path))
    assert "(alternate: the name team-task1-sys-auto-both-A ends in -A;" in out
    client.force_login(organizer)
    client.post(f"/campaigns/{campaign.pk}/runs/upload/", {"file": SimpleUploadedFile("sys1.tsv", RUN),
                                                           "kind": "alternate"})
    job = Job.objects.latest("pk")
    assert job.result["kind"] == "alternate" and job.result["kind_why"] == "chosen on upload"

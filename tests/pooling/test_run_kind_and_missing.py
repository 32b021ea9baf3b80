"""A run's kind is a choice said plainly (from the name, primary, alternate) and the job page says which was taken and
why (issue 22 point 6); a run most of whose ids the collection lacks is refused unless the organizer says to keep it
(point 3). The same on the upload page, the API and ingest_run."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from ir.problems import InputError
from jobs.models import Job
from pooling import services
from pooling.models import Run, RunEntry
from tests.commands import command_output, rejected

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]

A_NAME = "team-task1-sys-auto-both-A"
P_NAME = "team-task1-sys-auto-both-P"
ROWS = b"A.1\t10\t1\t2.0\tsys\nA.1\t11\t2\t1.0\tsys\n"
MISSING_ROWS = b"A.1\t10\t1\t3.0\tsys\nA.1\t97\t2\t2.0\tsys\nA.1\t98\t3\t1.0\tsys\n"  # 2 of 3 not in the collection


def upload(client, campaign, name: str, rows: bytes = ROWS, **fields) -> Job:
    client.post(f"/campaigns/{campaign.pk}/runs/upload/",
                {"file": SimpleUploadedFile(f"{name}.tsv", rows), **fields})
    return Job.objects.latest("pk")


def kind_of(name: str) -> str:
    return Run.objects.get(name=name).kind


def test_kind_primary_on_an_a_name_is_stored_primary_and_the_job_page_says_it_was_chosen(client, organizer,
                                                                                         answers):
    client.force_login(organizer)
    job = upload(client, answers, A_NAME, kind="primary")
    assert kind_of(A_NAME) == "primary"
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "Taken as primary: chosen on upload." in page


def test_kind_from_the_name_takes_its_ending_and_the_job_page_says_so(client, organizer, answers):
    client.force_login(organizer)
    job = upload(client, answers, A_NAME)  # the form's default: from the name
    assert kind_of(A_NAME) == "alternate"
    assert f"Taken as alternate: the name {A_NAME} ends in -A." in client.get(f"/jobs/{job.pk}/").content.decode()
    job = upload(client, answers, "plain")
    assert kind_of("plain") == "primary"
    assert "Taken as primary: the name says neither -P nor -A." in client.get(f"/jobs/{job.pk}/").content.decode()


def test_kind_alternate_on_a_p_name_is_alternate(client, organizer, answers):
    client.force_login(organizer)
    upload(client, answers, P_NAME, kind="alternate")
    assert kind_of(P_NAME) == "alternate"


def test_the_api_and_ingest_run_take_the_kind_and_alternate_keeps_its_meaning(organizer, answers, tmp_path):
    api = APIClient()
    api.force_authenticate(organizer)
    response = api.post(f"/api/campaigns/{answers.pk}/runs/",
                        {"file": SimpleUploadedFile(f"{A_NAME}.tsv", ROWS), "kind": "primary"})
    assert response.status_code == 202 and kind_of(A_NAME) == "primary"
    response = api.post(f"/api/campaigns/{answers.pk}/runs/", {"file": SimpleUploadedFile("x.tsv", ROWS), "kind": "?"})
    assert response.status_code == 400 and "kind" in response.json()

    path = tmp_path / f"{P_NAME}.tsv"
    path.write_bytes(ROWS)
    out, _ = command_output("ingest_run", "--campaign", "answers", "--kind", "alternate", str(path))
    assert kind_of(P_NAME) == "alternate" and "(alternate: chosen on upload;" in out
    out, _ = command_output("ingest_run", "--campaign", "answers", "--name", "old-flag", "--alternate", str(path))
    assert kind_of("old-flag") == "alternate"
    # A name that is no ARQMath name (A_NAME + "2" now is: -A2, a second alternate) leaves the file name to say it.
    out, _ = command_output("ingest_run", "--campaign", "answers", "--name", "renamed", str(path))
    assert kind_of("renamed") == "primary" and f"(primary: the name {P_NAME}.tsv ends in -P;" in out
    assert f"facts read from the name {P_NAME}.tsv: team team, task 1, automatic, text and math, primary" in out
    assert rejected("ingest_run", "--campaign", "answers", "--name", "both", "--kind", "primary", "--alternate",
                    str(path)) == ["the run is given kind 'primary' and marked alternate: choose one"]


def test_a_run_mostly_missing_from_the_collection_is_refused_unless_kept_explicitly(client, organizer, answers,
                                                                                     tmp_path):
    before = RunEntry.objects.count()
    client.force_login(organizer)
    job = upload(client, answers, "elsewhere", MISSING_ROWS)
    assert job.status == Job.Status.FAILED and not Run.objects.filter(name="elsewhere").exists()
    assert RunEntry.objects.count() == before
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "2 of the run&#x27;s 3 post ids are not in the collection" in page
    assert "Keep it even if most of its ids are not in the collection" in page

    upload(client, answers, "elsewhere", MISSING_ROWS, allow_missing="on")
    run = Run.objects.get(name="elsewhere")
    assert ("2 post ids are not in the collection 'judging' (for example 97, 98): 1 row whose post id the "
            "collection has is suspect") in " ".join(run.warnings)
    assert run.mostly_missing and run.suspect

    api = APIClient()
    api.force_authenticate(organizer)
    api.post(f"/api/campaigns/{answers.pk}/runs/", {"file": SimpleUploadedFile("api.tsv", MISSING_ROWS)})
    assert not Run.objects.filter(name="api").exists()
    api.post(f"/api/campaigns/{answers.pk}/runs/",
             {"file": SimpleUploadedFile("api.tsv", MISSING_ROWS), "allow_missing": "true"})
    assert Run.objects.filter(name="api").exists()

    path = tmp_path / "cmd.tsv"
    path.write_bytes(MISSING_ROWS)
    assert "2 of the run's 3 post ids" in rejected("ingest_run", "--campaign", "answers", str(path))[0]
    command_output("ingest_run", "--campaign", "answers", "--allow-missing", str(path))
    assert Run.objects.filter(name="cmd").exists()


def test_half_of_the_ids_missing_is_a_warning(answers, tmp_path):
    path = tmp_path / "half.tsv"
    path.write_bytes(b"A.1\t10\t1\t2.0\tsys\nA.1\t97\t2\t1.0\tsys\n")
    run = services.run_ingest(campaign=answers, path=path)
    assert any("1 post ids are not in the collection" in w for w in run.warnings)
    path.write_bytes(MISSING_ROWS)
    with pytest.raises(InputError, match="2 of the run's 3 post ids"):
        services.run_ingest(campaign=answers, path=path, name="more")


def test_real_name_variants_give_team_and_kind_the_job_page_says_what_was_read_and_the_facts_stay_editable(
        client, organizer, answers):
    client.force_login(organizer)
    job = upload(client, answers, "DPRL_task1_auto_both_A3")
    run = Run.objects.get(name="DPRL_task1_auto_both_A3")
    assert (run.kind, run.team, run.data_used) == ("alternate", "DPRL", "both")
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "Taken as alternate: the name DPRL_task1_auto_both_A3 ends in -A3." in page
    assert ("Facts read from the name DPRL_task1_auto_both_A3: team DPRL, task 1, automatic, text and math, "
            "alternate (edit them on the run&#x27;s Facts page).") in page
    upload(client, answers, "prim_MIRMU-task1-Ensemble-auto-both-A")
    assert Run.objects.get(name="prim_MIRMU-task1-Ensemble-auto-both-A").team == "MIRMU"
    services.run_facts_set(run=run, team="DPRL (RIT)", alternate=False)
    run.refresh_from_db()
    assert (run.team, run.kind) == ("DPRL (RIT)", "primary")

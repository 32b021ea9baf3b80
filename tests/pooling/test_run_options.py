"""A run's options (name, alternate, manual, baseline, own depth) are one set (services.RunIngestOptions), whichever way
the run comes in: the upload page, the API and ingest_run store the same run; a job's parameters are read back as
they were given, and parameters that fit no job of their kind fail the job with the reason."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from jobs.models import Job
from jobs.registry import params_of
from jobs.runner import job_execute
from judging.tasks import PoolBuildParams, RunIngestParams
from pooling.models import Run
from tests.commands import command_output
from tests.pooling import test_pages_and_api as pages

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("jobs_run_on_commit")]

RUN = b"A.1\t5\t1\t2.0\tsys1\nA.1\t6\t2\t1.0\tsys1\n"
OPTIONS = ("mine", "alternate", True, True, 7)
# The same campaign as the pages and API tests (topic A.1).
campaign = pages.campaign


def stored(campaign) -> tuple:
    run = Run.objects.get(campaign=campaign)
    return run.name, run.kind, run.manual, run.baseline, run.depth


def test_the_page_the_api_and_ingest_run_store_the_same_options(client, organizer, campaign, tmp_path):
    client.force_login(organizer)
    client.post(f"/campaigns/{campaign.pk}/runs/upload/", {
        "file": SimpleUploadedFile("sys1.tsv", RUN), "name": "mine", "kind": "alternate", "manual": "on",
        "baseline": "on", "depth": "7"})
    assert stored(campaign) == OPTIONS
    Run.objects.all().delete()

    api = APIClient()
    api.force_authenticate(organizer)
    response = api.post(f"/api/campaigns/{campaign.pk}/runs/", {
        "file": SimpleUploadedFile("sys1.tsv", RUN), "name": "mine", "alternate": "true", "manual": "true",
        "baseline": "true", "depth": "7"})
    assert response.status_code == 202 and stored(campaign) == OPTIONS
    Run.objects.all().delete()

    path = tmp_path / "sys1.tsv"
    path.write_bytes(RUN)
    command_output("ingest_run", "--campaign", "demo", "--name", "mine", "--alternate", "--manual", "--baseline",
                   "--depth", "7", str(path))
    assert stored(campaign) == OPTIONS


def test_a_run_given_no_option_is_named_after_its_file_and_pooled_to_the_campaign_s_depth(client, organizer,
                                                                                          campaign):
    client.force_login(organizer)
    client.post(f"/campaigns/{campaign.pk}/runs/upload/", {"file": SimpleUploadedFile("sys1.tsv", RUN)})
    assert stored(campaign) == ("sys1", "primary", False, False, None)


def test_a_job_reads_back_the_params_it_was_given(organizer, campaign):
    upload = RunIngestParams(upload="uploads/r.tsv", filename="r.tsv",
                             options={"name": "r", "alternate": True, "manual": False, "baseline": True, "depth": 9})
    run = Run.objects.create(campaign=campaign, name="old", checksum="x")
    replace = RunIngestParams.replacing(run, upload="uploads/s.tsv", filename="s.tsv", force=True)
    for params in (upload, replace, PoolBuildParams(force=True)):
        job = Job.objects.create(kind=params.kind, params=params.to_json(), campaign=campaign)
        assert params_of(job) == params
    # The options sit beside the file in the stored JSON, as jobs stored before the params were typed hold them.
    assert upload.to_json() == {"upload": "uploads/r.tsv", "filename": "r.tsv", "name": "r", "alternate": True,
                                "manual": False, "baseline": True, "depth": 9}


def test_a_job_whose_params_fit_no_job_of_its_kind_fails_with_the_reason(organizer, campaign):
    job = Job.objects.create(kind=Job.Kind.POOL_BUILD, params={"forced": True}, campaign=campaign)
    done = job_execute(job_id=job.pk)
    assert done.status == Job.Status.FAILED
    assert done.message.startswith(f"internal error: ValueError: the parameters of job #{job.pk} do not fit a "
                                   "pool_build job")

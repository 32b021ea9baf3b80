"""Every kind of job is run by the app that owns its work, through the one runner: its job page says what it did."""
from jobs.models import Job
from jobs.registry import kind_of
from tests.pooling.test_simulate_planner import campaign_with_runs, post


def test_every_kind_of_job_has_an_app_that_runs_it():
    assert {kind: kind_of(kind).params.kind for kind in Job.Kind.values} == {kind: kind for kind in Job.Kind.values}


def test_a_simulation_runs_as_a_job_listed_with_its_qrels_file(client, organizer, tmp_path,
                                                              django_capture_on_commit_callbacks):
    campaign = campaign_with_runs(tmp_path)
    client.force_login(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        post(client, campaign, policies=["random", "bandit"])
    job = Job.objects.get(campaign=campaign, kind=Job.Kind.JUDGING_SIMULATION)
    assert job.status == Job.Status.DONE
    listed = client.get("/jobs/").content.decode()
    assert "judging simulation" in listed and "qrels-2020.txt" in listed
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "Replayed 2 judging orders on qrels-2020.txt." in page


def test_a_scores_refresh_is_not_listed_among_the_jobs(client, organizer, tmp_path):
    campaign = campaign_with_runs(tmp_path)
    Job.objects.create(kind=Job.Kind.SCORES_REFRESH, campaign=campaign, status=Job.Status.DONE)
    client.force_login(organizer)
    assert "scores refresh" not in client.get("/jobs/").content.decode()
    assert "scores refresh" not in client.get(f"/campaigns/{campaign.pk}/").content.decode()

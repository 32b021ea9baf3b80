"""The leaderboard and reusability never compute in the request: after a judgment they show the last scores with
their age, "updating", and the campaign's one recompute lands the new ones."""
import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from evaluation.snapshots import scores_refresh_request
from jobs import runner
from jobs.models import Job
from jobs.runner import job_execute
from tests.evaluation.test_campaign import judge, judged_answers  # noqa: F401 (fixture)

PENDING = (Job.Status.QUEUED, Job.Status.RUNNING)


def _map(scores: dict) -> float:
    return next(run["map_prime"] for run in scores["runs"] if run["run"] == "r1")


@pytest.fixture
def broker(monkeypatch):
    """A broker and no worker yet: the recomputes sent, by campaign, instead of run."""
    sent: list[int] = []
    monkeypatch.setattr(runner, "_publish", lambda job_id, kind: sent.append(Job.objects.get(pk=job_id).campaign_id))
    return sent


def worker() -> None:
    """A worker takes the queued jobs."""
    for job in Job.objects.filter(status=Job.Status.QUEUED):
        job_execute(job_id=job.pk)


def test_a_judgment_shows_the_last_scores_updating_and_queues_one_recompute(judged_answers, client, organizer,  # noqa: F811
                                                                           broker):
    client.force_login(organizer)
    url = reverse("evaluation:leaderboard", args=[judged_answers.pk])
    api = f"/api/campaigns/{judged_answers.pk}/evaluation/"
    assert "Computing the scores" in client.get(url).content.decode() and broker == [judged_answers.pk]
    assert client.get(api).status_code == 202
    worker()
    page = client.get(url).content.decode()
    assert "3 posts in 2 topics" in page and "updating" not in page and "with the newest judgments." in page
    before = client.get(api).json()
    assert before["updating"] is False and broker == [judged_answers.pk]

    judge(judged_answers, ("ada", "A.1", "10", "0", "on reflection"))  # a revision: A.1 loses its relevant post
    page = client.get(url).content.decode()
    assert "3 posts in 2 topics" in page and "<strong>updating</strong>" in page and "ago)" in page
    during = client.get(api).json()
    assert during["updating"] is True and during["version"] == before["version"] and during["judgments"] == 3
    assert broker == [judged_answers.pk] * 2  # one recompute queued for the campaign, however many pages ask

    worker()
    after = client.get(api).json()
    assert after["updating"] is False and after["version"] != before["version"]
    assert _map(after) < _map(before) and "updating" not in client.get(url).content.decode()


def test_without_a_broker_the_first_view_after_a_judgment_shows_fresh_scores(judged_answers, client, organizer):  # noqa: F811
    client.force_login(organizer)
    api = f"/api/campaigns/{judged_answers.pk}/evaluation/"
    before = client.get(api).json()
    judge(judged_answers, ("ada", "A.1", "10", "0", "on reflection"))  # a revision: A.1 loses its relevant post
    found = client.get(api).json()
    assert found["updating"] is False and _map(found) < _map(before)
    # The recompute ran as a job, which is done: none is pending, so the next change queues the next one.
    refreshes = Job.objects.filter(campaign=judged_answers, kind=Job.Kind.SCORES_REFRESH)
    assert [job.status for job in refreshes] == [Job.Status.DONE] and refreshes[0].result["computed"] >= 1
    # A housekeeping job: not in the campaign's list of jobs.
    page = client.get(reverse("workflow:campaign", args=[judged_answers.pk])).content.decode()
    assert "scores refresh" not in page


def test_at_most_one_recompute_of_a_campaign_is_pending(judged_answers, broker):  # noqa: F811
    assert scores_refresh_request(campaign=judged_answers)
    assert not scores_refresh_request(campaign=judged_answers)
    pending = Job.objects.filter(campaign=judged_answers, kind=Job.Kind.SCORES_REFRESH, status__in=PENDING)
    assert pending.count() == 1 and broker == [judged_answers.pk]
    with pytest.raises(IntegrityError), transaction.atomic():  # two pages at once: the database keeps one
        Job.objects.create(kind=Job.Kind.SCORES_REFRESH, campaign=judged_answers)
    worker()
    assert scores_refresh_request(campaign=judged_answers)  # the last one finished: the next one is queued
    assert broker == [judged_answers.pk] * 2


def test_reusability_shows_the_last_table_updating_after_a_judgment(judged_answers, client, organizer, broker):  # noqa: F811
    client.force_login(organizer)
    url = reverse("evaluation:reusability", args=[judged_answers.pk])
    assert "Computing the table" in client.get(url).content.decode()
    worker()
    page = client.get(url).content.decode()
    assert 'id="reusability"' in page and "updating" not in page
    judge(judged_answers, ("ada", "A.1", "10", "0", "on reflection"))  # a revision: A.1 loses its relevant post
    page = client.get(url).content.decode()
    assert 'id="reusability"' in page and "<strong>updating</strong>" in page
    worker()
    assert "updating" not in client.get(url).content.decode()


@pytest.mark.parametrize("runs", [False, True], ids=["no run", "runs, no judgment"])
def test_a_new_campaign_answers_an_empty_table_at_once(answers, client, organizer, broker, runs):
    """Nothing to compute: no "being computed" (503 or 202) and no recompute queued, but the empty table and why."""
    if not runs:
        answers.runs.all().delete()
    client.force_login(organizer)
    page = client.get(reverse("evaluation:leaderboard", args=[answers.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    sentence = "No official judgment yet: the runs are scored once assessors have judged." if runs else (
        "No run yet: the leaderboard lists the runs once they are uploaded and judged.")
    assert sentence in text and "Computing the scores" not in text and 'data-computing="1"' not in text
    csv_file = client.get(reverse("evaluation:leaderboard_csv", args=[answers.pk]))
    assert csv_file.status_code == 200
    assert csv_file.content.decode().splitlines()[0].startswith("run,kind,manual,baseline,ndcg_prime,")
    assert len(csv_file.content.decode().splitlines()) == 1  # the header, no run
    api = client.get(f"/api/campaigns/{answers.pk}/evaluation/")
    assert api.status_code == 200
    assert api.json()["runs"] == [] and api.json()["judgments"] == 0 and api.json()["computed_at"] is None
    # Every score page of the kind: reusability (page and TSV) and the RRF sweep say why, never "computing".
    reuse = client.get(reverse("evaluation:reusability", args=[answers.pk]))
    assert reuse.status_code == 200 and sentence in reuse.content.decode()
    assert "Computing the table" not in reuse.content.decode()
    tsv = client.get(reverse("evaluation:reusability", args=[answers.pk]), {"format": "tsv"})
    assert tsv.status_code == 200 and len(tsv.content.decode().splitlines()) == 1  # the header
    sweep = client.get(reverse("evaluation:leaderboard", args=[answers.pk]), {"sweep": "1"}).content.decode()
    assert "The sweep is being computed" not in sweep
    assert broker == []


def test_a_campaign_with_runs_and_judgments_is_still_being_computed(judged_answers, client, organizer, broker):  # noqa: F811
    client.force_login(organizer)
    response = client.get(reverse("evaluation:leaderboard_csv", args=[judged_answers.pk]))
    assert response.status_code == 503 and response["Retry-After"]
    assert client.get(f"/api/campaigns/{judged_answers.pk}/evaluation/").status_code == 202
    assert broker == [judged_answers.pk]

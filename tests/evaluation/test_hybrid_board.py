"""The leaderboard's runs under hybrid qrels (docs/evaluation.md, "Under hybrid qrels"): the scores' job computes each
run's official and hybrid means with the 95% intervals of the hybrid mean and rank (ir.hybrid_intervals), the page,
the CSV and the API show them, a new calibration recomputes them, and a bad ?model= is refused without a 500."""
import csv
import io
import re

import numpy as np
import pytest
from django.urls import reverse

from agreement.tasks import calibration_refit_request
from evaluation import hybrid_board, services, snapshots
from evaluation.models import ScoreSnapshot
from ir.prime import NDCG
from ir.statistics import ranks
from jobs import runner
from jobs.models import Job
from jobs.runner import job_execute
from llm.models import Calibration
from pooling import services as pooling_services
from tests.judging.test_llm_agreement import MODEL, TOPIC, judge, llm_grade
from tests.pooling.run_files import ingest, task1_lines

pytestmark = pytest.mark.django_db

# The model's probabilities of grades 0..3 of each pooled item (A.1: 10, 11, 12; A.2: 20, 99).
PROBABILITIES = {"10": [0.05, 0.1, 0.25, 0.6], "11": [0.1, 0.45, 0.4, 0.05], "12": [0.2, 0.1, 0.6, 0.1],
                 "20": [0.1, 0.7, 0.1, 0.1], "99": [0.4, 0.35, 0.15, 0.1]}
OFFICIAL = {"10": "3", "12": "0", "20": "1"}  # 11 and 99 nobody judged: the hybrid qrels fill them
REPLICATES = 200


@pytest.fixture
def calibrated(answers, tmp_path, settings):
    """The answers campaign with three runs ordering the same pool differently, official judgments of three of its
    five items, the model's grades of all five and its calibration (fitted by the job, in-process)."""
    settings.HYBRID_BOARD_REPLICATES = REPLICATES
    ingest(answers, tmp_path, "r2", task1_lines("A.1", ["12", "11", "10"], "r2")
           + task1_lines("A.2", ["99", "20"], "r2"))
    ingest(answers, tmp_path, "r3", task1_lines("A.1", ["11", "10"], "r3") + task1_lines("A.2", ["20"], "r3"))
    pooling_services.pool_build(campaign=answers, judged_items={})
    judge(answers, "ada", OFFICIAL, "official")
    topics = {t.topic_id: t for t in answers.topics.all()}
    for item, p in PROBABILITIES.items():
        llm_grade(topic=topics[TOPIC[item]], item_id=item, grade=int(np.argmax(p)),
                  probabilities={str(g): v for g, v in enumerate(p)}, probability_source="logprobs")
    assert calibration_refit_request(campaign=answers)  # no broker in the tests: the job runs at once
    return answers


@pytest.fixture
def broker(monkeypatch):
    """A broker and no worker yet: the jobs sent, not run."""
    sent: list[str] = []
    monkeypatch.setattr(runner, "_publish", lambda job_id, kind: sent.append(kind))
    return sent


def worker() -> None:
    for job in Job.objects.filter(status=Job.Status.QUEUED):
        job_execute(job_id=job.pk)


def hybrid_qrels(campaign, model=MODEL):
    """The hybrid qrels as `export_qrels --source hybrid:MODEL` writes them."""
    qrels: dict[str, dict[str, int]] = {}
    for line in services.qrels_export_lines(campaign=campaign, source=f"hybrid:{model}"):
        topic, _zero, item, grade = line.split()
        qrels.setdefault(topic, {})[item] = int(grade)
    return qrels


def means(evaluation):
    return {scores.name: scores.means[NDCG] for scores in evaluation.runs}


def leaderboard(client, campaign, query=""):
    return client.get(reverse("evaluation:leaderboard", args=[campaign.pk]) + query)


def test_the_scores_job_computes_each_runs_official_and_hybrid_means_with_intervals(calibrated, client, organizer):
    client.force_login(organizer)
    page = leaderboard(client, calibrated).content.decode()  # no broker: the scores' job has run in-process
    snapshot = ScoreSnapshot.objects.get(campaign=calibrated, kind=ScoreSnapshot.Kind.HYBRID)
    assert snapshot.computed_at is not None and snapshot.asked["model"] == MODEL
    assert snapshot.version == hybrid_board.hybrid_version(campaign=calibrated, model=MODEL)
    board = snapshots.hybrid(campaign=calibrated).value
    assert board.model == MODEL and board.calibration_version == 1 and board.humans == 3
    assert board.replicates == REPLICATES and board.judged == 3 and board.filled == 2 and board.topics == 2
    # The same means as the one way to score gives, every qrels topic counted: the official qrels and the hybrid ones.
    official = means(services.evaluate_campaign(campaign=calibrated, all_topics=True))
    hybrid = means(services.evaluate_campaign(campaign=calibrated, all_topics=True, qrels=hybrid_qrels(calibrated)))
    assert {row.run: row.official for row in board.rows} == pytest.approx(official)
    assert {row.run: row.hybrid for row in board.rows} == pytest.approx(hybrid)
    assert [row.hybrid for row in board.rows] == sorted(hybrid.values(), reverse=True)  # best hybrid mean first
    assert {row.run: row.official_rank for row in board.rows} == ranks(official)
    for row in board.rows:
        assert row.low <= row.hybrid <= row.high and row.low < row.high  # the filled grades and topics vary
        assert 1 <= row.rank_best <= row.rank_worst <= 3
    assert f"Under hybrid qrels ({MODEL}, calibrated on 3 judgments)" in page
    table = page[page.index('id="hybrid-leaderboard"'):]
    for row in board.rows:
        shown = re.search(rf'<tr data-run="{row.run}">(.*?)</tr>', table, re.S).group(1)
        assert f"[{row.low:.4f}, {row.high:.4f}]" in shown and f">{row.hybrid:.4f}<" in shown
        assert f">{row.official:.4f}<" in shown
        interval = str(row.rank_best) if row.rank_best == row.rank_worst else f"{row.rank_best}–{row.rank_worst}"
        assert f'<td class="num rank-interval">{interval}</td>' in shown
    assert f"{REPLICATES} bootstrap replicates" in page


def test_a_new_calibration_version_recomputes_the_board(calibrated, client, organizer, broker):
    client.force_login(organizer)
    worker()
    leaderboard(client, calibrated)
    worker()
    before = snapshots.hybrid(campaign=calibrated).value
    assert before.calibration_version == 1
    # A refit (here by hand): 11 now surely relevant, 99 surely not; no judgment changed.
    calibration = Calibration.objects.get(campaign=calibrated, model=MODEL)
    calibration.probabilities = {"A.1": {**calibration.probabilities["A.1"], "11": [0, 0, 0, 1]},
                                 "A.2": {**calibration.probabilities["A.2"], "99": [1, 0, 0, 0]}}
    calibration.version = 2
    calibration.save()
    page = leaderboard(client, calibrated).content.decode()
    assert "<strong>updating</strong> with the newest judgments or calibration" in page  # the last board meanwhile
    assert broker  # the recompute was queued
    worker()
    after = snapshots.hybrid(campaign=calibrated).value
    assert after.calibration_version == 2
    hybrid = means(services.evaluate_campaign(campaign=calibrated, all_topics=True, qrels=hybrid_qrels(calibrated)))
    assert {row.run: row.hybrid for row in after.rows} == pytest.approx(hybrid)
    assert {row.run: row.hybrid for row in after.rows} != {row.run: row.hybrid for row in before.rows}
    # Nothing left to draw for A.2's 99 and A.1's 11 but their one grade: their runs' spread is the topics' alone.
    assert all(row.low <= row.hybrid <= row.high for row in after.rows)


def test_the_section_says_computing_until_the_job_has_run(calibrated, client, organizer, broker):
    client.force_login(organizer)
    leaderboard(client, calibrated)
    worker()  # the leaderboard's scores, and the board
    ScoreSnapshot.objects.filter(kind=ScoreSnapshot.Kind.HYBRID).delete()
    page = leaderboard(client, calibrated).content.decode()
    assert "Computing the runs' scores under hybrid qrels" in page and 'id="hybrid-leaderboard"' not in page
    worker()
    page = leaderboard(client, calibrated).content.decode()
    assert 'id="hybrid-leaderboard"' in page and "Computing the runs' scores under hybrid qrels" not in page


def test_a_campaign_without_a_calibration_shows_no_hybrid_section(calibrated, client, organizer):
    Calibration.objects.all().delete()
    client.force_login(organizer)
    response = leaderboard(client, calibrated)
    assert response.status_code == 200 and 'id="leaderboard"' in response.content.decode()
    assert "Under hybrid qrels" not in response.content.decode()
    assert not ScoreSnapshot.objects.filter(kind=ScoreSnapshot.Kind.HYBRID).exists()


@pytest.mark.parametrize("model", ["nobody", "x" * 5000, "%00", "' OR 1=1"])
def test_a_model_without_a_calibration_is_refused_and_the_latest_shown(calibrated, client, organizer, model):
    client.force_login(organizer)
    response = leaderboard(client, calibrated, "?model=" + model)
    page = response.content.decode()
    assert response.status_code == 400 and 'id="leaderboard-problems"' in page and "no calibration of model" in page
    assert f"Under hybrid qrels ({MODEL}, calibrated on 3 judgments)" in page
    api = client.get(reverse("api-evaluation", args=[calibrated.pk]), {"model": model})
    assert api.status_code == 400


def test_the_csv_and_the_api_give_the_same_board(calibrated, client, organizer):
    client.force_login(organizer)
    leaderboard(client, calibrated)
    board = snapshots.hybrid(campaign=calibrated).value
    text = client.get(reverse("evaluation:leaderboard_csv", args=[calibrated.pk])).content.decode()
    rows = list(csv.reader(io.StringIO(text[text.index("hybrid_run"):])))
    assert rows[0] == ["hybrid_run", "model", "calibration_version", "measure", "official", "official_rank", "hybrid",
                       "hybrid_low", "hybrid_high", "rank_best", "rank_worst"]
    assert [r[0] for r in rows[1:]] == [row.run for row in board.rows]
    first = board.rows[0]
    assert rows[1][1:] == [MODEL, "1", NDCG, f"{first.official:.4f}", str(first.official_rank), f"{first.hybrid:.4f}",
                           f"{first.low:.4f}", f"{first.high:.4f}", str(first.rank_best), str(first.rank_worst)]
    found = client.get(reverse("api-evaluation", args=[calibrated.pk]), {"model": MODEL}).json()["hybrid"]
    assert found["computing"] is False and found["problem"] == ""
    assert found["board"]["model"] == MODEL and found["board"]["replicates"] == REPLICATES
    assert [(r["run"], r["low"], r["high"], r["rank_best"]) for r in found["board"]["rows"]] == [
        (row.run, row.low, row.high, row.rank_best) for row in board.rows]


def test_with_two_calibrated_models_the_page_links_the_other_and_shows_its_board(calibrated, client, organizer):
    topics = {t.topic_id: t for t in calibrated.topics.all()}
    for item in PROBABILITIES:  # another model, sure of grade 0 everywhere
        llm_grade(topic=topics[TOPIC[item]], item_id=item, grade=0, model="other-model",
                  probabilities={"0": 0.97, "1": 0.01, "2": 0.01, "3": 0.01}, probability_source="logprobs")
    assert calibration_refit_request(campaign=calibrated)
    assert set(hybrid_board.calibrated_models(campaign=calibrated)) == {MODEL, "other-model"}
    client.force_login(organizer)
    page = leaderboard(client, calibrated, f"?model={MODEL}").content.decode()
    assert f"Under hybrid qrels ({MODEL}, calibrated on 3 judgments)" in page
    assert '<a href="?model=other-model#hybrid">other-model</a>' in page and f"<strong>{MODEL}</strong>" in page
    page = leaderboard(client, calibrated, "?model=other-model").content.decode()
    assert "Under hybrid qrels (other-model, calibrated on 3 judgments)" in page
    board = snapshots.hybrid(campaign=calibrated, model="other-model").value
    hybrid = means(services.evaluate_campaign(campaign=calibrated, all_topics=True,
                                              qrels=hybrid_qrels(calibrated, "other-model")))
    assert {row.run: row.hybrid for row in board.rows} == pytest.approx(hybrid)


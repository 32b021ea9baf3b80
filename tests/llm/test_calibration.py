"""The LLM calibrated on the official judgments (docs/llm_calibration.md, "In the product"): the refit is a job the
agreement page queues (never fitted in the request), it stores what ir's rule fits on the same data, the page shows
its reliability diagram and ECE, and the hybrid qrels fill every pooled item nobody judged with its most probable
calibrated grade."""
from io import StringIO

import numpy as np
import pytest
from django.urls import reverse

from agreement.tasks import calibration_refit_request
from evaluation import services as evaluation_services
from ir.calibration import LaraCalibrator, expected_calibration_error
from ir.hybrid import BiasAwareCalibrator, context_of, features
from ir.problems import InputError
from jobs import runner
from jobs.models import Job
from jobs.runner import job_execute
from llm.models import Calibration
from pooling.models import PoolItem
from tests.commands import rejected
from tests.judging.test_llm_agreement import MODEL, TOPIC, judge, llm_grade

pytestmark = pytest.mark.django_db

KEYS = [("A.1", "10"), ("A.1", "11"), ("A.1", "12"), ("A.2", "20"), ("A.2", "99")]  # the pool, in (topic, item) order
# The model's probabilities of grades 0..3 of each pooled item, and the grade it gave (the most probable).
PROBABILITIES = {"10": [0.05, 0.1, 0.25, 0.6], "11": [0.1, 0.45, 0.4, 0.05], "12": [0.2, 0.1, 0.6, 0.1],
                 "20": [0.1, 0.7, 0.1, 0.1], "99": [0.4, 0.35, 0.15, 0.1]}
OFFICIAL = {"10": "3", "12": "0", "20": "1"}  # 11 and 99 nobody judged: the hybrid qrels fill them
RUNS = {"r1": {"A.1": ["10", "11", "12"], "A.2": ["20", "99"]}}


@pytest.fixture
def graded(answers):
    judge(answers, "ada", OFFICIAL, "official")
    topics = {t.topic_id: t for t in answers.topics.all()}
    for item, p in PROBABILITIES.items():
        llm_grade(topic=topics[TOPIC[item]], item_id=item, grade=int(np.argmax(p)),
                  probabilities={str(g): v for g, v in enumerate(p)}, probability_source="logprobs")
    return answers


@pytest.fixture
def broker(monkeypatch):
    """A broker and no worker yet: the refits sent, by campaign, instead of run."""
    sent: list[int] = []
    monkeypatch.setattr(runner, "_publish", lambda job_id, kind: sent.append(Job.objects.get(pk=job_id).campaign_id))
    return sent


def worker() -> None:
    for job in Job.objects.filter(status=Job.Status.QUEUED):
        job_execute(job_id=job.pk)


def bias_aware_expected():
    """What ir/hybrid.py's rule fits on the same data: the calibrated probabilities in KEYS' order, and the judged
    rows."""
    probabilities = np.array([PROBABILITIES[item] for _, item in KEYS])
    x = features(probabilities, context_of(KEYS, RUNS))
    judged = [KEYS.index((TOPIC[item], item)) for item in OFFICIAL]
    calibrator = BiasAwareCalibrator(4)
    calibrator.fit(x[judged], np.array([int(OFFICIAL[item]) for item in OFFICIAL]))
    return probabilities, calibrator.predict(x), judged


def stored(calibration):
    return np.array([calibration.probabilities[topic][item] for topic, item in KEYS])


def test_the_refit_job_stores_the_bias_aware_rules_fit_of_the_official_judgments(graded):
    assert calibration_refit_request(campaign=graded)  # no broker in the tests: the job runs at once
    calibration = Calibration.objects.get(campaign=graded, model=MODEL)
    probabilities, calibrated, judged = bias_aware_expected()
    labels = [int(OFFICIAL[item]) for item in OFFICIAL]
    assert calibration.rule == "bias-aware" and calibration.humans == 3 and calibration.version == 1
    assert np.allclose(stored(calibration), calibrated, atol=1e-5)
    assert calibration.ece_before == pytest.approx(expected_calibration_error(probabilities[judged], labels))
    assert calibration.ece_after == pytest.approx(expected_calibration_error(calibrated[judged], labels), abs=1e-6)
    assert sum(b["count"] for b in calibration.bins["before"]) == 3 and len(calibration.bins["after"]) == 10

    judge(graded, "ada", {"11": "2"}, "official")  # a new judgment: the calibration is stale, refitted once more
    assert calibration_refit_request(campaign=graded)
    assert Calibration.objects.get(campaign=graded, model=MODEL).version == 2


def test_without_any_run_the_fallback_is_laras_rule_in_the_order_people_judged(graded):
    PoolItem.objects.filter(campaign=graded).update(provenance=[])
    calibration_refit_request(campaign=graded)
    calibration = Calibration.objects.get(campaign=graded, model=MODEL)
    lara = LaraCalibrator(4)
    for item, grade in OFFICIAL.items():
        lara.update(np.array(PROBABILITIES[item]), int(grade))
    expected = lara.predict(np.array([PROBABILITIES[item] for _, item in KEYS]))
    assert calibration.rule == "lara" and np.allclose(stored(calibration), expected, atol=1e-5)


def test_the_agreement_page_queues_one_refit_writes_nothing_and_then_shows_the_diagram(graded, client, organizer,
                                                                                       broker):
    client.force_login(organizer)
    url = reverse("agreement:agreement", args=[graded.pk])
    page = client.get(url).content.decode()
    assert "Being fitted on the official judgments" in page and "reliability-1" not in page
    client.get(url)
    assert broker == [graded.pk]  # one refit queued, however many pages ask
    assert not Calibration.objects.exists()  # a GET writes no calibration

    worker()
    page = client.get(url).content.decode()
    calibration = Calibration.objects.get(campaign=graded, model=MODEL)
    assert '<svg class="reliability-chart" id="reliability-1"' in page and page.count('class="bar after"') >= 1
    assert f'<span class="ece-before">{calibration.ece_before:.3f}</span>' in page
    assert f'<span class="ece-after">{calibration.ece_after:.3f}</span>' in page
    assert "on 3 judged items" in page and "updating" not in page and broker == [graded.pk]

    judge(graded, "ada", {"11": "2"}, "official")
    page = client.get(url).content.decode()
    assert "<strong>updating</strong>" in page and "reliability-1" in page  # the last fit, while the next is queued
    client.get(url)
    assert broker == [graded.pk] * 2 and Calibration.objects.get(pk=calibration.pk).version == 1


def test_hybrid_qrels_are_peoples_grades_where_judged_and_the_calibrated_grade_elsewhere(graded):
    calibration_refit_request(campaign=graded)
    _probabilities, calibrated, _judged = bias_aware_expected()
    filled = {key: int(np.argmax(calibrated[KEYS.index(key)])) for key in KEYS if key[1] not in OFFICIAL}
    out, side = StringIO(), StringIO()
    evaluation_services.qrels_export(campaign=graded, out=out, source=f"hybrid:{MODEL}", sources_out=side)
    grades = {(topic, item): int(grade) for topic, _zero, item, grade in
              (line.split("\t") for line in out.getvalue().splitlines())}
    assert grades == {**{(TOPIC[item], item): int(g) for item, g in OFFICIAL.items()}, **filled}
    rows = side.getvalue().splitlines()
    assert rows[0] == "topic\titem_id\tsource"
    assert {tuple(row.split("\t")[:2]): row.split("\t")[2] for row in rows[1:]} == {
        key: "people" if key[1] in OFFICIAL else f"hybrid:{MODEL}" for key in grades}


def test_the_hybrid_source_is_refused_before_any_calibration(graded, client, organizer):
    with pytest.raises(InputError, match="no calibration of qwen2.5:7b"):
        list(evaluation_services.qrels_export_lines(campaign=graded, source="hybrid"))
    assert any("no calibration" in line for line in rejected("export_qrels", "--campaign", graded.name,
                                                             "--source", "hybrid", "--sources", "/dev/null"))
    client.force_login(organizer)
    response = client.get(reverse("evaluation:qrels", args=[graded.pk]), {"source": f"hybrid:{MODEL}"})
    assert response.status_code == 400 and "no calibration" in response.content.decode()

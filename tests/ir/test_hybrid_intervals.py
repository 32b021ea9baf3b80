"""Intervals over hybrid qrels (ir/hybrid_intervals.py): the grade draws, the ranks, and the coverage of the score
full human qrels give, on synthetic campaigns whose LLM is calibrated."""
import numpy as np
import pytest

from ir.hybrid import bias_aware_assess, context_of
from ir.hybrid_intervals import draw_grades, hybrid_intervals, per_topic_scorer, rank_matrix
from ir.llm_simulation import make_campaign, make_llm_grades

TRIALS = 20


def test_grades_are_drawn_at_their_probabilities():
    calibrated = np.tile([0.1, 0.2, 0.3, 0.4], (20_000, 1))
    calibrated[:5] = [0.0, 0.0, 1.0, 0.0]
    drawn = draw_grades(calibrated, np.random.default_rng(3))
    assert (drawn[:5] == 2).all()
    np.testing.assert_allclose(np.bincount(drawn[5:], minlength=4) / len(drawn[5:]), [0.1, 0.2, 0.3, 0.4], atol=0.01)


def test_ranks_share_the_better_one_among_ties():
    assert rank_matrix(np.array([[0.5, 0.7, 0.5, 0.1]])).tolist() == [[2, 1, 2, 4]]


def test_the_point_is_the_hybrid_qrels_score_and_certain_grades_leave_no_doubt():
    runs = {"a": {"T1": ["x", "y"], "T2": ["z"]}, "b": {"T1": ["y", "x"], "T2": ["w"]}}
    items = [("T1", "x"), ("T1", "y"), ("T2", "z"), ("T2", "w")]
    calibrated = np.eye(4)[[3, 0, 3, 0]].astype(float)
    scorer = per_topic_scorer(runs)
    intervals = hybrid_intervals(items, {1: 0}, calibrated, scorer, replicates=50, resample_topics=False)
    assert intervals.means == pytest.approx({"a": 1.0, "b": 0.25})  # a: AP 1 and 1; b: AP 0.5 and 0
    assert intervals.mean_intervals["a"] == pytest.approx((1.0, 1.0))
    assert intervals.rank_intervals == {"a": (1, 1), "b": (2, 2)}
    resampled = hybrid_intervals(items, {1: 0}, calibrated, scorer, replicates=200)
    assert resampled.mean_intervals["b"] == pytest.approx((0.0, 0.5))  # the topics' spread: b's two values


def coverage(trials: int, replicates: int, *, fitted: bool) -> tuple[float, float, float]:
    """Over seeded campaigns whose true grades are drawn from the LLM's own probabilities (a calibrated model),
    with 20% of the pool judged by people as the bias-aware rule chooses, the others drawn from the model's
    probabilities or (`fitted`) from the bias-aware calibrator's: the shares of runs whose full-qrels mean is inside
    the interval without and with topic resampling, and whose full-qrels rank is inside the rank interval."""
    inside, inside_topics, inside_rank, total = 0, 0, 0, 0
    for trial in range(trials):
        campaign = make_campaign(500 + trial, topics=8, runs=6, documents=60, depth=30, pool_depth=10)
        probabilities = make_llm_grades(campaign.qrels, campaign.items, seed=trial)
        rng = np.random.default_rng(trial)
        truth = draw_grades(probabilities, rng)
        qrels = {topic: dict(items) for topic, items in campaign.qrels.items()}
        for (topic, item), grade in zip(campaign.items, truth.tolist(), strict=True):
            qrels[topic][item] = grade
        assessment = bias_aware_assess(probabilities, context_of(campaign.items, campaign.runs),
                                       lambda i, grades=truth: int(grades[i]), len(campaign.items) // 5, top_k=10,
                                       refit_every=5, seed=trial)
        calibrated = assessment.calibrated if fitted else probabilities
        scorer = per_topic_scorer(campaign.runs)
        full = {run: float(np.mean(list(values.values()))) for run, values in scorer(qrels).items()}
        full_rank = {run: 1 + sum(other > value for other in full.values()) for run, value in full.items()}
        labels = hybrid_intervals(campaign.items, assessment.human, calibrated, scorer,
                                  replicates=replicates, seed=trial, resample_topics=False)
        topics = hybrid_intervals(campaign.items, assessment.human, calibrated, scorer,
                                  replicates=replicates, seed=trial)
        for run, value in full.items():
            total += 1
            inside += labels.mean_intervals[run][0] <= value <= labels.mean_intervals[run][1]
            inside_topics += topics.mean_intervals[run][0] <= value <= topics.mean_intervals[run][1]
            inside_rank += topics.rank_intervals[run][0] <= full_rank[run] <= topics.rank_intervals[run][1]
    return inside / total, inside_topics / total, inside_rank / total


def test_intervals_cover_the_full_human_score_at_about_their_level():
    labels, topics, ranks = coverage(TRIALS, 60, fitted=False)
    print(f"coverage of 95% intervals over {TRIALS} campaigns: grades only {labels:.3f}, "
          f"grades and topics {topics:.3f}, ranks {ranks:.3f}")
    assert labels >= 0.85
    assert topics >= labels


def test_the_calibrations_draws_centre_on_the_fit_and_narrow_with_more_judgments():
    """`calibration_draws`: the Laplace approximation of the bias-aware calibrator's weights. Its draws average to
    about the fitted calibration, and spread less the more items people judged."""
    from ir.hybrid import BiasAwareCalibrator, calibration_draws, features

    campaign = make_campaign(11, topics=16, runs=6, documents=80, depth=30, pool_depth=15)
    probabilities = make_llm_grades(campaign.qrels, campaign.items, seed=11)
    truth = np.array([campaign.qrels[t][i] for t, i in campaign.items])
    context = context_of(campaign.items, campaign.runs)
    spreads = []
    assert len(truth) > 500
    for judged in (40, 400):
        human = {int(i): int(truth[i]) for i in np.linspace(0, len(truth) - 1, judged).astype(int)}
        draw = calibration_draws(probabilities, context, human)
        rng = np.random.default_rng(3)
        draws = np.array([draw(rng) for _ in range(200)])
        calibrator = BiasAwareCalibrator(probabilities.shape[1])
        x = features(probabilities, context)
        calibrator.fit(x[list(human)], np.array(list(human.values())))
        fitted = calibrator.predict(x)
        assert np.abs(draws.mean(axis=0) - fitted).mean() < 0.05
        spreads.append(draws.std(axis=0).mean())
    assert spreads[1] < spreads[0] / 2

"""The bias-aware rule (ir/hybrid.py) against LARA's plain rule on a campaign whose LLM favours four runs, and the
simulated LLM of ir/llm_simulation.py."""
import numpy as np
import pytest

from ir.agreement import cohen_kappa
from ir.calibration import fill, lara_assess
from ir.hybrid import BiasAwareCalibrator, audit_item, bias_aware_assess, context_of, features, qrels_of
from ir.llm_simulation import make_campaign, make_llm_grades, top_k_members
from ir.statistics import kendall_tau, prime_scorer

FAVOURED = ("run01", "run02", "run03", "run04")
MAP = prime_scorer(measures=("map_prime",))


def maps(qrels, runs):
    return {run: values["map_prime"] for run, values in MAP(qrels, runs).items()}


def test_the_simulated_llm_has_kappa_near_a_third_and_over_grades_the_favoured_runs():
    campaign = make_campaign(1)
    truth = np.array([campaign.qrels[t][i] for t, i in campaign.items])
    biased = make_llm_grades(campaign.qrels, campaign.items, seed=2, runs=campaign.runs, favoured=FAVOURED)
    fair = make_llm_grades(campaign.qrels, campaign.items, seed=2)
    kappa = cohen_kappa(list(zip(truth.tolist(), fill(biased).tolist(), strict=True))).value
    assert 0.2 < kappa < 0.4
    assert np.allclose(biased.sum(axis=1), 1.0)
    members = top_k_members(campaign.runs, 20)
    favoured_bad = np.array([truth[n] < 2 and bool(set(FAVOURED) & set(members.get(key, ())))
                             for n, key in enumerate(campaign.items)])
    assert (fill(biased)[favoured_bad] >= 2).mean() > 0.6 > (fill(fair)[favoured_bad] >= 2).mean()
    assert (fill(biased)[~favoured_bad] == fill(fair)[~favoured_bad]).all()  # the others' draws do not move
    same = make_llm_grades(campaign.qrels, campaign.items, seed=2, runs=campaign.runs, favoured=FAVOURED)
    assert (same == biased).all()


def test_context_gives_each_items_rank_in_each_run():
    runs = {"a": {"T1": ["x", "y", "z"]}, "b": {"T1": ["z"], "T2": ["w"]}}
    context = context_of([("T1", "x"), ("T1", "z"), ("T2", "w")], runs)
    assert context.ranks.tolist() == [[1, 0], [3, 1], [0, 1]]
    assert context.top(2).tolist() == [[True, False], [False, True], [False, True]]


def test_with_no_judgment_the_calibrator_gives_the_models_probabilities_back():
    probabilities = np.array([[0.7, 0.1, 0.1, 0.1], [0.2, 0.2, 0.5, 0.1]])
    context = context_of([("T1", "x"), ("T1", "y")], {"a": {"T1": ["y", "x"]}})
    x = features(probabilities, context)
    np.testing.assert_allclose(BiasAwareCalibrator(4).predict(x), probabilities)


def test_an_audit_goes_to_the_run_people_disagree_with_most():
    # Two runs of two items each; the model calls every item relevant; people found run a's first item not relevant.
    context = context_of([("T1", "a1"), ("T1", "a2"), ("T1", "b1"), ("T1", "b2")],
                         {"a": {"T1": ["a1", "a2"]}, "b": {"T1": ["b1", "b2"]}})
    model = np.array([3, 3, 3, 3])
    rng = np.random.default_rng(0)
    assert audit_item({0: 0, 2: 3}, model, context, rng) == 1  # a: 1 open x 2/3 wrong; b: 1 open x 1/3
    assert audit_item({0: 3, 2: 0}, model, context, rng) == 3
    assert audit_item({0: 3, 1: 3, 2: 0, 3: 0}, model, context, rng) is None


@pytest.mark.parametrize("seed", [1, 2])
def test_the_bias_aware_rule_ranks_runs_closer_to_full_qrels_than_laras(seed):
    campaign = make_campaign(seed)
    truth = np.array([campaign.qrels[t][i] for t, i in campaign.items])
    probabilities = make_llm_grades(campaign.qrels, campaign.items, seed=seed + 100, runs=campaign.runs,
                                    favoured=FAVOURED)
    budget = int(0.15 * len(campaign.items))
    full = maps(campaign.qrels, campaign.runs)

    def tau(grades):
        return kendall_tau(full, maps(qrels_of(campaign.items, grades), campaign.runs))

    llm_only = tau(fill(probabilities))
    lara = max(tau(lara_assess(probabilities, lambda i: int(truth[i]), budget, learning_rate=rate).grades)
               for rate in (0.01, 1.0))
    ours = bias_aware_assess(probabilities, context_of(campaign.items, campaign.runs), lambda i: int(truth[i]),
                             budget, refit_every=10, seed=seed)
    assert len(ours.order) == len(set(ours.order)) == budget
    assert tau(ours.grades) > max(lara, llm_only) + 0.05

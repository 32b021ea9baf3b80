"""The live `uncertain` order chooses what the budget replay chooses (docs/pooling.md, "Judging order";
docs/llm_calibration.md, "Replaying a budget"): a campaign of two real ARQMath-1 runs, a model's grades with their
probabilities, the calibration job run between judgments as the agreement page queues it, judged through the API
topic by topic in turn; every item the API hands out is the one `simulate_judging --llm --policy uncertain` replays
at that step, on the same pool, grades and seed."""
import numpy as np
import pytest

from agreement.calibration import calibration_refit
from ir.budget_simulation import live_uncertain, topic_quotas
from ir.hybrid import context_of
from ir.llm_simulation import CONFUSION, confusion_llm_grades
from ir.prime import natural_key
from llm.models import Calibration
from pooling.models import PoolItem
from tests.factories import LlmGradeFactory, UserFactory
from tests.judging.fixtures import assign
from tests.judging.test_live_order_simulated import QRELS, RUNS, campaign_of, read_qrels

pytestmark = pytest.mark.django_db

TOPICS = ("A.1", "A.2", "A.3", "A.4", "A.5")  # every topic the two runs answer
MODEL = "judge-sim"
REFIT_EVERY = 4
SHARE = 0.25


def pool_of(campaign):
    """The pool's items in the calibration job's order and each run's ranked pool items per topic (from the
    provenance: every run's top 20 is pooled, so its ranks there are 1..20)."""
    items, runs = [], {}
    for topic, item, provenance in PoolItem.objects.filter(campaign=campaign).values_list(
            "topic__topic_id", "item_id", "provenance"):
        items.append((topic, item))
        for run, rank in provenance:
            runs.setdefault(run, {}).setdefault(topic, {})[rank] = item
    items.sort(key=lambda key: (natural_key(key[0]), natural_key(key[1])))
    ranked = {}
    for run, per_topic in runs.items():
        ranked[run] = {}
        for topic, by_rank in per_topic.items():
            assert sorted(by_rank) == list(range(1, len(by_rank) + 1)), (run, topic)
            ranked[run][topic] = [by_rank[rank] for rank in sorted(by_rank)]
    return items, ranked


def test_the_live_uncertain_order_hands_out_what_the_replay_chooses(client, arqmath_data):
    qrels_path = arqmath_data / "qrels" / QRELS
    known = read_qrels(qrels_path)
    campaign = campaign_of([arqmath_data / "runs" / name for name in RUNS], TOPICS, "uncertain", depth=20,
                           warm_up=2)
    items, runs = pool_of(campaign)
    truth = np.array([known.get(topic, {}).get(item, 0) for topic, item in items])  # unjudged: not relevant
    qrels = {topic: {} for topic in TOPICS}
    for (topic, item), grade in zip(items, truth.tolist(), strict=True):
        qrels[topic][item] = grade
    # A model biased towards the first run's top 20, as make_llm_grades makes one.
    favour = np.array([[0.2, 0.2, 0.35, 0.25], [0.15, 0.2, 0.4, 0.25], CONFUSION[2], CONFUSION[3]])
    _said, probabilities = confusion_llm_grades(qrels, items, seed=3, confusion=CONFUSION, runs=runs,
                                                favoured=[sorted(runs)[0]], favour_confusion=favour)
    topics = {topic.topic_id: topic for topic in campaign.topics.all()}
    for (topic, item), row in zip(items, probabilities.tolist(), strict=True):
        LlmGradeFactory(topic=topics[topic], item_id=item, model=MODEL, grade=int(np.argmax(row)),
                        probabilities={str(g): p for g, p in enumerate(row)}, probability_source="logprobs")
    budget = round(SHARE * len(items))
    replayed = live_uncertain(probabilities, context_of(items, {name: runs[name] for name in sorted(runs)}), items,
                              runs, truth, budget, seed=campaign.seed, warm_up=campaign.warm_up,
                              relevance_level=campaign.relevance_level, refit_every=REFIT_EVERY)
    assert len(replayed.order) == budget

    ada = UserFactory()
    client.force_login(ada)
    assignments = {topic: assign(campaign, ada, topic) for topic in TOPICS}
    calibration_refit(campaign=campaign, model=MODEL)  # the first fit, on no judgment: the model's own
    quotas = topic_quotas(items, budget)
    left = {topic: quota for topic, (_indices, quota) in quotas.items()}
    live = []
    while any(left.values()):
        for topic in quotas:
            if not left[topic]:
                continue
            response = client.get(f"/api/assignments/{assignments[topic].pk}/next/")
            assert response.status_code == 200, response.content
            item = response.json()["item_id"]
            live.append(items.index((topic, item)))
            submitted = client.post("/api/judgments/", {"assignment": assignments[topic].pk, "item_id": item,
                                                        "grades": [{"grade": str(qrels[topic][item])}]},
                                    content_type="application/json")
            assert submitted.status_code == 201, submitted.content
            left[topic] -= 1
            if len(live) % REFIT_EVERY == 0:
                calibration_refit(campaign=campaign, model=MODEL)  # the job the judgments queue
    assert live == replayed.order
    # Past the warm-ups the calibration chose: the order is not the random one.
    assert Calibration.objects.get(campaign=campaign, model=MODEL).humans == budget - budget % REFIT_EVERY

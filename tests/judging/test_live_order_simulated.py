"""The live judging order is the simulator's (docs/pooling.md "Live order and budgets"): a campaign judged whole
through the API (next item, then its known grade) judges each topic in the very order `simulate_judging` replays on
the same run files, with the same policy, seed and guards, for every policy."""
import pytest

from ir.grades import is_relevant
from ir.pools.adaptive import POLICIES
from pooling import services
from pooling.models import Campaign
from simulation.services import simulate_campaign, simulate_files
from tests.factories import CampaignFactory, TopicFactory, UserFactory
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db

RUNS = ("psu-task1-auto-both-A.tsv", "ensemble-task1.tsv")
QRELS = "qrels.arqmath-2020-task1.txt"
# The ensemble run scores many answers alike: read by rank (as pools are) its top 20 of A.1 and A.4 are not its top
# 20 in trec_eval's order (score, then id); A.5's are the same.
TOPICS = ("A.1", "A.4", "A.5")
DEPTH = 20


def read_qrels(path):
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        topic, _, item, grade = line.split()
        qrels.setdefault(topic, {})[item] = int(grade)
    return qrels


def judged_through_the_api(client, assignment, grades):
    """Asks the API for the next item and submits its known grade (0 when the qrels do not judge it) until the API
    says nothing is left: the items in the order judged."""
    order = []
    while (response := client.get(f"/api/assignments/{assignment.pk}/next/")).status_code == 200:
        item = response.json()["item_id"]
        order.append(item)
        submitted = client.post("/api/judgments/", {"assignment": assignment.pk, "item_id": item,
                                                    "grades": [{"grade": str(grades.get(item, 0))}]},
                                content_type="application/json")
        assert submitted.status_code == 201, submitted.content
    assert response.status_code == 204
    return order


def campaign_of(run_paths, topics, policy, *, depth, **settings):
    campaign = CampaignFactory(collection=None, primary_depth=depth, alternate_depth=depth, judging_order=policy,
                               **settings)
    for position, topic in enumerate(topics):
        TopicFactory(campaign=campaign, topic_id=topic, position=position)
    for path in run_paths:
        services.run_ingest(campaign=campaign, path=path)
    services.pool_build(campaign=campaign, judged_items={})
    return campaign


@pytest.mark.parametrize("policy", POLICIES)
def test_a_campaign_judged_through_the_api_follows_the_simulators_order(client, arqmath_data, policy):
    qrels_path = arqmath_data / "qrels" / QRELS
    run_paths = [arqmath_data / "runs" / name for name in RUNS]
    qrels = read_qrels(qrels_path)
    # Every setting left at its default, in the campaign as in the simulator (the warm-up, the seed, no minimum
    # depth): the defaults are one.
    campaign = campaign_of(run_paths, ("A.1", "A.2", "A.3", "A.4", "A.5"), policy, depth=DEPTH)
    ada = UserFactory()
    client.force_login(ada)
    live = {topic: judged_through_the_api(client, assign(campaign, ada, topic), qrels[topic]) for topic in TOPICS}

    [simulated] = simulate_files(qrels_path=qrels_path, run_paths=run_paths, depth=DEPTH, policies=[policy])
    [planned] = simulate_campaign(campaign=campaign, qrels=qrels, depth=DEPTH, policies=[policy], seed=campaign.seed)
    for topic in TOPICS:
        assert live[topic] == simulated.orders[topic] == planned.orders[topic], topic
    # What an assessor notices: the relevant items found in the first 30% judged are those the simulator counts.
    found = {topic: sum(is_relevant(qrels[topic].get(item, 0), campaign.relevance_level)
                        for item in order[:len(order) * 3 // 10]) for topic, order in live.items()}
    assert found == {topic: sum(is_relevant(qrels[topic].get(item, 0), campaign.relevance_level)
                                for item in simulated.orders[topic][:len(order) * 3 // 10])
                     for topic, order in live.items()}


# Three runs of one topic named so that their file names (1.tsv, 10.tsv, 2.tsv) and their names in a campaign
# (1, 2, 10) sort differently: the seeded tie-break between runs reads the names, so the simulator names a run as
# ingest_run does. Each run holds its own answers, r1 the relevant ones.
HAND_MADE = {"1": ["11", "12", "13"], "2": ["21", "22", "23"], "10": ["101", "102", "103"]}
HAND_GRADES = {"11": 3, "12": 2, "21": 0, "101": 1}


@pytest.mark.parametrize("policy", ["move-to-front", "bandit"])  # the policies that choose between runs
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_simulator_breaks_ties_between_runs_as_the_campaign_does(client, tmp_path, policy, seed):
    paths = []
    for name, items in HAND_MADE.items():
        path = tmp_path / f"{name}.tsv"
        path.write_text("".join(f"A.1\t{item}\t{rank}\t{10 - rank}\trun{name}\n"
                                for rank, item in enumerate(items, start=1)))
        paths.append(path)
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"A.1\t0\t{item}\t{grade}\n" for item, grade in HAND_GRADES.items()))
    campaign = campaign_of(paths, ("A.1",), policy, depth=3, warm_up=0, seed=seed)
    assert sorted(Campaign.objects.get(pk=campaign.pk).runs.values_list("name", flat=True)) == ["1", "10", "2"]
    ada = UserFactory()
    client.force_login(ada)
    live = judged_through_the_api(client, assign(campaign, ada, "A.1"), HAND_GRADES)
    [simulated] = simulate_files(qrels_path=qrels_path, run_paths=paths, depth=3, policies=[policy], seed=seed,
                                 warm_up=0)
    assert live == simulated.orders["A.1"]


@pytest.mark.parametrize("policy", POLICIES)
def test_the_simulator_reads_each_run_as_the_pool_build_does(client, tmp_path, policy):
    # An ARQMath run whose scores all tie (trec_eval's order would put 14 first: the greatest id) is pooled by its
    # ranks, and a TREC run whose ranks disagree with its scores in trec_eval's order, as trec_eval reads it.
    arqmath = tmp_path / "tied.tsv"
    arqmath.write_text("".join(f"A.1\t{item}\t{rank}\t1.0\ttied\n" for rank, item in enumerate(["11", "12", "13",
                                                                                             "14"], start=1)))
    trec = tmp_path / "trec.tsv"
    trec.write_text("".join(f"A.1\tQ0\t{item}\t{rank}\t{score}\ttrec\n"
                            for rank, (item, score) in enumerate([("21", 1.0), ("22", 4.0), ("23", 3.0),
                                                                  ("24", 2.0)], start=1)))
    grades = {"11": 3, "12": 2, "14": 2, "21": 0, "22": 3, "23": 0}
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"A.1\t0\t{item}\t{grade}\n" for item, grade in grades.items()))
    campaign = campaign_of([arqmath, trec], ("A.1",), policy, depth=2, warm_up=0)
    ada = UserFactory()
    client.force_login(ada)
    live = judged_through_the_api(client, assign(campaign, ada, "A.1"), grades)
    assert sorted(live) == ["11", "12", "22", "23"]
    [simulated] = simulate_files(qrels_path=qrels_path, run_paths=[arqmath, trec], depth=2, policies=[policy],
                                 warm_up=0)
    assert live == simulated.orders["A.1"]

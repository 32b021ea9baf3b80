"""The leaderboard's LLM part (issue 26, points 5 and 6): the runs scored with the judge's qrels beside the people's,
Kendall's tau and tau_ap between the two rankings with a bootstrap interval, the runs declaring the judge's model
flagged, the ranking with and without the runs that declare an LLM; and the rank correlation maths."""
import math
import re

import numpy as np
import pytest
from django.urls import reverse
from scipy import stats

from evaluation import llm_board, services, snapshots
from ir import rankings
from ir.statistics import ranking
from tests.evaluation.test_campaign import judged_answers, judged_formulas  # noqa: F401 (fixtures)
from tests.evaluation.test_campaign_rows import RUNS as CASES
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    JudgmentFactory,
    LlmEndpointFactory,
    LlmGradeFactory,
    LlmPromptFactory,
    RunEntryFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
)
from tests.pooling.run_files import ingest

# --- the maths ----------------------------------------------------------------------------------------------------


def tau_ap(estimated, actual):
    """The oracle: Yilmaz, Aslam & Robertson's sum, item by item, over two rankings of names (best first)."""
    if len(actual) < 2:
        return math.nan
    position = {item: index for index, item in enumerate(actual)}
    total = 0.0
    for i in range(1, len(estimated)):
        # C(i): how many of the items ranked above position i are above its item in the actual ranking too.
        total += sum(1 for above in estimated[:i] if position[above] < position[estimated[i]]) / i
    return 2.0 * total / (len(estimated) - 1) - 1.0


def test_tau_b_is_scipys_kendalltau_with_ties_and_nan_when_a_ranking_is_all_ties():
    rng = np.random.default_rng(7)
    first, second = rng.integers(0, 4, size=(300, 6)).astype(float), rng.integers(0, 4, size=(300, 6)).astype(float)
    found = rankings.tau_b(first, second)
    expected = [stats.kendalltau(a, b).statistic for a, b in zip(first, second, strict=True)]
    assert np.allclose(found, expected, equal_nan=True)
    assert math.isnan(rankings.tau_b(np.ones((1, 4)), np.arange(4.0)[None])[0])
    # hand-worked: one discordant pair of six; a tie in the first (tau-b: 4 / sqrt(5 * 6))
    assert rankings.tau_b(np.array([[4.0, 3, 2, 1]]), np.array([[3.0, 4, 2, 1]]))[0] == pytest.approx(2 / 3)
    assert rankings.tau_b(np.array([[4.0, 4, 2, 1]]), np.array([[4.0, 3, 2, 1]]))[0] == pytest.approx(
        5 / math.sqrt(5 * 6))


def test_tau_ap_weighs_a_swap_at_the_top_more_than_one_at_the_bottom():
    actual = np.array([[4.0, 3.0, 2.0, 1.0]])  # runs a, b, c, d, best first
    top_swap, bottom_swap = np.array([[3.0, 4.0, 2.0, 1.0]]), np.array([[4.0, 3.0, 1.0, 2.0]])
    # Yilmaz et al.: 2 / (N - 1) * sum C(i) / (i - 1) - 1. Top swap: C = 0, 2, 3 -> 2/3 * (0 + 1 + 1) - 1 = 1/3.
    assert rankings.tau_ap(top_swap, actual)[0] == pytest.approx(1 / 3)
    # Bottom swap: C = 1, 2, 2 -> 2/3 * (1 + 1 + 2/3) - 1 = 7/9; Kendall's tau is 2/3 for both.
    assert rankings.tau_ap(bottom_swap, actual)[0] == pytest.approx(7 / 9)
    assert rankings.tau_ap(actual, actual)[0] == 1.0 and rankings.tau_ap(-actual, actual)[0] == pytest.approx(-1.0)
    assert math.isnan(rankings.tau_ap(np.array([[1.0]]), np.array([[1.0]]))[0])


def test_tau_ap_is_the_item_by_item_definition_on_random_rankings():
    rng = np.random.default_rng(3)
    estimated, actual = rng.random((200, 7)), rng.random((200, 7))
    names = [f"r{i}" for i in range(7)]
    expected = [tau_ap(ranking(dict(zip(names, e, strict=True))), ranking(dict(zip(names, a, strict=True))))
                for e, a in zip(estimated, actual, strict=True)]
    assert np.allclose(rankings.tau_ap(estimated, actual), expected)


def test_the_bootstrap_resamples_topics_for_every_run_and_both_qrels_alike():
    rng = np.random.default_rng(11)
    runs, topics = [f"r{i}" for i in range(5)], [f"A.{t}" for t in range(1, 13)]
    people = {run: {topic: float(rng.random()) + i / 5 for topic in topics} for i, run in enumerate(runs)}
    llm = {run: {topic: value + float(rng.normal(0, 0.3)) for topic, value in people[run].items()} for run in runs}
    found = rankings.rank_correlation(people, llm, runs, topics, measure="ndcg_prime", resamples=200, seed=5)
    # The oracle: a loop over the same draws with scipy and the item-by-item tau_ap.
    draws = np.random.default_rng(5).integers(0, len(topics), size=(200, len(topics)))
    taus, aps = [], []
    for draw in draws:
        a = {run: float(np.mean([people[run][topics[t]] for t in draw])) for run in runs}
        b = {run: float(np.mean([llm[run][topics[t]] for t in draw])) for run in runs}
        taus.append(stats.kendalltau([a[r] for r in runs], [b[r] for r in runs]).statistic)
        aps.append(tau_ap(ranking(b), ranking(a)))
    assert (found.tau_low, found.tau_high) == pytest.approx(tuple(np.percentile(taus, [2.5, 97.5])))
    assert (found.tau_ap_low, found.tau_ap_high) == pytest.approx(tuple(np.percentile(aps, [2.5, 97.5])))
    means = {run: np.mean(list(values.values())) for run, values in people.items()}
    other = {run: np.mean(list(values.values())) for run, values in llm.items()}
    assert found.kendall_tau == pytest.approx(stats.kendalltau([means[r] for r in runs],
                                                               [other[r] for r in runs]).statistic)
    assert found.tau_low <= found.kendall_tau <= found.tau_high and found.tau_low < found.tau_high
    assert (found.runs, found.topics) == (5, 12)
    again = rankings.rank_correlation(people, llm, runs, topics, measure="ndcg_prime", resamples=200, seed=5)
    assert again == found  # seeded


def test_a_ranking_of_fewer_than_two_runs_has_no_correlation():
    found = rankings.rank_correlation({"r": {"A.1": 1.0}}, {"r": {"A.1": 0.0}}, ["r"], ["A.1"], measure="map_prime")
    assert math.isnan(found.kendall_tau) and math.isnan(found.tau_ap) and math.isnan(found.tau_low)


# --- the leaderboard ----------------------------------------------------------------------------------------------

PEOPLE = {"r1": "3", "r2": "2", "r3": "1", "r4": "0"}
LLM = {"r1": 2, "r2": 3, "r3": 1, "r4": 0}  # the LLM swaps the top two runs


@pytest.fixture
def llm_campaign(db):
    """Two topics; each run retrieves one post of its own per topic, which the people grade r1 3 > r2 2 > r3 1 > r4 0
    and the judge r2 3 > r1 2 > r3 1 > r4 0. r1 declares the judge's model, r3 another LLM."""
    campaign = CampaignFactory(name="llm-board")
    LlmEndpointFactory(campaign=campaign, model="judge-7b")
    ada = UserFactory(username="ada")
    runs = {name: RunFactory(campaign=campaign, name=name) for name in PEOPLE}
    runs["r1"].llm_model, runs["r3"].llm_model = "judge-7b", "llama-3-70b"
    for run in runs.values():
        run.save()
    for position, topic_id in enumerate(("A.1", "A.2")):
        topic = TopicFactory(campaign=campaign, topic_id=topic_id, position=position)
        assignment = AssignmentFactory(campaign=campaign, topic=topic, assessor=ada)
        for name, run in runs.items():
            item = f"{name}-{topic_id}"
            RunEntryFactory(run=run, topic=topic, item_id=item, rank=1, score=1.0)
            JudgmentFactory(assignment=assignment, item_id=item, grade=PEOPLE[name])
            LlmGradeFactory(topic=topic, item_id=item, grade=LLM[name])
    return campaign


def _page(client, organizer, campaign, query: str = "") -> str:
    client.force_login(organizer)
    response = client.get(reverse("evaluation:leaderboard", args=[campaign.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def _rows(page: str, table: str) -> str:
    start = page.index(f'id="{table}"')
    return page[start:page.index("</table>", start)]


def test_the_llm_qrels_are_the_judges_latest_grades_without_failures_canaries_or_other_models(db):
    topic = TopicFactory(topic_id="B.1")
    old = LlmGradeFactory(topic=topic, item_id="v1", formula_id="1", grade=0)
    newer_prompt = LlmPromptFactory(version=2)
    LlmGradeFactory(topic=topic, item_id="v1", formula_id="1", grade=3, prompt=newer_prompt)  # the latest: 3
    LlmGradeFactory(topic=topic, item_id="v1", formula_id="2", grade=1)  # another instance of the visual id
    LlmGradeFactory(topic=topic, item_id="v2", grade=None, failure="no ##final score")
    LlmGradeFactory(topic=topic, item_id="v3", grade=2, model="other-model")
    from llm.models import Canary
    canary = Canary.objects.create(campaign=topic.campaign, topic=topic, source_item_id="v1", kind="stuffed", text="x")
    LlmGradeFactory(topic=topic, item_id="v9", grade=3, canary=canary)
    assert llm_board.llm_qrels(campaign=old.campaign, model="judge-7b") == {"B.1": {"v1": 3}}


def test_the_leaderboard_ranks_the_runs_by_the_llms_qrels_beside_the_peoples_with_tau(llm_campaign, client,
                                                                                        organizer):
    page = _page(client, organizer, llm_campaign)
    assert "The LLM judge's ranking: judge-7b" in page and "over the 2 topics both qrels hold" in page
    table = _rows(page, "llm-leaderboard")
    # the people's rank, then the LLM's: r1 and r2 trade places
    for run, people_rank, llm_rank in (("r1", 1, 2), ("r2", 2, 1), ("r3", 3, 3), ("r4", 4, 4)):
        row = table[table.index(f'data-run="{run}"'):]
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row[:row.index("</tr>")])
        assert cells[2:4] == [str(people_rank), str(llm_rank)]
        people, llm = float(cells[4]), float(cells[5])  # nDCG' under each
        assert (people > llm) == (run == "r1") and (people < llm) == (run == "r2")
    correlation = _rows(page, "llm-correlation")
    ndcg = correlation[correlation.index('data-measure="ndcg_prime"'):]
    ndcg = ndcg[:ndcg.index("</tr>")]
    # hand-worked: one discordant pair of six, tau 2/3; the swap is at the top, tau_ap 1/3. Both topics alike, so
    # every resample gives the same: the interval is the point.
    assert '<td class="num tau">0.6667</td>' in ndcg and '<td class="num tau-ap">0.3333</td>' in ndcg
    assert "[0.6667, 0.6667]" in ndcg and "[0.3333, 0.3333]" in ndcg


def test_a_run_declaring_the_judges_model_is_flagged(llm_campaign, client, organizer):
    page = _page(client, organizer, llm_campaign)
    assert "⚑ r1 declares the judge's own model, judge-7b" in page
    table = _rows(page, "llm-leaderboard")
    assert table.count("⚑ judge's model") == 1 and 'data-run="r1" class="flagged"' in table
    assert "llama-3-70b" in table  # r3 declares another LLM: shown, not flagged


def test_the_switch_ranks_without_the_runs_that_declare_an_llm(llm_campaign, client, organizer):
    page = _page(client, organizer, llm_campaign, "?llm_runs=without")
    table = _rows(page, "llm-leaderboard")
    assert 'data-run="r2"' in table and 'data-run="r4"' in table
    assert 'data-run="r1"' not in table and 'data-run="r3"' not in table
    correlation = _rows(page, "llm-correlation")
    assert "without the runs that declare an LLM" in correlation
    ndcg = correlation[correlation.index('data-measure="ndcg_prime"'):]
    # r2 above r4 under both qrels: full agreement
    assert '<td class="num">2</td>' in ndcg and '<td class="num tau">1.0000</td>' in ndcg
    assert '<td class="num tau-ap">1.0000</td>' in ndcg


def test_the_api_gives_the_llm_scores_and_both_correlations(llm_campaign, client, organizer):
    client.force_login(organizer)
    found = client.get(f"/api/campaigns/{llm_campaign.pk}/evaluation/").json()["llm"]
    assert found["model"] == "judge-7b" and found["problem"] == "" and found["judgments"] == 8
    runs = {row["run"]: row for row in found["runs"]}
    assert runs["r2"]["ndcg_prime"] > runs["r1"]["ndcg_prime"] > runs["r3"]["ndcg_prime"] > runs["r4"]["ndcg_prime"]
    assert runs["r1"]["flagged"] is True and runs["r3"]["flagged"] is False
    assert runs["r3"]["declared_llm"] == "llama-3-70b"
    every = {row["measure"]: row for row in found["correlations"]}
    assert every["ndcg_prime"]["kendall_tau"] == pytest.approx(2 / 3)
    assert every["ndcg_prime"]["tau_ap"] == pytest.approx(1 / 3) and every["ndcg_prime"]["runs"] == 4
    assert {row["measure"]: row["runs"] for row in found["without"]} == {
        "ndcg_prime": 2, "map_prime": 2, "p10_prime": 2}


def test_the_llm_part_follows_new_grades_and_run_facts(llm_campaign, client, organizer):
    client.force_login(organizer)
    api = f"/api/campaigns/{llm_campaign.pk}/evaluation/"
    before = client.get(api).json()
    from llm.models import LlmGrade
    # the judge changes its mind on r2's posts: now it agrees with the people
    LlmGrade.objects.filter(item_id__startswith="r2-").update(grade=1)
    LlmGrade.objects.filter(item_id__startswith="r1-").update(grade=3)
    for grade in LlmGrade.objects.filter(item_id__startswith="r2-"):
        grade.save()  # a new latest stamp, as the job's rerun writes it
    after = client.get(api).json()  # no broker in tests: the recompute runs before the page reads
    assert after["version"] != before["version"]
    ndcg = next(row for row in after["llm"]["correlations"] if row["measure"] == "ndcg_prime")
    # r1 first under both; r2 and r3 tie under the LLM: five concordant pairs, one tie, tau-b 5 / sqrt(6 * 5)
    assert ndcg["kendall_tau"] == pytest.approx(5 / math.sqrt(30))
    llm_campaign.runs.filter(name="r3").update(llm_model="")
    facts = client.get(api).json()["llm"]
    assert {row["measure"]: row["runs"] for row in facts["without"]}["ndcg_prime"] == 3


def test_no_endpoint_no_llm_part(llm_campaign, client, organizer):
    llm_campaign.llm_endpoint.delete()
    page = _page(client, organizer, llm_campaign)
    assert 'id="llm-leaderboard"' not in page and 'id="leaderboard"' in page
    client.force_login(organizer)
    assert client.get(f"/api/campaigns/{llm_campaign.pk}/evaluation/").json()["llm"] is None


def test_an_endpoint_without_grades_says_so(llm_campaign, client, organizer):
    llm_campaign.llm_grades.all().delete()
    page = _page(client, organizer, llm_campaign)
    assert "judge-7b has graded no pool item yet" in page and 'id="llm-leaderboard"' not in page
    assert snapshots.leaderboard(campaign=llm_campaign).llm.problem == "judge-7b has graded no pool item yet"


def test_a_formula_campaign_is_ranked_by_the_llms_grades_of_its_visual_ids(judged_formulas, tmp_path):  # noqa: F811
    """People: visual id 100 high (its instances 1 low, 2 high), 400 not relevant. The LLM: 100 low at best, 300 medium,
    400 high. f1 puts 100 first, f2 puts 400 first: the LLM turns the ranking over."""
    ingest(judged_formulas, tmp_path, "f2", [("B.1", "4", "40", "1", "9", "f2"), ("B.1", "3", "30", "2", "8", "f2"),
                                              ("B.1", "1", "20", "3", "7", "f2")])
    LlmEndpointFactory(campaign=judged_formulas, model="judge-7b")
    topic = judged_formulas.topics.get()
    for formula_id, visual_id, grade in (("1", "100", 0), ("2", "100", 1), ("3", "300", 2), ("4", "400", 3)):
        LlmGradeFactory(topic=topic, item_id=visual_id, formula_id=formula_id, grade=grade)
    assert llm_board.llm_qrels(campaign=judged_formulas, model="judge-7b") == {"B.1": {"100": 1, "300": 2, "400": 3}}
    found = snapshots.leaderboard(campaign=judged_formulas)
    people = {run.name: run.means["ndcg_prime"] for run in found.value.runs}
    llm = {run.name: run.means["ndcg_prime"] for run in found.llm.runs}
    assert people["f1"] > people["f2"] and llm["f2"] > llm["f1"] and found.llm.judgments == 3
    ndcg = found.llm.correlations[0]
    assert (ndcg.measure, ndcg.runs, ndcg.topics, ndcg.kendall_tau, ndcg.tau_ap) == ("ndcg_prime", 2, 1, -1.0, -1.0)
    assert math.isnan(ndcg.tau_low)  # one topic: nothing to resample


@pytest.mark.parametrize("all_topics", [False, True])
def test_runs_scored_with_the_llms_qrels_read_only_the_rows_they_need_and_score_as_files(judged_answers, tmp_path,  # noqa: F811
                                                                                          all_topics):
    """The LLM's qrels go through the database's cut of the rows (the graded posts and each topic's top 10), as the
    official ones do: the same scores as whole runs, and as the run files against the LLM's qrels as a file. The runs
    are the official cut's own hard cases (ranks against scores, ties at the 10th place, sparse tops, odd ids)."""
    (tmp_path / "runs").mkdir()
    for name, rows in CASES.items():
        ingest(judged_answers, tmp_path / "runs", name, [(*row, name) for row in rows], allow_missing=True)
    topics = {topic.topic_id: topic for topic in judged_answers.topics.all()}
    graded = {"A.1": {"10": 1, "12": 3, "101": 2, "299": 2, "a\\b": 1, "400": 3}, "A.2": {"20": 0, "402": 3}}
    for topic_id, items in graded.items():
        for item, grade in items.items():
            LlmGradeFactory(topic=topics[topic_id], item_id=item, grade=grade)
    qrels = llm_board.llm_qrels(campaign=judged_answers, model="judge-7b")
    assert qrels == graded
    cut = services.evaluate_campaign(campaign=judged_answers, all_topics=all_topics, qrels=qrels,
                                     qrels_items=llm_board.graded(campaign=judged_answers, model="judge-7b"))
    whole = services.evaluate_campaign(campaign=judged_answers, all_topics=all_topics, qrels=qrels)
    path = tmp_path / "llm-qrels.txt"
    path.write_text("".join(f"{topic}\t0\t{item}\t{grade}\n" for topic, items in graded.items()
                            for item, grade in items.items()))
    files = services.evaluate_files(qrels_path=path, run_paths=sorted((tmp_path / "runs").glob("*.tsv")),
                                    all_topics=all_topics)
    assert _scores(cut) == _scores(whole)
    assert [row for row in _scores(cut) if row[0] != "r1"] == _scores(files)
    assert _scores(cut) != _scores(services.evaluate_campaign(campaign=judged_answers, all_topics=all_topics))


def _scores(result):
    return [(s.name.removesuffix(".tsv"), s.per_topic, s.means, s.topics) for s in result.runs]


def test_the_main_table_marks_the_runs_that_declare_an_llm(llm_campaign, client, organizer):
    table = _rows(_page(client, organizer, llm_campaign), "leaderboard")
    row = {run: table[table.index(f'data-run="{run}"'):].split("</tr>")[0] for run in ("r1", "r2", "r3")}
    assert "⚑ judge's LLM" in row["r1"] and 'title="declares it uses the LLM judge-7b: the judge' in row["r1"]
    assert ">LLM</span>" in row["r3"] and "llama-3-70b" in row["r3"] and "⚑" not in row["r3"]
    assert "LLM" not in row["r2"]


def test_the_leaderboard_csv_ends_with_the_llm_tables_as_the_api_gives_them(llm_campaign, client, organizer):
    import csv
    import io

    client.force_login(organizer)
    found = client.get(f"/api/campaigns/{llm_campaign.pk}/evaluation/").json()["llm"]
    text = client.get(reverse("evaluation:leaderboard_csv", args=[llm_campaign.pk])).content.decode()
    lines = list(csv.reader(io.StringIO(text)))
    runs_at = lines.index(["llm_run", "model", "declared_llm", "flagged", "ndcg_prime", "map_prime", "p10_prime",
                           "unjudged_10", "topics"])
    runs = {line[0]: line for line in lines[runs_at + 1:] if line and line[0].startswith("r")}
    assert set(runs) == {"r1", "r2", "r3", "r4"}
    for row in found["runs"]:
        line = runs[row["run"]]
        assert line[1:4] == ["judge-7b", row["declared_llm"], str(int(row["flagged"]))]
        assert float(line[4]) == pytest.approx(row["ndcg_prime"], abs=5e-5)
    tau_at = lines.index(["llm_correlation", "runs_compared", "runs", "topics", "kendall_tau", "tau_low", "tau_high",
                          "tau_ap", "tau_ap_low", "tau_ap_high"])
    taus = {(line[0], line[1]): line for line in lines[tau_at + 1:] if line}
    every = {row["measure"]: row for row in found["correlations"]}
    assert float(taus[("ndcg_prime", "all")][4]) == pytest.approx(every["ndcg_prime"]["kendall_tau"], abs=5e-5)
    assert taus[("ndcg_prime", "without_declared_llm")][2] == "2"

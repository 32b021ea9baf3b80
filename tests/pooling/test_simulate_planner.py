"""The planner's judging-order curves (issue 27): an organizer uploads an earlier edition's qrels, a worker replays
the campaign's runs in each order, and the page draws the curves from the stored result."""
from django.core.files.uploadedfile import SimpleUploadedFile

from ir.pools.simulate import simulate
from simulation import services as simulation
from tests.factories import CampaignFactory, TopicFactory
from tests.pooling.run_files import ingest, task1_lines

# Two runs of topic A.1: r1 ranks the three relevant answers first, r2 ranks them last.
R1 = ["1", "2", "3", "4", "5", "6"]
R2 = ["6", "5", "4", "3", "2", "1"]
QRELS = "A.1\t0\t1\t3\nA.1\t0\t2\t2\nA.1\t0\t3\t2\nA.1\t0\t4\t0\nA.1\t0\t5\t0\nA.1\t0\t6\t1\nA.9\t0\t7\t3\n"


def campaign_with_runs(tmp_path):
    campaign = CampaignFactory(name="replay", primary_depth=6, alternate_depth=6, seed=3)
    TopicFactory(campaign=campaign, topic_id="A.1", position=0)
    ingest(campaign, tmp_path, "r1", task1_lines("A.1", R1, "r1"))
    ingest(campaign, tmp_path, "r2", task1_lines("A.1", R2, "r2"))
    return campaign


def post(client, campaign, qrels=QRELS, **fields):
    data = {"depth": 6, "policies": ["random", "move-to-front", "bandit"], "warm_up": 0, "min_depth": 0,
            "budget": 3, "qrels": SimpleUploadedFile("qrels-2020.txt", qrels.encode())} | fields
    return client.post(f"/campaigns/{campaign.pk}/pools/simulation/", data)


def test_the_planner_draws_each_orders_curve_from_an_uploaded_qrels(client, organizer, tmp_path,
                                                                   django_capture_on_commit_callbacks):
    campaign = campaign_with_runs(tmp_path)
    client.force_login(organizer)
    assert "pools/simulation/" in client.get(f"/campaigns/{campaign.pk}/pools/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, campaign)
    assert response.status_code == 302
    result = simulation.simulation_result(campaign=campaign)
    assert result["state"] == "done" and [r["policy"] for r in result["results"]] == ["random", "move-to-front",
                                                                                       "bandit"]
    # The same replay as the simulator's on the same lists (A.9 is not a campaign topic: left out).
    expected = simulate({"r1": {"A.1": R1}, "r2": {"A.1": R2}}, {"A.1": {"1": 3, "2": 2, "3": 2, "4": 0, "5": 0,
                                                                        "6": 1}},
                        depth=6, policies=["random", "move-to-front", "bandit"], seed=3, budget=3, warm_up=0)
    for got, want in zip(result["results"], expected, strict=True):
        assert [tuple(point) for point in got["curve"]] == want.curve
        assert got["judged_for_90"] == want.judged_for_90 and got["tau_at_budget"] == want.tau_at_budget
    page = client.get(f"/campaigns/{campaign.pk}/pools/simulation/").content.decode()
    assert page.count('class="curve"') == 3 and 'data-state="done"' in page and "qrels-2020.txt" in page
    assert f"{round(100 * expected[2].judged_for_90, 1)}%" in page


def test_a_qrels_of_other_topics_or_a_bad_line_is_refused_with_its_reason(client, organizer, tmp_path,
                                                                          django_capture_on_commit_callbacks):
    campaign = campaign_with_runs(tmp_path)
    client.force_login(organizer)
    response = post(client, campaign, qrels="A.1\t0\t1\tthree\n")
    assert response.status_code == 400 and "line 1" in response.content.decode()
    assert simulation.simulation_result(campaign=campaign) is None
    with django_capture_on_commit_callbacks(execute=True):
        post(client, campaign, qrels="B.7\t0\t1\t3\n")
    result = simulation.simulation_result(campaign=campaign)
    assert result["state"] == "failed" and "none of the campaign's topics" in result["problem"]
    page = client.get(f"/campaigns/{campaign.pk}/pools/simulation/").content.decode()
    assert "failed:" in page


def test_assessors_cannot_open_the_simulator(client, ada, tmp_path):
    campaign = campaign_with_runs(tmp_path)
    client.force_login(ada)
    assert client.get(f"/campaigns/{campaign.pk}/pools/simulation/").status_code in (302, 403)



def test_the_form_uses_the_settings_pages_words_and_keeps_the_values_of_the_last_run(
        client, organizer, tmp_path, django_capture_on_commit_callbacks):
    from pooling.forms import CampaignSettingsForm

    campaign = campaign_with_runs(tmp_path)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{campaign.pk}/pools/simulation/").content.decode()
    settings_form = CampaignSettingsForm(instance=campaign)
    for name in ("warm_up", "min_depth"):
        assert f'<label for="id_{name}">{settings_form[name].label}</label>' in page
    assert "Warm up<" not in page and "Min depth<" not in page
    assert '<fieldset class="choices"><legend>Judging orders</legend>' in page  # named above its boxes
    with django_capture_on_commit_callbacks(execute=True):
        post(client, campaign, depth=4, warm_up=2, min_depth=1, budget=2, policies=["bandit"])
    page = client.get(f"/campaigns/{campaign.pk}/pools/simulation/").content.decode()
    for name, value in (("depth", 4), ("warm_up", 2), ("min_depth", 1), ("budget", 2)):
        assert f'name="{name}" value="{value}"' in page, name
    assert 'value="bandit" id="id_policies_2" checked' in page
    assert 'value="random" id="id_policies_0" checked' not in page
    assert "depth 4, bandit, warm-up items 2, minimum depth per run 1, budget 2 items per topic" in page


def test_a_failed_simulation_keeps_the_last_good_result_beside_its_failure(client, organizer, tmp_path,
                                                                           django_capture_on_commit_callbacks):
    campaign = campaign_with_runs(tmp_path)
    client.force_login(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        post(client, campaign)
    with django_capture_on_commit_callbacks(execute=True):
        post(client, campaign, qrels="B.7\t0\t1\t3\n")
    assert simulation.simulation_result(campaign=campaign)["state"] == "failed"
    page = client.get(f"/campaigns/{campaign.pk}/pools/simulation/").content.decode()
    assert "failed:</strong> " in page and "none of the campaign&#x27;s topics" in page
    assert "The last result, shown until a new one is computed: qrels-2020.txt" in page
    assert page.count('class="curve"') == 3 and 'id="simulation-table"' in page


# A model's grades of A.1's items: sure of the relevant ones, unsure of 4 and 6 (probabilities of 0, 1, 2, 3).
MODEL = ("A.1\t0\t1\t3\t0\t0\t0.2\t0.8\nA.1\t0\t2\t2\t0\t0.1\t0.7\t0.2\nA.1\t0\t3\t2\t0\t0.2\t0.6\t0.2\n"
         "A.1\t0\t4\t2\t0.4\t0.1\t0.5\t0\nA.1\t0\t5\t0\t0.9\t0.1\t0\t0\nA.1\t0\t6\t0\t0.5\t0.4\t0.1\t0\n")


def test_with_a_models_grades_the_planner_replays_budgets_as_simulate_judging_does(
        client, organizer, tmp_path, django_capture_on_commit_callbacks):
    from dataclasses import asdict
    from io import BytesIO

    from ir.budget_simulation import read_model, replay
    from ir.problems import Problems

    campaign = campaign_with_runs(tmp_path)
    client.force_login(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, campaign, llm_grades=SimpleUploadedFile("model.txt", MODEL.encode()),
                        budget_shares="0.5, 1")
    assert response.status_code == 302
    result = simulation.simulation_result(campaign=campaign)
    assert result["state"] == "done", result
    model = read_model(BytesIO(MODEL.encode()), Problems())
    expected = replay({"A.1": {"1": 3, "2": 2, "3": 2, "4": 0, "5": 0, "6": 1}}, {"r1": {"A.1": R1}, "r2": {"A.1": R2}},
                      model, policies=["uncertain", "random", "move-to-front", "bandit"], shares=[0.5, 1.0], seed=3,
                      relevance_level=campaign.relevance_level, replicates=simulation.BUDGET_REPLICATES)
    assert result["budget"] == [asdict(row) for row in expected]
    assert [(r["policy"], r["share"]) for r in result["budget"]][:3] == [("llm-only", 0.0), ("uncertain", 0.5),
                                                                          ("uncertain", 1.0)]
    page = client.get(f"/campaigns/{campaign.pk}/pools/simulation/").content.decode()
    assert 'id="budget-table"' in page and page.count('<polyline class="curve"') == 3 + 4 and "model.txt" in page


def test_a_models_file_with_a_bad_line_or_share_is_refused_with_its_reason(client, organizer, tmp_path):
    campaign = campaign_with_runs(tmp_path)
    client.force_login(organizer)
    bad = MODEL.replace("0.4\t0.1\t0.5\t0", "0.4\t0.1\tlots\t0")
    response = post(client, campaign, llm_grades=SimpleUploadedFile("model.txt", bad.encode()))
    assert response.status_code == 400 and "line 4" in response.content.decode()
    response = post(client, campaign, llm_grades=SimpleUploadedFile("model.txt", MODEL.encode()), budget_shares="2")
    assert response.status_code == 400 and "is not a number in (0, 1]" in response.content.decode()
    assert simulation.simulation_result(campaign=campaign) is None

"""An organizer replays a campaign's runs against an earlier edition's qrels on the planner, and reads on the progress
page what is left to find per topic (issue 27), on the real ARQMath-1 Task 1 runs of tests/data."""
import pytest

from ir.formats.qrels import qrels_by_topic
from ir.grades import is_relevant
from ir.pools.adaptive import next_items
from ir.problems import Problems
from judging import services as assessor_services
from pooling import services
from pooling.models import Campaign, JudgingOrder, PoolItem
from tests.browser.test_organizer_pages import log_in
from tests.factories import CampaignFactory, TopicFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOPICS = ("A.1", "A.2", "A.3", "A.4", "A.5")
RUNS = ("psu-task1-auto-both-A.tsv", "ensemble-task1.tsv")


def arqmath1_campaign(arqmath_data, **settings):
    campaign = CampaignFactory(name="ARQMath-1 replay", task=Campaign.Task.ANSWERS, primary_depth=45,
                               alternate_depth=45, **settings)
    for position, topic in enumerate(TOPICS):
        TopicFactory(campaign=campaign, topic_id=topic, position=position)
    for name in RUNS:
        services.run_ingest(campaign=campaign, path=arqmath_data / "runs" / name)
    return campaign


def test_the_planner_draws_the_judging_orders_of_the_real_runs(page, live_server, organizer, arqmath_data,
                                                               screenshot):
    campaign = arqmath1_campaign(arqmath_data)
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/pools/")
    page.click("#plan-order a")
    page.set_input_files("#id_qrels", str(arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt"))
    page.fill("#id_warm_up", "0")
    page.fill("#id_budget", "40")
    with page.expect_navigation():
        page.click("button:has-text('Simulate')")
    assert page.get_attribute("#simulation-result", "data-state") == "done"
    assert page.locator("#found-chart polyline.curve").count() == 3
    rows = page.inner_text("#simulation-table")
    assert "bandit" in rows and "move-to-front" in rows and "%" in rows
    assert "4 topics" in page.inner_text("#simulation-result")   # A.2 has no official qrels
    page.locator("#simulation-result").scroll_into_view_if_needed()
    screenshot(page, "judging-order-planner.png")


def test_the_progress_page_estimates_what_is_left_per_topic(page, live_server, organizer, arqmath_data, screenshot):
    campaign = arqmath1_campaign(arqmath_data, judging_order=JudgingOrder.BANDIT, warm_up=5, seed=1)
    services.pool_build(campaign=campaign, judged_items={})
    with open(arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt", "rb") as stream:
        qrels = qrels_by_topic(stream, Problems())
    ada = UserFactory(username="ada", password="assessor-pass-1")
    assignments = {a.topic.topic_id: a for a in assessor_services.assignments_create(
        campaign=campaign, assessors=[ada], topic_ids=list(TOPICS[:4]), kind="official", round=None).created}
    # ada judges in the bandit's order, as the qrels say, three quarters of A.1 and A.3 and a quarter of A.4.
    for topic, share in (("A.1", 0.75), ("A.3", 0.75), ("A.4", 0.25)):
        pool = {p.item_id: [tuple(e) for e in p.provenance]
                for p in PoolItem.objects.filter(topic__campaign=campaign, topic__topic_id=topic)}
        judged: dict[str, bool] = {}
        while len(judged) < share * len(pool):
            item = next_items("bandit", pool, judged, seed=1, warm_up=5, topic_id=topic)[0]
            grade = qrels[topic].get(item, 0)
            assessor_services.judgment_submit(assignment_pk=assignments[topic].pk, item_id=item, user=ada,
                                              grades=[assessor_services.GradeInput(grade=str(grade))])
            judged[item] = is_relevant(grade, campaign.relevance_level)
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/progress/")
    table = page.locator("#stopping-table")
    assert table.locator("tbody tr").count() == 5
    a_1 = table.locator("tr", has_text="A.1").inner_text()
    assert "–" in a_1 and ("stop" in a_1 or "go on" in a_1)
    assert "nothing judged yet" in table.locator("tr", has_text="A.5").inner_text()
    page.locator("#when-to-stop").evaluate("heading => heading.scrollIntoView()")
    screenshot(page, "progress-stopping.png")


def test_the_planner_draws_the_budget_curves_of_people_and_a_model(page, live_server, organizer, arqmath_data,
                                                                   screenshot, tmp_path):
    import numpy as np

    from ir.llm_simulation import confusion_llm_grades, model_lines

    campaign = arqmath1_campaign(arqmath_data)
    qrels_path = arqmath_data / "qrels" / "qrels.arqmath-2020-task1.txt"
    with open(qrels_path, "rb") as stream:
        qrels = {topic: grades for topic, grades in qrels_by_topic(stream, Problems()).items() if topic in TOPICS}
    items = [(topic, item) for topic in sorted(qrels) for item in sorted(qrels[topic])]
    # A model of kappa about 0.4: right half the time, else a neighbouring grade.
    confusion = np.array([[0.6, 0.3, 0.1, 0.0], [0.3, 0.4, 0.2, 0.1], [0.1, 0.2, 0.4, 0.3], [0.0, 0.1, 0.3, 0.6]])
    said, probabilities = confusion_llm_grades(qrels, items, seed=1, confusion=confusion)
    model = tmp_path / "model-grades.txt"
    model.write_text("".join(model_lines(items, said, probabilities)))
    log_in(page, live_server, "olga", "organizer-pass-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/pools/simulation/")
    page.set_input_files("#id_qrels", str(qrels_path))
    page.set_input_files("#id_llm_grades", str(model))
    page.fill("#id_warm_up", "0")
    page.uncheck("input[name=policies][value=bandit]")
    page.fill("#id_budget_shares", "0.1, 0.2, 0.3")
    with page.expect_navigation(timeout=300_000):
        page.click("button:has-text('Simulate')")
    assert page.get_attribute("#simulation-result", "data-state") == "done"
    assert page.locator("#budget-chart polyline.curve").count() == 3  # uncertain, random, move-to-front
    rows = page.inner_text("#budget-table")
    assert "llm-only" in rows and "uncertain" in rows and "model-grades.txt" in page.inner_text("#budget-heading")
    page.evaluate("document.querySelector('#budget-chart').scrollIntoView({block: 'end'})")
    screenshot(page, "planner-budget.png")

"""The pools page (SPEC 4.4): statistics of built pools, the Build button, and the planner with its chart."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jobs.models import Job
from pooling import selectors, services
from pooling.models import Campaign, Collection, Formula, Run
from tests.factories import CampaignFactory, TopicFactory
from tests.pooling.run_files import answers_campaign, ingest, task1_lines, task2_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def answers(tmp_path):
    return answers_campaign(tmp_path)


@pytest.fixture
def formulas(tmp_path):
    """Formulas 1 and 2 look alike (visual id 100), 3 is 200, 4 is 300; k = 2, one instance judged per formula.

    ra pools 1 3 (100, 200); rb pools 2 1 4 (100, 100, 300): visual id 100 has two candidates.
    """
    collection = Collection.objects.create(name="hand-made")
    for formula_id, visual_id in [("1", "100"), ("2", "100"), ("3", "200"), ("4", "300")]:
        Formula.objects.create(collection=collection, formula_id=formula_id, post_id=str(int(formula_id) * 10),
                               thread_id="1", type="answer", visual_id=visual_id)
    campaign = CampaignFactory(name="formulas", task=Campaign.Task.FORMULAS, collection=collection,
                               primary_depth=2, alternate_depth=1, instances=1)
    TopicFactory(campaign=campaign, topic_id="B.1", position=0)
    ingest(campaign, tmp_path, "ra", task2_lines("B.1", ["1", "3", "4"], "ra"))
    ingest(campaign, tmp_path, "rb", task2_lines("B.1", ["2", "1", "4"], "rb"))
    return campaign


def test_pools_page_is_for_organizers_only(client, organizer, assessor_user, answers):
    url = f"/campaigns/{answers.pk}/pools/"
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    client.force_login(assessor_user)
    assert client.get(url).status_code == 403
    assert client.post(f"/campaigns/{answers.pk}/pools/build/").status_code == 403
    client.force_login(organizer)
    assert client.get(url).status_code == 200


def test_campaign_page_links_to_the_pools_page(client, organizer, answers):
    client.force_login(organizer)
    assert f'href="/campaigns/{answers.pk}/pools/"' in client.get(f"/campaigns/{answers.pk}/").content.decode()


def test_answer_statistics_count_items_and_unique_contributions(answers, django_assert_max_num_queries):
    services.pool_build(campaign=answers, judged_items={})
    with django_assert_max_num_queries(3):
        stats = selectors.pool_statistics(campaign=answers)
    assert [(t["topic_id"], t["items"]) for t in stats["topics"]] == [("A.1", 5), ("A.2", 4)]
    assert stats["total"]["items"] == 9
    assert [(r["name"], r["kind"], r["depth"], r["contributed"], r["unique"]) for r in stats["runs"]] == [
        ("r1", "primary", 3, 6, 4), ("r2", "alternate", 2, 4, 2), ("r3", "primary", 1, 2, 1)]


def test_formula_statistics_count_visual_ids_selected_instances_and_overflow(formulas):
    services.pool_build(campaign=formulas, judged_items={})
    stats = selectors.pool_statistics(campaign=formulas)
    assert stats["topics"] == [{"topic_id": "B.1", "items": 3, "candidates": 4, "selected": 3, "overflow": 1}]
    assert [(r["name"], r["contributed"], r["unique"]) for r in stats["runs"]] == [("ra", 2, 1), ("rb", 2, 1)]


def test_statistics_before_building_show_empty_pools(answers):
    stats = selectors.pool_statistics(campaign=answers)
    assert not stats["built"]
    assert [t["items"] for t in stats["topics"]] == [0, 0]
    assert [(r["name"], r["contributed"]) for r in stats["runs"]] == [("r1", 0), ("r2", 0), ("r3", 0)]


@pytest.mark.parametrize("fixture", ["answers", "formulas"])
def test_pools_page_reads_the_contributions_the_build_counted(request, client, organizer, fixture):
    campaign = request.getfixturevalue(fixture)
    services.pool_build(campaign=campaign, judged_items={})
    counted = selectors.run_contributions_compute(campaign=campaign)
    client.force_login(organizer)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/campaigns/{campaign.pk}/pools/")
    assert not [q for q in queries if "provenance" in q["sql"]]  # no walk over the pool's provenance
    assert {r["name"]: (r["contributed"], r["unique"]) for r in response.context["stats"]["runs"]} == {
        name: (c.contributed, c.unique) for name, c in counted.items()}


def test_contributions_are_counted_again_once_a_topic_and_its_pool_are_deleted(answers):
    services.pool_build(campaign=answers, judged_items={})
    answers.refresh_from_db()
    services.topic_delete(campaign=answers, topic_id="A.2", judged_items={})
    answers.refresh_from_db()
    after = {r["name"]: (r["contributed"], r["unique"]) for r in selectors.pool_statistics(campaign=answers)["runs"]}
    assert after == {name: (c.contributed, c.unique)
                     for name, c in selectors.run_contributions_compute(campaign=answers).items()}
    assert sum(contributed for contributed, _ in after.values()) < 6 + 4 + 2  # A.2's items are no longer counted


def test_planner_gives_items_and_hours_per_depth(answers):
    # Depth 1 (alternates 1 * 2 // 3 = 0): A.1 10 15, A.2 20 -> 3. Depth 3 (alternates 2), r3 to 3 as well:
    # A.1 10 11 12 14 15, A.2 20 21 22 24 26 -> 10.
    rows = selectors.pool_plan(campaign=answers, depths=[1, 3], seconds_per_judgment=360)
    assert [(r.depth, r.alternate_depth, r.items, r.judgments, r.hours) for r in rows] == [
        (1, 0, 3, 3, pytest.approx(0.3)), (3, 2, 10, 10, pytest.approx(1.0))]


def test_formula_planner_at_the_campaign_depth_matches_the_built_pool(formulas):
    services.pool_build(campaign=formulas, judged_items={})
    rows = selectors.pool_plan(campaign=formulas, depths=[1, 2], seconds_per_judgment=60)
    assert [(r.depth, r.items, r.judgments) for r in rows] == [(1, 1, 1), (2, 3, 3)]
    assert rows[1].items == selectors.pool_statistics(campaign=formulas)["total"]["items"]


@pytest.mark.parametrize("fixture", ["answers", "formulas"])
def test_stored_planner_equals_the_computed_one_and_the_page_reads_it(request, client, organizer, fixture,
                                                                      django_assert_max_num_queries):
    campaign = request.getfixturevalue(fixture)
    services.pool_build(campaign=campaign, judged_items={})
    campaign.refresh_from_db()
    depths = selectors.PLAN_DEPTHS[campaign.task]
    computed = selectors.pool_plan_compute(campaign=campaign, depths=depths, seconds_per_judgment=60)
    with django_assert_max_num_queries(2):  # the stamp's runs and topics: no run row is read
        stored = selectors.pool_plan(campaign=campaign, depths=depths, seconds_per_judgment=60)
    assert stored == computed and any(row.items for row in stored)
    client.force_login(organizer)
    assert client.get(f"/campaigns/{campaign.pk}/pools/").context["plan"] == computed


def test_planner_stored_before_a_run_was_added_is_computed_again(tmp_path, answers):
    services.pool_build(campaign=answers, judged_items={})
    answers.refresh_from_db()
    depths = selectors.PLAN_DEPTHS[answers.task]
    before = selectors.pool_plan(campaign=answers, depths=depths, seconds_per_judgment=60)
    ingest(answers, tmp_path, "r4", task1_lines("A.1", [f"9{n}" for n in range(50)], "r4"))
    after = selectors.pool_plan(campaign=answers, depths=depths, seconds_per_judgment=60)
    assert after == selectors.pool_plan_compute(campaign=answers, depths=depths, seconds_per_judgment=60)
    assert after[-1].items > before[-1].items


def test_pools_page_shows_statistics_planner_table_and_svg_chart(client, organizer, answers):
    services.pool_build(campaign=answers, judged_items={})
    client.force_login(organizer)
    response = client.get(f"/campaigns/{answers.pk}/pools/", {"depths": "1, 3", "seconds": "360"})
    html = response.content.decode()
    assert response.context["stats"]["total"]["items"] == 9
    plan = response.context["plan"]
    assert [(r.depth, r.items, round(r.hours, 1)) for r in plan] == [(1, 3, 0.3), (3, 10, 1.0)]
    table = html[html.index('id="plan-table"'):html.index("</table>", html.index('id="plan-table"'))]
    assert "<td class=\"num\">10</td>" in table and "<td class=\"num\">1.0</td>" in table
    assert '<svg id="plan-chart"' in html and html.count("<rect ") == 2
    assert "assessor hours" in html and "Download pools (TSV)" in html
    assert f'href="/api/campaigns/{answers.pk}/pools/export/"' in html
    assert "http://" not in html and "https://" not in html


def test_planner_defaults_and_bad_input(client, organizer, answers, formulas):
    client.force_login(organizer)
    response = client.get(f"/campaigns/{answers.pk}/pools/")
    assert [r.depth for r in response.context["plan"]] == list(range(5, 51, 5))
    assert "60 s" in response.content.decode()
    response = client.get(f"/campaigns/{formulas.pk}/pools/", {"depths": "x, -2", "seconds": "0"})
    assert [r.depth for r in response.context["plan"]] == [5, 10, 15, 20, 25, 30]
    assert len(response.context["plan_errors"]) == 2


def test_planner_keeps_what_it_takes_and_names_the_campaigns_depth_when_a_depth_is_past_it(client, organizer,
                                                                                          answers):
    client.force_login(organizer)
    answers.max_depth = 40
    answers.save()
    response = client.get(f"/campaigns/{answers.pk}/pools/", {"depths": "10, 41", "seconds": "90"})
    assert [r.depth for r in response.context["plan"]] == list(range(5, 51, 5))
    assert response.context["plan_errors"] == [
        "depths: 41 (past the campaign's maximum run depth, 40). Give up to 20 whole numbers from 1 to 40, "
        "separated by commas"]
    assert response.context["seconds"] == "90"
    response = client.get(f"/campaigns/{answers.pk}/pools/", {"depths": "40 10,10", "seconds": "inf"})
    assert [r.depth for r in response.context["plan"]] == [10, 40]
    assert response.context["plan_errors"] == ["seconds per judgment: give a number above 0 and at most 3600"]


def test_build_button_queues_a_pool_build_job(client, organizer, answers):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{answers.pk}/pools/build/")
    job = Job.objects.get()
    assert (job.kind, job.campaign, job.status) == (Job.Kind.POOL_BUILD, answers, Job.Status.QUEUED)
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.pk}/"
    assert client.get(f"/campaigns/{answers.pk}/pools/build/").status_code == 405


def test_organizer_sets_and_clears_a_runs_pool_depth_on_the_pools_page(client, organizer, tmp_path):
    from pooling import services

    campaign = services.campaign_create(name="depths", task="answers")
    topics = tmp_path / "t.xml"
    topics.write_text('<Topics><Topic number="A.1"><Title>t</Title><Question>q</Question></Topic></Topics>')
    services.topics_ingest(campaign=campaign, path=topics)
    run_file = tmp_path / "manual.tsv"
    run_file.write_text("".join(f"A.1\t{i}\t{i}\t{100 - i}\tm\n" for i in range(1, 61)))
    run = services.run_ingest(campaign=campaign, path=run_file)
    services.pool_build(campaign=campaign, judged_items={})
    client.force_login(organizer)
    url = f"/campaigns/{campaign.pk}/runs/{run.pk}/depth/"
    page = client.post(url, {"depth": "60"}, follow=True).content.decode()
    assert Run.objects.get(pk=run.pk).depth == 60 and "Rebuild the pools" in page
    services.pool_build(campaign=campaign, judged_items={})
    assert services.pool_build(campaign=campaign, judged_items={}).sizes == {"A.1": 60}
    page = client.post(url, {"depth": "deep"}, follow=True).content.decode()
    assert "a pool depth is a whole number" in page and Run.objects.get(pk=run.pk).depth == 60
    client.post(url, {"depth": ""})
    assert Run.objects.get(pk=run.pk).depth is None
    assert services.pool_build(campaign=campaign, judged_items={}).sizes == {"A.1": 45}


def test_assessors_cannot_change_a_runs_depth(client, assessor_user):
    client.force_login(assessor_user)
    assert client.post("/campaigns/1/runs/1/depth/", {"depth": "5"}).status_code == 403


def test_planner_depths_in_other_scripts_digits_are_a_form_error_not_a_500(client, organizer, answers):
    client.force_login(organizer)
    # "²" is a digit to str.isdigit(), not to int().
    response = client.get(f"/campaigns/{answers.pk}/pools/", {"depths": "1, ²"})
    assert response.status_code == 200
    assert "depths: ² (not a whole number). Give up to" in response.content.decode()


def test_pools_page_says_the_pools_are_out_of_date_after_a_run_is_added(client, organizer, answers, tmp_path):
    """Issue 22, point 9: a run added to built pools is in none of them; the page says so and offers the rebuild."""
    services.pool_build(campaign=answers, judged_items={})
    client.force_login(organizer)
    url = f"/campaigns/{answers.pk}/pools/"
    assert 'id="pools-out-of-date"' not in client.get(url).content.decode()
    ingest(answers, tmp_path, "r4", task1_lines("A.1", ["19"], "r4") + task1_lines("A.2", ["29"], "r4"))
    text = client.get(url).content.decode()
    assert 'id="pools-out-of-date"' in text and "run r4 has no item in them" in text
    assert "Rebuild the out-of-date pools" in text
    services.pool_build(campaign=answers, judged_items={})
    assert 'id="pools-out-of-date"' not in client.get(url).content.decode()

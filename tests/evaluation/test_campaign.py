"""Qrels from a campaign's judgments, its runs scored against them: service, commands, API and pages."""
import pytest
from django.urls import reverse

from evaluation import services
from judging.models import Assignment
from judging.services import assignment_withdraw, judgments_import
from pooling import services as pooling_services
from pooling.models import Formula, PoolInstance, PoolItem
from tests.commands import command_output, rejected
from tests.factories import AssignmentFactory, JudgmentFactory
from tests.judging.fixtures import assign
from tests.pooling.run_files import ingest, task1_lines


def judge(campaign, *lines):
    judgments_import(campaign=campaign, lines=["\t".join(line) for line in lines])


@pytest.fixture
def judged_answers(answers, ada, bob):
    """A.1 (ada): 10 high, 11 SF, 12 not relevant; A.2 (bob): 20 medium, 99 DK. Training and dual judgments
    of bob's and ada's disagree with those and must stay out of the qrels."""
    judge(answers,
          ("ada", "A.1", "10", "3", ""), ("ada", "A.1", "11", "SF", "formula does not render"),
          ("ada", "A.1", "12", "0", ""),
          ("bob", "A.2", "20", "2", ""), ("bob", "A.2", "99", "DK", "not sure"),
          ("bob", "A.1", "10", "0", "", "training", "1"), ("bob", "A.1", "12", "3", "", "dual"),
          ("ada", "A.2", "20", "0", "", "dual"))
    return answers


@pytest.fixture
def judged_formulas(formulas, ada):
    """Visual id 100: instance 1 low, 2 high; 300: instance 3 SF; 400: instance 4 not relevant."""
    judge(formulas, ("ada", "B.1", "1", "1", ""), ("ada", "B.1", "2", "3", ""),
          ("ada", "B.1", "3", "SF", "broken"), ("ada", "B.1", "4", "0", ""))
    return formulas


def export(campaign, **kw) -> str:
    out = []
    services.qrels_export(campaign=campaign, out=type("Out", (), {"write": lambda self, s: out.append(s)})(), **kw)
    return "".join(out)


def test_answer_qrels_are_the_official_grades_without_sf_and_dk(judged_answers):
    assert export(judged_answers) == "A.1\t0\t10\t3\nA.1\t0\t12\t0\nA.2\t0\t20\t2\n"


def test_formula_qrels_take_the_highest_grade_of_a_visual_ids_instances(judged_formulas):
    assert export(judged_formulas) == "B.1\t0\t100\t3\nB.1\t0\t400\t0\n"
    assert export(judged_formulas, level="instance") == "B.1\t0\t1\t1\nB.1\t0\t2\t3\nB.1\t0\t4\t0\n"


def test_topics_and_items_come_in_natural_order(db):
    ten = AssignmentFactory(topic__topic_id="A.10", topic__position=0)
    two = AssignmentFactory(topic__campaign=ten.campaign, topic__topic_id="A.2", topic__position=1,
                            assessor=ten.assessor)
    for assignment, item_id, grade in ((ten, "100", "1"), (ten, "9", "2"), (ten, "20", "0"), (two, "5", "3")):
        JudgmentFactory(assignment=assignment, item_id=item_id, grade=grade)
    assert export(ten.campaign) == "A.2\t0\t5\t3\nA.10\t0\t9\t2\nA.10\t0\t20\t0\nA.10\t0\t100\t1\n"


def test_a_reassigned_topic_keeps_the_first_assessors_grades_where_the_second_has_none(judged_answers, ada):
    assignment = Assignment.objects.get(assessor=ada, topic__topic_id="A.1", kind="official")
    assert assignment_withdraw(assignment=assignment) == "withdrawn"
    assert export(judged_answers) == "A.1\t0\t10\t3\nA.1\t0\t12\t0\nA.2\t0\t20\t2\n"
    # cy takes A.1 over: cy's grade of 10 replaces ada's, cy's DK on 12 makes it unjudged, and ada's SF on 11
    # stays out.
    judge(judged_answers, ("cy", "A.1", "10", "1", ""), ("cy", "A.1", "12", "DK", "unsure"))
    assert export(judged_answers) == "A.1\t0\t10\t1\nA.2\t0\t20\t2\n"


def test_scores_follow_withdrawals_revivals_and_sf(judged_answers, ada, organizer, client):
    client.force_login(organizer)
    url = f"/api/campaigns/{judged_answers.pk}/evaluation/"

    def r1_map():
        return client.get(url).json()["runs"][0]["map_prime"]

    # ada's official A.1 assignment withdrawn; cy takes the topic and grades 10 as 0 and 12 as 3.
    first = Assignment.objects.get(assessor=ada, topic__topic_id="A.1", kind="official")
    assignment_withdraw(assignment=first)
    judge(judged_answers, ("cy", "A.1", "10", "0", ""), ("cy", "A.1", "12", "3", ""))
    cy_a1 = Assignment.objects.get(assessor__username="cy", topic__topic_id="A.1", kind="official")
    assert r1_map() == pytest.approx((0.5 + 1.0) / 2)  # A.1: 10 (0) then 12 (3)
    assignment_withdraw(assignment=cy_a1)
    assign(judged_answers, ada, "A.1")  # ada's assignment comes back: no judgment changes, the scores do
    assert r1_map() == pytest.approx(1.0)
    judge(judged_answers, ("ada", "A.1", "10", "SF", "the page broke"))  # a grade turned into SF: 10 unjudged
    assert r1_map() == pytest.approx(0.5)  # A.1 has no relevant post left: AP 0; A.2 still 1


def test_formulas_without_visual_ids_in_the_index_are_scored_by_their_computed_ones(formulas, ada):
    # The index has no visual ids: pooling computes them (SPEC 4.2), assessors judge those, and evaluation must
    # map the run the same way.
    Formula.objects.filter(collection=formulas.collection).update(visual_id="")
    pooling_services.pool_build(campaign=formulas, judged_items={})
    selected = PoolInstance.objects.filter(item__campaign=formulas, selected=True)
    judge(formulas, *[("ada", "B.1", instance.formula_id, "3", "") for instance in selected])
    assert PoolItem.objects.filter(campaign=formulas).count() == 1  # the four same-LaTeX formulas: one cluster
    result = services.evaluate_campaign(campaign=formulas)
    assert result.runs[0].topics == 1
    assert result.runs[0].means["map_prime"] == pytest.approx(1.0)


def test_min_relevant_leaves_topics_out_and_says_which(judged_answers, tmp_path):
    judge(judged_answers, ("ada", "A.1", "11", "2", "renders now"))  # a revision: A.1 now has two relevant
    target = tmp_path / "qrels.txt"
    out, err = command_output("export_qrels", "--campaign", "answers", "--min-relevant", "-o", str(target))
    assert target.read_text() == "A.1\t0\t10\t3\nA.1\t0\t11\t2\nA.1\t0\t12\t0\n"
    assert "A.2\tleft out: 1 relevant item, fewer than 2" in err.splitlines()
    assert "3 judgments in 1 topics, 1 topics left out" in err
    out, err = command_output("export_qrels", "--campaign", "answers", "--min-relevant", "1")
    assert out.count("\n") == 4 and "left out" not in err


def test_export_qrels_refuses_instance_level_for_answers(judged_answers, tmp_path):
    target = tmp_path / "qrels.txt"
    lines = rejected("export_qrels", "--campaign", "answers", "--level", "instance", "-o", str(target))
    assert lines == ["the instance level is for formula campaigns; answer qrels are by post"]
    assert not target.exists() and not (tmp_path / "qrels.txt.partial").exists()


def test_campaign_runs_are_scored_against_official_judgments(judged_answers):
    out, _err = command_output("evaluate", "--campaign", "answers", "--per-topic")
    lines = out.splitlines()
    # A.1: 10 (3) and 12 (0) judged, 11 is SF: unjudged, dropped from the prime run, counted in Unjudged@10.
    assert "r1\tmap_prime\tA.1\t1.0000" in lines
    assert "r1\tunjudged_10\tA.1\t0.3333" in lines
    assert "r1\tunjudged_10\tA.2\t0.5000" in lines
    assert "r1\tunjudged_10\tall\t0.4167" in lines
    assert "r1\tp10_prime\tall\t0.1000" in lines


def test_a_campaign_without_official_judgments_has_nothing_to_score(answers):
    assert rejected("evaluate", "--campaign", "answers") == [
        "campaign 'answers' has no official judgments yet: there is nothing to score"]


def test_campaign_scores_equal_the_files_scored_by_the_command(judged_formulas, tmp_path):
    # The same qrels, run and formula index as files give the same numbers as the database path.
    qrels = tmp_path / "qrels.txt"
    command_output("export_qrels", "--campaign", "formulas", "-o", str(qrels))
    run = tmp_path / "f1.tsv"
    run.write_text("".join(f"B.1\t{f}\t{p}\t{r}\t{10 - r}\tf1\n"
                           for r, (f, p) in enumerate([("1", "20"), ("2", "30"), ("3", "30"), ("4", "40")], 1)))
    index = tmp_path / "index.tsv"
    index.write_text("id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n" + "".join(
        f"{f.formula_id}\t{f.post_id}\t{f.thread_id}\t{f.type}\t{f.visual_id}\tx\n"
        for f in Formula.objects.filter(collection=judged_formulas.collection)))
    from_files, _ = command_output("evaluate", "--per-topic", "--qrels", str(qrels), "--formula-index", str(index),
                                   str(run))
    from_campaign, _ = command_output("evaluate", "--per-topic", "--campaign", "formulas")
    assert from_files.replace("f1.tsv", "f1") == from_campaign
    # 100 (3), 300 (SF: unjudged), 400 (0): 100 first, so every measure is perfect.
    assert "f1\tndcg_prime\tall\t1.0000" in from_campaign.splitlines()
    assert "f1\tunjudged_10\tall\t0.3333" in from_campaign.splitlines()


def test_leaderboard_follows_new_judgments(judged_answers, client, organizer, tmp_path):
    ingest(judged_answers, tmp_path, "r2", task1_lines("A.1", ["12", "10"], "r2"), alternate=True)
    client.force_login(organizer)
    url = reverse("evaluation:leaderboard", args=[judged_answers.pk])
    page = client.get(url).content.decode()
    assert 'id="leaderboard"' in page and "r1" in page and "r2" in page
    before = client.get(f"/api/campaigns/{judged_answers.pk}/evaluation/").json()
    r2 = next(run for run in before["runs"] if run["run"] == "r2")
    assert r2["map_prime"] == pytest.approx(0.5) and r2["kind"] == "alternate"
    judge(judged_answers, ("ada", "A.1", "12", "2", "on reflection"))  # a revision, no new judgment
    after = client.get(f"/api/campaigns/{judged_answers.pk}/evaluation/").json()
    assert after["version"] != before["version"] and after["judgments"] == before["judgments"]
    r2 = next(run for run in after["runs"] if run["run"] == "r2")
    assert r2["map_prime"] == pytest.approx(1.0)


def test_leaderboard_csv_and_run_drill_down(judged_answers, client, organizer):
    client.force_login(organizer)
    csv = client.get(reverse("evaluation:leaderboard_csv", args=[judged_answers.pk])).content.decode().splitlines()
    assert csv[0] == "run,kind,manual,baseline,ndcg_prime,map_prime,p10_prime,unjudged_10,topics"
    assert csv[1] == "r1,primary,0,0,1.0000,1.0000,0.1000,0.4167,2"
    run = judged_answers.runs.get()
    page = client.get(reverse("evaluation:run_scores", args=[judged_answers.pk, run.pk])).content.decode()
    assert 'id="run-topics"' in page and "<td>A.2</td>" in page and "0.3333" in page


def test_qrels_download_and_api(judged_answers, client, organizer):
    client.force_login(organizer)
    response = client.get(reverse("evaluation:qrels", args=[judged_answers.pk]), {"min_relevant": "2"})
    assert b"".join(response.streaming_content) == b""  # both topics have a single relevant post
    response = client.get(f"/api/campaigns/{judged_answers.pk}/qrels/", {"min_relevant": "1"})
    assert response.status_code == 200 and response["X-Topics-Left-Out"] == ""
    assert b"".join(response.streaming_content) == b"A.1\t0\t10\t3\nA.1\t0\t12\t0\nA.2\t0\t20\t2\n"
    response = client.get(f"/api/campaigns/{judged_answers.pk}/qrels/", {"min_relevant": "2"})
    assert response["X-Topics-Left-Out"] == "A.1,A.2"
    response = client.get(f"/api/campaigns/{judged_answers.pk}/qrels/", {"level": "instance"})
    assert response.status_code == 400 and "instance level" in response.json()["problems"][0]
    response = client.get(f"/api/campaigns/{judged_answers.pk}/evaluation/", {"per_topic": "1"},
                          HTTP_ACCEPT="text/tab-separated-values")
    assert "r1\tmap_prime\tA.1\t1.0000\n" in response.content.decode()


def test_assessors_reach_no_qrels_scores_or_leaderboard(judged_answers, client, ada):
    client.force_login(ada)
    pk = judged_answers.pk
    run = judged_answers.runs.get()
    for url in (reverse("evaluation:leaderboard", args=[pk]), reverse("evaluation:leaderboard_csv", args=[pk]),
                reverse("evaluation:run_scores", args=[pk, run.pk]), reverse("evaluation:qrels", args=[pk]),
                f"/api/campaigns/{pk}/qrels/", f"/api/campaigns/{pk}/evaluation/"):
        assert client.get(url).status_code == 403, url
    client.logout()
    assert client.get(reverse("evaluation:leaderboard", args=[pk])).status_code == 302
    assert client.get(f"/api/campaigns/{pk}/qrels/").status_code in (401, 403)


def test_leaderboard_before_any_judgment_says_so(answers, client, organizer):
    client.force_login(organizer)
    page = client.get(reverse("evaluation:leaderboard", args=[answers.pk])).content.decode()
    assert 'id="no-judgments"' in page
    assert client.get(f"/api/campaigns/{answers.pk}/evaluation/").json()["runs"] == []  # an empty table, 200


def test_min_relevant_counts_relevant_at_the_campaigns_relevance_level(judged_answers, client, organizer):
    # A.1: 10 high, 12 low; A.2: 20 medium. At level 1, A.1 has two relevant posts and is kept; A.2 has one.
    judge(judged_answers, ("ada", "A.1", "12", "1", "on reflection"))
    judged_answers.relevance_level = 1
    judged_answers.save()
    out, err = command_output("export_qrels", "--campaign", "answers", "--min-relevant", "2")
    assert out == "A.1\t0\t10\t3\nA.1\t0\t12\t1\n"
    assert "A.2\tleft out: 1 relevant item, fewer than 2" in err
    client.force_login(organizer)
    response = client.get(reverse("evaluation:qrels", args=[judged_answers.pk]), {"min_relevant": "2"})
    assert b"".join(response.streaming_content) == b"A.1\t0\t10\t3\nA.1\t0\t12\t1\n"
    response = client.get(f"/api/campaigns/{judged_answers.pk}/qrels/", {"min_relevant": "2"})
    assert response["X-Topics-Left-Out"] == "A.2"
    assert b"".join(response.streaming_content) == b"A.1\t0\t10\t3\nA.1\t0\t12\t1\n"


def test_the_leaderboard_counts_relevant_items_at_the_campaigns_relevance_level(judged_answers, client, organizer):
    judge(judged_answers, ("ada", "A.1", "12", "1", "on reflection"))  # A.1: 10 high, 12 low; A.2: 20 medium
    judged_answers.relevance_level = 1
    judged_answers.save()
    client.force_login(organizer)
    page = client.get(reverse("evaluation:leaderboard", args=[judged_answers.pk])).content.decode()
    assert '<tr><td>A.1</td><td class="num">2</td><td class="num">2</td></tr>' in page
    assert "Topics with fewer than 2 relevant items: A.2." in page
    assert "Relevant (≥ 1)" in page

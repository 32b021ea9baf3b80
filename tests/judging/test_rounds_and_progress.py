"""Training rounds with a gold qrels (SPEC 7), the progress dashboard and the planner's measured time per judgment
(SPEC 4.4, 5.3)."""
import datetime as dt
import io
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from sklearn.metrics import cohen_kappa_score

from agreement import reports, rounds
from agreement.models import GoldJudgment, TrainingRound
from ir.problems import InputError
from judging import progress, services
from judging.models import Assignment
from tests.commands import command_output
from tests.factories import AssignmentFactory, ItemVisitFactory, PoolItemFactory, TopicFactory
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db

GOLD = b"A.1\t0\t10\t3\nA.1\t0\t11\t2\nA.1\t0\t12\t0\nX.9\t0\t5\t1\n"


def test_a_round_is_created_with_its_topics_gold_and_assessors_in_one_step(answers, ada, bob, organizer):
    result = rounds.training_round_create(campaign=answers, topic_ids=["A.1"], assessors=[ada, bob],
                                          gold=io.BytesIO(GOLD), gold_name="qrels-2021.txt", user=organizer)
    assert result.round.number == 1 and (result.gold, result.gold_other_topics) == (3, 1)
    assigned = Assignment.objects.filter(kind="training", round=1).values_list("assessor__username", "topic__topic_id")
    assert sorted(assigned) == [("ada", "A.1"), ("bob", "A.1")]
    # The next round gets the next number by default.
    assert rounds.training_round_create(campaign=answers, topic_ids=["A.2"], assessors=[ada]).round.number == 2
    with pytest.raises(InputError, match="round 1 of campaign 'answers' exists already"):
        rounds.training_round_create(campaign=answers, topic_ids=["A.2"], assessors=[ada], number=1)


def test_a_bad_gold_qrels_is_rejected_with_line_numbers_and_nothing_is_created(answers, ada):
    with pytest.raises(InputError) as info:
        rounds.training_round_create(campaign=answers, topic_ids=["A.1"], assessors=[ada], gold_name="gold.txt",
                                     gold=io.BytesIO(b"A.1 0 10 3\nA.1 0 11 4\nA.1 0 12\n"))
    assert info.value.messages() == ["gold.txt:line 2: grade 4 is not a grade of 0 to 3",
                                     "gold.txt:line 3: expected 4 columns (topic iteration doc_id grade), found 3"]
    with pytest.raises(InputError, match="no line of the gold qrels is for a topic of this round"):
        rounds.training_round_create(campaign=answers, topic_ids=["A.1"], assessors=[ada],
                                     gold=io.BytesIO(b"X.9 0 1 2\n"))
    assert not TrainingRound.objects.exists() and not Assignment.objects.exists()


def test_each_assessor_is_measured_against_the_gold_qrels(answers, ada, bob):
    rounds.training_round_create(campaign=answers, topic_ids=["A.1"], assessors=[ada, bob], gold=io.BytesIO(GOLD),
                                 gold_name="qrels-2021.txt")
    services.judgments_import(campaign=answers, lines=[
        "ada\tA.1\t10\t3\t\ttraining\t1", "ada\tA.1\t11\t1\t\ttraining\t1", "ada\tA.1\t12\t0\t\ttraining\t1",
        "bob\tA.1\t10\t2\t\ttraining\t1", "bob\tA.1\t11\t2\t\ttraining\t1",
        "bob\tA.1\t12\tDK\tunsure\ttraining\t1"])
    data = json.loads(command_output("agreement", "--campaign", "answers", "--format", "json")[0])
    gold = {(k["assessor"], k["scale"]): k for k in data[0]["gold"]["kappas"]}
    assert data[0]["gold"]["file"] == "qrels-2021.txt"
    assert gold[("ada", "graded")]["kappa"] == pytest.approx(cohen_kappa_score([3, 1, 0], [3, 2, 0]))
    assert gold[("ada", "binary")]["kappa"] == pytest.approx(cohen_kappa_score([1, 0, 0], [1, 1, 0]))
    assert gold[("bob", "graded")]["items"] == 2  # DK left out


def test_formulas_are_measured_against_gold_by_visual_id_with_the_highest_instance_grade(formulas, ada, bob):
    rounds.training_round_create(campaign=formulas, topic_ids=["B.1"], assessors=[ada, bob],
                                 gold=io.BytesIO(b"B.1 0 100 3\nB.1 0 300 0\nB.1 0 400 1\n"), gold_name="g")
    services.judgments_import(campaign=formulas, lines=[
        "ada\tB.1\t1\t1\t\ttraining\t1", "ada\tB.1\t2\t3\t\ttraining\t1", "ada\tB.1\t3\t0\t\ttraining\t1",
        "ada\tB.1\t4\t2\t\ttraining\t1"])
    group = reports.agreement_compute(campaign=formulas, round=1)[0]
    kappa = next(r.kappa for r in group.gold if (r.assessor, r.scale) == ("ada", "graded"))
    # Visual id 100 is 3 for ada (instances graded 1 and 3), 300 is 0, 400 is 2.
    assert kappa.items == 3 and kappa.value == pytest.approx(cohen_kappa_score([3, 0, 2], [3, 0, 1]))


def test_the_rounds_page_creates_a_round_with_an_uploaded_gold_qrels(client, organizer, answers, ada, bob):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{answers.pk}/training/", {
        "topics": ["A.1", "A.2"], "assessors": [ada.pk, bob.pk], "gold": SimpleUploadedFile("qrels.txt", GOLD)})
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "Training round 1: 4 assignments created, 3 gold judgments (1 line for other topics left out)." in page
    assert "qrels.txt (3 judgments)" in page and "ada, bob" in page
    assert GoldJudgment.objects.count() == 3
    refused = client.post(f"/campaigns/{answers.pk}/training/", {
        "topics": ["A.1"], "assessors": [ada.pk], "gold": SimpleUploadedFile("bad.txt", b"A.1 0 10 9\n")})
    assert refused.status_code == 200
    assert "bad.txt:line 1: grade 9 is not a grade of 0 to 3" in refused.content.decode()
    assert TrainingRound.objects.count() == 1


def test_a_gold_qrels_over_the_upload_limit_is_refused_on_the_page_and_the_api(client, organizer, answers, ada,
                                                                                settings):
    settings.UPLOAD_MAX_BYTES = 10
    client.force_login(organizer)
    refused = client.post(f"/campaigns/{answers.pk}/training/", {
        "topics": ["A.1"], "assessors": [ada.pk], "gold": SimpleUploadedFile("qrels.txt", GOLD)})
    assert refused.status_code == 200
    assert "qrels.txt: the file is 43 bytes, more than the upload limit of 10 bytes" in refused.content.decode()
    response = client.post(f"/api/campaigns/{answers.pk}/training-rounds/", {
        "topics": ["A.1"], "assessors": ["ada"], "gold": SimpleUploadedFile("qrels.txt", GOLD)})
    assert response.status_code == 400
    assert "more than the upload limit of 10 bytes" in response.json()["problems"][0]
    assert not TrainingRound.objects.exists()


def visit(assignment, item_id, *, start, seconds, active, skipped=False):
    ItemVisitFactory(assignment=assignment, item_id=item_id, first_shown_at=start,
                     completed_at=start + dt.timedelta(seconds=seconds) if seconds is not None else None,
                     skipped_at=start if skipped else None, active_seconds=active)


@pytest.fixture
def assigned():
    """ada's official assignment of topic A.1, whose pool holds 10, 11 and 12 (made by the factories: progress needs
    only the pool and the visits)."""
    a = AssignmentFactory(assessor__username="ada", topic__topic_id="A.1")
    for item_id in ("10", "11", "12"):
        PoolItemFactory(topic=a.topic, item_id=item_id)
    return a


def test_progress_reports_times_pace_and_a_projected_finish(assigned):
    a = assigned
    start = timezone.now() - dt.timedelta(hours=1)
    visit(a, "10", start=start, seconds=30, active=20)
    visit(a, "11", start=start, seconds=60, active=40)
    visit(a, "12", start=start, seconds=None, active=0)   # shown, not judged
    today = timezone.localdate()
    report = progress.progress_report(campaign=a.campaign, today=today)
    row = report.rows[0]
    assert (row.assessor, row.topic, row.judged, row.total) == ("ada", "A.1", 2, 3)
    assert (row.server_mean, row.server_median, row.active_mean, row.active_median) == (45, 45, 30, 30)
    assert row.per_hour == pytest.approx(120)
    # Two items on one day of work: the one left takes one more day.
    assert row.finish == today + dt.timedelta(days=1)
    assert report.assessors[0].judged == 2 and report.total.total == 3


def test_server_time_leaves_out_skipped_and_unshown_items_and_caps_a_page_left_open(assigned):
    a = assigned
    start = timezone.now() - dt.timedelta(days=2)
    visit(a, "10", start=start, seconds=90, active=0, skipped=True)
    visit(a, "11", start=start, seconds=3 * 24 * 3600, active=0)
    visit(a, "12", start=start, seconds=0, active=0)   # imported: never shown before it was submitted
    row = progress.progress_report(campaign=a.campaign).rows[0]
    assert row.server_mean == row.server_median == 4 * 3600 and row.active_mean is None and row.judged == 3


def test_progress_page_and_api_for_organizers(client, organizer, assigned):
    a = assigned
    visit(a, "10", start=timezone.now(), seconds=30, active=20)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{a.campaign_id}/progress/").content.decode()
    assert 'id="progress-table"' in page and "1 / 3" in page and "180.0" in page   # 3600 / 20 s per judgment
    body = client.get(f"/api/campaigns/{a.campaign_id}/progress/").json()
    assert body["rows"][0]["judged"] == 1 and body["rows"][0]["active_seconds_mean"] == 20
    assert body["seconds_per_judgment"] == 20


def test_the_planner_keeps_its_default_after_two_measured_judgments(client, organizer, answers, ada):
    client.force_login(organizer)
    assert 'name="seconds" value="60"' in client.get(f"/campaigns/{answers.pk}/pools/").content.decode()
    a = assign(answers, ada, "A.1")
    for item, active in (("10", 20), ("11", 40)):
        services.judgment_submit(assignment_pk=a.pk, item_id=item,
                                 grades=[services.GradeInput(grade="2")], user=ada, active_seconds=active)
    # Two judgments are too few to plan by (tests/judging/test_planner_sample.py): the default stands.
    assert 'name="seconds" value="60"' in client.get(f"/campaigns/{answers.pk}/pools/").content.decode()


def test_the_measured_time_of_formulas_is_per_instance(formulas, ada):
    a = assign(formulas, ada, "B.1")
    services.judgment_submit(assignment_pk=a.pk, item_id="100", user=ada, active_seconds=50, grades=[
        services.GradeInput(grade="2", formula_id="1"), services.GradeInput(grade="3", formula_id="2")])
    assert progress.judging_time(formulas) == (25, 2)


def test_progress_page_counts_timed_items_of_the_table_and_projects_no_date_without_a_rate(client, organizer,
                                                                                           assigned):
    """Issue 22, point 9: the page said "only 1 judgment measured" beside a table of 3 judged, and projected a
    finish date for rows whose pace nothing measured (imported judgments)."""
    a = assigned
    other = AssignmentFactory(assessor=a.assessor, topic=TopicFactory(campaign=a.campaign, topic_id="A.2", position=1))
    for item_id in ("20", "21"):
        PoolItemFactory(topic=other.topic, item_id=item_id)
    start = timezone.now() - dt.timedelta(hours=1)
    visit(a, "10", start=start, seconds=0, active=0)   # imported: no time
    visit(a, "11", start=start, seconds=0, active=0)
    visit(other, "20", start=start, seconds=30, active=20)
    report = progress.progress_report(campaign=a.campaign)
    by_topic = {row.topic: row for row in report.rows}
    assert by_topic["A.1"].per_hour is None and by_topic["A.1"].finish is None
    assert by_topic["A.2"].finish is not None and report.timed == 1
    client.force_login(organizer)
    page = client.get(f"/campaigns/{a.campaign_id}/progress/").content.decode()
    assert "judgments measured" not in page
    assert "1 of the 3 judged items below has a measured time" in page
    a_1 = page.split("<td>A.1</td>", 1)[1].split("</tr>", 1)[0]
    assert re.search(r"\d{4}-\d\d-\d\d", a_1) is None   # no projected date: no rate
    a_2 = page.split("<td>A.2</td>", 1)[1].split("</tr>", 1)[0]
    assert re.search(r"\d{4}-\d\d-\d\d", a_2)


def test_the_progress_timing_kept_in_the_cache_follows_every_change_of_the_visits(answers, ada, bob):
    """Issue 24: the report's three timing aggregates are kept in the cache beside a stamp of the visits and the
    assignments (progress.progress_timing). Each change below moves a time the report shows; the kept report must
    show it as a report computed afresh does, and a view with nothing changed must not sort the visits again."""
    from django.core.cache import cache
    from django.db import connection
    from django.db.models import F
    from django.test.utils import CaptureQueriesContext

    from judging.models import ItemVisit

    def shown() -> list[tuple]:
        # The planner's measure (progress.judging_time) is kept beside the same stamp of the visits.
        stamp = progress.campaign_visits_stamp(answers)
        report = progress.progress_report(campaign=answers, visits_stamp=stamp)
        return [(r.assessor, r.topic, r.judged, r.server_mean, r.server_median, r.active_mean, r.active_median,
                 r.days, r.timed) for r in (*report.rows, *report.assessors, report.total)] + [
            progress.judging_time(answers, visits_stamp=stamp)]

    def fresh() -> list[tuple]:
        cache.delete_many([f"progress-timing:v2:{answers.pk}", f"judging-time:{answers.pk}"])
        return shown()

    a, other = assign(answers, ada, "A.1"), assign(answers, bob, "A.2")
    now = timezone.now()
    services.item_shown(assignment=a, item_id="10", at=now - dt.timedelta(seconds=60))
    services.judgment_submit(assignment_pk=a.pk, item_id="10", grades=[services.GradeInput(grade="2")], user=ada,
                             active_seconds=20)
    services.item_shown(assignment=other, item_id="20", at=now - dt.timedelta(seconds=30))
    services.judgment_submit(assignment_pk=other.pk, item_id="20", grades=[services.GradeInput(grade="1")],
                             user=bob, active_seconds=10)
    before = shown()
    with CaptureQueriesContext(connection) as captured:
        assert shown() == before
    assert len(captured) == 2   # the stamp and the assignments: the visits' aggregates come from the cache

    def judge_11() -> None:
        services.item_shown(assignment=a, item_id="11", at=now - dt.timedelta(seconds=90))
        services.judgment_submit(assignment_pk=a.pk, item_id="11", grades=[services.GradeInput(grade="3")],
                                 user=ada, active_seconds=40)

    changes = [
        judge_11,   # an item completed
        # a judged item's first showing reported late, earlier than recorded: its server time grows
        lambda: services.item_shown(assignment=a, item_id="11", at=now - dt.timedelta(seconds=900)),
        # a revision adds active time
        lambda: services.judgment_submit(assignment_pk=a.pk, item_id="11", grades=[services.GradeInput(grade="1")],
                                         user=ada, active_seconds=30),
        # a completion moved (services.visits_recount)
        lambda: ItemVisit.objects.filter(assignment=a, item_id="10").update(
            completed_at=F("completed_at") + dt.timedelta(days=1)),
        lambda: Assignment.objects.filter(pk=other.pk).update(assessor=ada),   # given to someone else
        lambda: services.assignment_withdraw(assignment=other),
    ]
    for change in changes:
        change()
        after = shown()
        assert after != before and after == fresh()
        before = after


def test_progress_page_and_api_ask_as_many_queries_for_many_topics_as_for_one(client, organizer, assigned):
    """Issue 24: the progress report walked every visit in Python; the database now sums them, so the queries (and
    the work in Python) do not grow with the topics and the items judged."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    a = assigned
    start = timezone.now() - dt.timedelta(hours=1)
    visit(a, "10", start=start, seconds=30, active=20)
    client.force_login(organizer)

    def queries() -> list[int]:
        counts = []
        for path in (f"/campaigns/{a.campaign_id}/progress/", f"/api/campaigns/{a.campaign_id}/progress/"):
            with CaptureQueriesContext(connection) as captured:
                assert client.get(path).status_code == 200
            counts.append(len(captured))
        return counts

    queries()  # the first request of a session asks more (the session, caches filled once)
    small = queries()
    for n in range(2, 7):
        other = AssignmentFactory(campaign=a.campaign, topic=TopicFactory(campaign=a.campaign, topic_id=f"A.{n}",
                                                                          position=n))
        for item_id in ("20", "21", "22"):
            PoolItemFactory(topic=other.topic, item_id=item_id)
            visit(other, item_id, start=start, seconds=40, active=30)
    queries()  # the first request after a change computes the cached "When to stop" report again (two reads more)
    assert queries() == small
    report = progress.progress_report(campaign=a.campaign)
    assert report.total.judged == 16 and report.timed == 16 and report.total.server_median == 40


@pytest.mark.parametrize("number", ["0", "-2", "99999999999"])
def test_the_page_and_the_api_refuse_a_round_number_with_one_message(client, answers, ada, organizer, number):
    message = "a training round is a number from 1 to 2147483647"
    client.force_login(organizer)
    page = client.post(f"/campaigns/{answers.pk}/training/", {"topics": ["A.1"], "assessors": [ada.pk],
                                                              "number": number})
    assert message in page.content.decode()
    api = client.post(f"/api/campaigns/{answers.pk}/training-rounds/", {"topics": ["A.1"], "assessors": ["ada"],
                                                                        "number": int(number)},
                      content_type="application/json")
    assert api.status_code == 400 and api.json() == {"number": [message]}
    assert not TrainingRound.objects.exists()

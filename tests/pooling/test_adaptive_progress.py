"""The progress page's "When to stop" (issue 27): per topic, from the stored judgments of its official assignment,
the estimate of what is left and the knee and target rules' advice."""
from judging import progress, services
from pooling.models import JudgingOrder
from tests.judging.fixtures import assign


def judge(assignment, user, item_id, grade):
    services.judgment_submit(assignment_pk=assignment.pk, item_id=item_id, user=user,
                             grades=[services.GradeInput(grade=grade)])


def test_the_progress_page_says_per_topic_what_is_left_and_what_the_rules_advise(client, organizer, answers, ada,
                                                                                bob):
    answers.judging_order = JudgingOrder.BANDIT
    answers.warm_up = 1
    answers.save()
    a = assign(answers, ada, "A.1")
    judge(a, ada, "10", "2")   # the warm-up's one item, relevant: the target, at r1's rank 1, so reached at once
    judge(a, ada, "11", "0")
    # A training judgment of another assessor does not count: only the official assignment's.
    training = assign(answers, bob, "A.1", kind="training")
    judge(training, bob, "12", "3")
    rows = {row.topic: row.stopping for row in progress.stopping_report(campaign=answers)}
    assert rows["A.2"] is None
    s = rows["A.1"]
    assert (s.judged, s.pool, s.found) == (2, 3, 1)
    assert 0 <= s.unfound.low <= s.unfound.expected <= s.unfound.high <= 1
    # 40% of a pool of 3 is 2 judged: the knee rule looks, and sees no bend in two judgments.
    assert s.target.stop is True and s.knee.stop is False
    client.force_login(organizer)
    page = client.get(f"/campaigns/{answers.pk}/progress/").content.decode()
    table = page.split('id="stopping-table"', 1)[1].split("</table>", 1)[0]
    a_1 = table.split("<td>A.1</td>", 1)[1].split("</tr>", 1)[0]
    assert "2 / 3" in a_1 and "stop: all 1 target reached" in a_1
    assert f"({s.unfound.low}–{s.unfound.high})" in a_1
    assert "nothing judged yet" in table.split("<td>A.2</td>", 1)[1].split("</tr>", 1)[0]


def test_a_random_order_leaves_the_target_rule_to_the_estimate(answers, ada):
    a = assign(answers, ada, "A.1")
    judge(a, ada, "10", "3")
    s = {row.topic: row.stopping for row in progress.stopping_report(campaign=answers)}["A.1"]
    assert s.target.stop is None and s.target.reason == "random order: see the estimate"


def a_1(campaign):
    return {row.topic: row.stopping for row in progress.stopping_report(campaign=campaign)}["A.1"]


def test_a_new_judgment_a_revision_or_a_withdrawal_is_seen_at_once_though_the_report_is_kept(answers, ada, bob):
    a = assign(answers, ada, "A.1")
    judge(a, ada, "10", "3")
    assert (a_1(answers).judged, a_1(answers).found) == (1, 1)
    judge(a, ada, "10", "0")   # a revision
    assert (a_1(answers).judged, a_1(answers).found) == (1, 0)
    judge(a, ada, "11", "2")
    assert (a_1(answers).judged, a_1(answers).found) == (2, 1)
    answers.judging_order = JudgingOrder.MOVE_TO_FRONT
    answers.save()
    assert a_1(answers).target.reason != "random order: see the estimate"
    # Withdrawn, the assessor's judgments no longer stand for the topic: nothing judged, until bob takes it over.
    assert services.assignment_withdraw(assignment=a) == "withdrawn"
    assert {row.topic: row.stopping for row in progress.stopping_report(campaign=answers)}["A.1"] is None
    b = assign(answers, bob, "A.1")
    judge(b, bob, "12", "3")
    assert (a_1(answers).judged, a_1(answers).found) == (1, 1)


def test_the_kept_report_equals_one_computed_afresh_after_each_change_in_either_topic(answers, ada, bob):
    # Each topic's row is kept beside a stamp of its own pool and judgments: a judgment in one topic recomputes that
    # row, and the report stays what a view with an empty cache computes.
    from django.core.cache import cache

    def kept_and_fresh():
        kept = progress.stopping_report(campaign=answers)
        cache.delete(f"stopping-report:v2:{answers.pk}")
        return kept, progress.stopping_report(campaign=answers)

    a, b = assign(answers, ada, "A.1"), assign(answers, bob, "A.2")
    progress.stopping_report(campaign=answers)
    steps = [lambda: judge(a, ada, "10", "3"), lambda: judge(b, bob, "20", "0"), lambda: judge(a, ada, "10", "0"),
             lambda: judge(b, bob, "20", "2"), lambda: services.assignment_withdraw(assignment=b),
             lambda: setattr(answers, "warm_up", 0) or answers.save()]
    for step in steps:
        step()
        kept, fresh = kept_and_fresh()
        assert kept == fresh
    assert [row.topic for row in kept] == ["A.1", "A.2"] and kept[1].stopping is None
    assert (kept[0].stopping.judged, kept[0].stopping.found) == (1, 0)


def test_a_pool_gone_between_the_stamps_and_the_rows_leaves_its_topic_out(answers, ada, monkeypatch):
    # A rebuild or a topic deletion may commit between the report's reads: the page still answers.
    from pooling.models import PoolItem

    judge(assign(answers, ada, "A.1"), ada, "10", "3")
    stamps = progress._stopping_topic_stamps

    def then_a2_goes(campaign):
        found = stamps(campaign)
        PoolItem.objects.filter(topic__topic_id="A.2").delete()
        return found

    monkeypatch.setattr(progress, "_stopping_topic_stamps", then_a2_goes)
    assert [row.topic for row in progress.stopping_report(campaign=answers)] == ["A.1"]


def test_a_revision_that_commits_after_a_later_judgment_is_seen(answers, ada, bob):
    # ada's revision in A.1 was stamped before bob's new judgment in A.2 but committed after the view read the stamp:
    # the count and the latest time are those the view saw; the summed revisions are not.
    import datetime as dt

    from django.db.models import F

    from evaluation.selectors import judgments_stamp
    from judging.models import Judgment

    a, b = assign(answers, ada, "A.1"), assign(answers, bob, "A.2")
    judge(a, ada, "10", "3")
    judge(b, bob, "20", "0")
    seen, stamp = a_1(answers), judgments_stamp(campaign=answers)
    assert seen.found == 1
    earlier = Judgment.objects.get(assignment=b).updated_at - dt.timedelta(seconds=1)
    Judgment.objects.filter(assignment=a, item_id="10").update(grade="0", revision=F("revision") + 1,
                                                                updated_at=earlier)
    assert a_1(answers).found == 0
    assert judgments_stamp(campaign=answers) != stamp

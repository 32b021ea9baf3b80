"""Adjudication (docs/agreement.md): the disagreement review shows a training round's gold qrels and lists the items
an assessor graded otherwise than gold; the organizer records the agreed grade of an item, kept as a source of its
own and exported as the round's adjudicated qrels; in the dual assessment an adjudicated grade can become the
official one. Assessors' judgments are never changed."""
import io

import pytest

from agreement import rounds
from agreement.adjudication import adjudication_record
from agreement.models import Adjudication, AdjudicationRevision
from evaluation import selectors as evaluation_selectors
from ir.problems import InputError
from judging import services
from judging.models import Judgment, JudgmentRevision
from tests.commands import command_output, rejected
from tests.judging.test_agreement_reports import dual_setup, import_lines

pytestmark = pytest.mark.django_db

# The case: every gold grade is 0. Both assessors give 10 a 3 (they agree, gold differs), both give 11 a 0
# (everyone agrees), and they disagree on 12.
GOLD = b"A.1\t0\t10\t0\nA.1\t0\t11\t0\nA.1\t0\t12\t0\n"
GRADES = {"ada": {"10": "3", "11": "0", "12": "1"}, "bob": {"10": "3", "11": "0", "12": "2"}}


@pytest.fixture
def gold_round(answers, ada, bob):
    rounds.training_round_create(campaign=answers, topic_ids=["A.1"], assessors=[ada, bob], gold=io.BytesIO(GOLD),
                                 gold_name="qrels-2021.txt")
    import_lines(answers, GRADES)
    return answers


def review(client, campaign, query="kind=training&round=1"):
    return client.get(f"/campaigns/{campaign.pk}/disagreements/?{query}").content.decode()


def record(client, campaign, query="kind=training&round=1", **fields):
    return client.post(f"/campaigns/{campaign.pk}/disagreements/?{query}", {"topic": "A.1", "formula_id": "",
                                                                            "note": "", **fields})


def judgments_now():
    return sorted(Judgment.objects.values_list("assignment_id", "item_id", "grade", "comment", "revision"))


def test_review_shows_the_gold_grade_and_lists_items_where_the_assessors_agree_but_gold_differs(
        client, organizer, gold_round):
    client.force_login(organizer)
    page = review(client, gold_round)
    assert "2 items" in page
    assert "answer 10" in page      # ada and bob agree on 3, gold says 0
    assert "answer 12" in page      # ada and bob disagree
    assert "answer 11" not in page  # everyone, gold included, says 0
    assert page.count('class="gold-row') == 2 and "qrels-2021.txt" in page
    assert page.count('<tr class="gold-row differs"><td>Gold</td><td><span class="grade g0">0</span> Not relevant') \
        == 2


def test_organizer_records_the_agreed_grade_which_is_exported_as_the_rounds_adjudicated_qrels(
        client, organizer, gold_round):
    before = judgments_now()
    client.force_login(organizer)
    response = record(client, gold_round, item_id="10", grade="1", note="the gold was too strict")
    assert response.status_code == 302 and response["Location"].endswith("#unit-a1-10")
    page = review(client, gold_round)
    assert "the gold was too strict" in page and 'id="recorded-grades"' in page
    assert "?source=adjudicated&amp;round=1" in page   # the download link
    record(client, gold_round, item_id="12", grade="2")
    out, err = command_output("export_qrels", "--campaign", "answers", "--source", "adjudicated", "--round", "1")
    assert out == "A.1\t0\t10\t1\nA.1\t0\t12\t2\n"
    assert "2 adjudicated grades in 1 topics" in err
    download = client.get(f"/campaigns/{gold_round.pk}/qrels.txt?source=adjudicated&round=1")
    assert b"".join(download.streaming_content).decode() == out
    assert 'filename="answers-qrels-adjudicated-round-1.txt"' in download["Content-Disposition"]
    # A source of its own: the official qrels (no official judgment here) and every assessor's judgment unchanged.
    assert command_output("export_qrels", "--campaign", "answers")[0] == ""
    assert judgments_now() == before


def test_recording_again_keeps_every_revision_and_never_touches_the_judgments(gold_round, organizer):
    before, revisions = judgments_now(), JudgmentRevision.objects.count()
    for grade in ("2", "2", "1"):  # the second changes nothing
        adjudication_record(campaign=gold_round, kind="training", round=1, topic_id="A.1", item_id="10", grade=grade,
                            note="", user=organizer)
    adjudication = Adjudication.objects.get()
    assert (adjudication.grade, adjudication.revision) == ("1", 2)
    assert list(adjudication.revisions.values_list("number", "grade")) == [(1, "2"), (2, "1")]
    assert judgments_now() == before and JudgmentRevision.objects.count() == revisions


def test_dual_assessment_adjudicated_grade_becomes_the_official_one_with_the_history_kept(
        client, organizer, answers, ada, bob):
    dual_setup(answers, ada, bob)   # ada (official) gives 11 a 0, bob (dual) a 1
    before = judgments_now()
    assert command_output("export_qrels", "--campaign", "answers")[0] == "A.1\t0\t10\t3\nA.1\t0\t11\t0\nA.1\t0\t12\t1\n"
    client.force_login(organizer)
    page = review(client, answers, "kind=dual")
    assert "answer 11" in page and 'name="official"' in page
    response = record(client, answers, "kind=dual", item_id="11", grade="2", note="both missed the proof",
                      official="on")
    assert response.status_code == 302
    official = "A.1\t0\t10\t3\nA.1\t0\t11\t2\nA.1\t0\t12\t1\n"
    assert command_output("export_qrels", "--campaign", "answers")[0] == official
    assert evaluation_selectors.campaign_qrels(campaign=answers)["A.1"]["11"] == 2  # what the leaderboard scores on
    assert command_output("export_qrels", "--campaign", "answers", "--source", "adjudicated")[0] == "A.1\t0\t11\t2\n"
    # Taken back (no longer official): the official assessor's grade is the qrels' again, both recordings kept.
    record(client, answers, "kind=dual", item_id="11", grade="2", note="both missed the proof")
    assert command_output("export_qrels", "--campaign", "answers")[0].splitlines()[1] == "A.1\t0\t11\t0"
    assert list(AdjudicationRevision.objects.values_list("number", "grade", "official")) == [
        (1, "2", True), (2, "2", False)]
    assert judgments_now() == before


def test_an_assessor_cannot_record_an_agreed_grade(client, gold_round, ada):
    client.force_login(ada)
    assert record(client, gold_round, item_id="10", grade="1").status_code == 403
    assert not Adjudication.objects.exists()


def test_what_cannot_be_recorded_is_refused_with_the_reason_and_nothing_is_written(client, organizer, gold_round):
    client.force_login(organizer)
    cases = [({"item_id": "10", "grade": "7"}, "Select a valid choice"),
             ({"item_id": "99", "grade": "1"}, "no assessor of the training round 1 judged 99 of topic A.1"),
             ({"item_id": "10", "grade": "DK"}, "a comment is required with Do not know"),
             ({"item_id": "10", "grade": "1", "official": "on"}, "only the dual assessment&#x27;s grades can be made"),
             ({"item_id": "10", "grade": "1", "topic": "Z.9"}, "topic &#x27;Z.9&#x27; is not a topic")]
    for fields, reason in cases:
        response = record(client, gold_round, **fields)
        assert response.status_code == 400, fields
        assert "The grade was not recorded" in response.content.decode() and reason in response.content.decode()
    with pytest.raises(InputError, match="has no dual assessment"):
        adjudication_record(campaign=gold_round, kind="dual", topic_id="A.1", item_id="10", grade="1", user=organizer)
    assert not Adjudication.objects.exists()


def test_export_of_adjudicated_qrels_refuses_what_the_campaign_does_not_have(gold_round):
    assert rejected("export_qrels", "--campaign", "answers", "--source", "adjudicated", "--round", "7") == [
        "campaign 'answers' has no training round 7"]
    assert "has no dual assessment" in rejected("export_qrels", "--campaign", "answers", "--source",
                                                "adjudicated")[0]
    assert "with the adjudicated source only" in rejected("export_qrels", "--campaign", "answers", "--round", "1")[0]


def test_formula_instances_are_adjudicated_as_judged_and_exported_by_visual_id_or_instance(formulas, organizer):
    # B.1: visual id 100 has instances 1 and 2; ada and bob disagree on instance 2.
    services_lines = ["ada\tB.1\t1\t3\t\ttraining\t1", "ada\tB.1\t2\t2\t\ttraining\t1",
                      "bob\tB.1\t1\t3\t\ttraining\t1", "bob\tB.1\t2\t0\t\ttraining\t1"]
    services.judgments_import(campaign=formulas, lines=services_lines)
    adjudication_record(campaign=formulas, kind="training", round=1, topic_id="B.1", item_id="100", formula_id="2",
                        grade="1", user=organizer)
    with pytest.raises(InputError, match="judged 100, instance 4 of topic B.1"):
        adjudication_record(campaign=formulas, kind="training", round=1, topic_id="B.1", item_id="100",
                            formula_id="4", grade="1", user=organizer)
    export = ("export_qrels", "--campaign", "formulas", "--source", "adjudicated", "--round", "1")
    assert command_output(*export)[0] == "B.1\t0\t100\t1\n"
    assert command_output(*export, "--level", "instance")[0] == "B.1\t0\t2\t1\n"

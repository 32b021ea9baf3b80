"""Support judging's services and selectors: assignments freeze the bank, labels are revised with their history, a
resent key writes nothing twice, labels outside the bank or of a closed assignment are refused, kappa against the
official labels (docs/nuggets.md, "Support judging")."""
import pytest
from django.utils import timezone

from ir.problems import InputError
from nuggets import support_selectors as selectors
from nuggets.models import (
    BankVersion,
    CitationJudgment,
    CitationRevision,
    Nugget,
    SupportAssignment,
    SupportJudgment,
    SupportReceipt,
    SupportRevision,
)
from nuggets.services.support import citation_submit, support_assign, support_submit, support_withdraw
from tests.nuggets.support_world import make_world

pytestmark = pytest.mark.django_db
KEY = "k" * 16


@pytest.fixture
def world(answers):
    return make_world(answers)


@pytest.fixture
def official(world, ada, organizer):
    return support_assign(campaign=world.campaign, topic=world.topic, assessor=ada, by=organizer)[0]


def labels(world, *given, span=""):
    return {n.pk: (label, span) for n, label in zip(world.nuggets, given, strict=True)}


def test_assigning_freezes_the_bank_and_twice_is_harmless(world, ada, official):
    assert official.bank is not None and official.bank.number == 1
    assert [e["text"] for e in official.bank.nuggets] == [n.text for n in world.nuggets]
    again, created = support_assign(campaign=world.campaign, topic=world.topic, assessor=ada)
    assert (again.pk, created) == (official.pk, False)
    assert BankVersion.objects.filter(topic=world.topic).count() == 1


def test_a_topic_without_nuggets_or_answers_is_refused(world, answers, ada):
    other = answers.topics.get(topic_id="A.2")
    with pytest.raises(InputError, match="no answers"):
        support_assign(campaign=answers, topic=other, assessor=ada)
    Nugget.objects.filter(topic=world.topic).update(status=Nugget.Status.DELETED)
    with pytest.raises(InputError, match="no nuggets"):
        support_assign(campaign=answers, topic=world.topic, assessor=ada)
    assert not SupportAssignment.objects.exists()


def test_a_second_official_is_refused_but_a_dual_is_made(world, official, bob):
    with pytest.raises(InputError, match="ada holds its official"):
        support_assign(campaign=world.campaign, topic=world.topic, assessor=bob)
    dual, created = support_assign(campaign=world.campaign, topic=world.topic, assessor=bob, kind="dual")
    assert created and dual.bank_id == official.bank_id


def test_submit_then_revise_keeps_every_revision(world, official, ada):
    answer = world.answers[0]
    first = support_submit(assignment=official, answer=answer, user=ada,
                           labels=labels(world, "support", "partial_support", "not_support"))
    assert (first.created, first.complete, first.revision) == (3, True, 3)
    second = support_submit(assignment=official, answer=answer, user=ada,
                            labels=labels(world, "support", "support", "not_support"))
    assert (second.created, second.revised, second.unchanged, second.revision) == (0, 1, 2, 4)
    judgment = SupportJudgment.objects.get(assignment=official, answer=answer, nugget=world.nuggets[1])
    assert (judgment.label, judgment.revision) == ("support", 2)
    assert [(r.number, r.old_label, r.label) for r in judgment.revisions.all()] == [
        (1, "", "partial_support"), (2, "partial_support", "support")]


def test_a_resent_key_writes_nothing_twice(world, official, ada):
    answer = world.answers[0]
    first = support_submit(assignment=official, answer=answer, user=ada, key=KEY,
                           labels=labels(world, "support", "support", "support"))
    # Another value submitted since: the old key sent again must not bring the old labels back.
    support_submit(assignment=official, answer=answer, user=ada,
                   labels=labels(world, "not_support", "support", "support"))
    again = support_submit(assignment=official, answer=answer, user=ada, key=KEY,
                           labels=labels(world, "support", "support", "support"))
    assert again.repeated and (again.created, again.revision) == (first.created, first.revision)
    assert SupportRevision.objects.filter(judgment__assignment=official).count() == 4
    assert SupportJudgment.objects.get(assignment=official, answer=answer, nugget=world.nuggets[0]).label == \
        "not_support"
    assert SupportReceipt.objects.filter(assignment=official).count() == 1
    with pytest.raises(InputError, match="another answer"):
        support_submit(assignment=official, answer=world.answers[1], user=ada, key=KEY, labels={})


def test_labels_outside_the_bank_or_the_scale_are_refused(world, official, ada):
    late = Nugget.objects.create(campaign=world.campaign, topic=world.topic, text="added after the freeze",
                                 position=9)
    with pytest.raises(InputError, match=f"nugget {late.pk} is not in version 1"):
        support_submit(assignment=official, answer=world.answers[0], user=ada, labels={late.pk: ("support", "")})
    with pytest.raises(InputError, match="label 'maybe' is not one of"):
        support_submit(assignment=official, answer=world.answers[0], user=ada,
                       labels={world.nuggets[0].pk: ("maybe", "")})
    with pytest.raises(InputError, match="span is not a part"):
        support_submit(assignment=official, answer=world.answers[0], user=ada,
                       labels={world.nuggets[0].pk: ("support", "words nobody wrote")})
    assert not SupportJudgment.objects.exists()


def test_a_span_of_the_answer_is_kept(world, official, ada):
    support_submit(assignment=official, answer=world.answers[0], user=ada,
                   labels={world.nuggets[0].pk: ("support", "  is one\nthird. ")})
    assert SupportJudgment.objects.get().span == "is one third."


def test_a_closed_or_withdrawn_assignment_is_read_only(world, official, ada):
    support_withdraw(assignment=official)
    with pytest.raises(InputError, match="closed or withdrawn"):
        support_submit(assignment=official, answer=world.answers[0], user=ada,
                       labels=labels(world, "support", "support", "support"))
    assert not SupportJudgment.objects.exists()


def test_an_answer_of_another_topic_is_refused(world, answers, official, ada):
    other = make_world(answers, "A.2")
    with pytest.raises(InputError, match="is not an answer to topic A.1"):
        support_submit(assignment=official, answer=other.answers[0], user=ada, labels={})


def test_citation_labels_per_sentence_and_cited_post(world, ada):
    assignment = support_assign(campaign=world.campaign, topic=world.topic, assessor=ada, task="citations")[0]
    assert assignment.bank is None
    answer = world.answers[0]  # alpha: sentence 0 cites 10, sentence 1 cites 10 and 11
    result = citation_submit(assignment=assignment, answer=answer, user=ada,
                             labels={(0, "10"): "full", (1, "10"): "partial"})
    assert (result.created, result.complete) == (2, False)
    result = citation_submit(assignment=assignment, answer=answer, user=ada, key=KEY,
                             labels={(1, "10"): "none", (1, "11"): "full"})
    assert (result.created, result.revised, result.complete) == (1, 1, True)
    assert CitationRevision.objects.filter(judgment__citation="10", judgment__sentence__position=1).count() == 2
    with pytest.raises(InputError, match="does not cite 12"):
        citation_submit(assignment=assignment, answer=answer, user=ada, labels={(0, "12"): "full"})
    with pytest.raises(InputError, match="nugget assignment"):
        citation_submit(assignment=support_assign(campaign=world.campaign, topic=world.topic, assessor=ada)[0],
                        answer=answer, user=ada, labels={})
    assert CitationJudgment.objects.count() == 3


def test_progress_counts_answers_labelled_in_full(world, official, ada):
    support_submit(assignment=official, answer=world.answers[1], user=ada,
                   labels=labels(world, "support", "support", "support"))
    progress = selectors.support_progress(assignment=official)
    assert (progress.done, progress.total, progress.first_open) == (1, 2, 0)


def test_kappa_of_a_dual_assignment_against_the_official(world, official, ada, bob):
    dual = support_assign(campaign=world.campaign, topic=world.topic, assessor=bob, kind="dual")[0]
    a, b = world.answers
    support_submit(assignment=official, answer=a, user=ada, labels=labels(world, "support", "not_support",
                                                                          "not_support"))
    support_submit(assignment=official, answer=b, user=ada, labels=labels(world, "support", "support",
                                                                          "not_support"))
    support_submit(assignment=dual, answer=a, user=bob, labels=labels(world, "support", "not_support",
                                                                      "support"))
    support_submit(assignment=dual, answer=b, user=bob, labels=labels(world, "support", "support",
                                                                      "not_support"))
    report = selectors.support_agreement(campaign=world.campaign)
    cell = report.by_assignment[dual.pk]
    # 6 pairs: 5 agree; official support 3, not 3; dual support 4, not 2: p_e = (3*4 + 3*2) / 36 = 0.5
    assert cell.kappa.items == 6 and cell.kappa.value == pytest.approx((5 / 6 - 0.5) / 0.5)
    assert cell.rows == [("support", [3, 0, 0]), ("partial_support", [0, 0, 0]), ("not_support", [1, 0, 2])]
    assert report.by_topic[("A.1", "nuggets")].kappa.value == cell.kappa.value
    assert report.overall["nuggets"].kappa.items == 6
    assert official.pk not in report.by_assignment


def test_a_withdrawn_official_leaves_no_agreement(world, official, bob):
    dual = support_assign(campaign=world.campaign, topic=world.topic, assessor=bob, kind="dual")[0]
    official.withdrawn_at = timezone.now()
    official.save()
    assert dual.pk not in selectors.support_agreement(campaign=world.campaign).by_assignment


def test_a_run_whose_answers_have_labels_is_neither_deleted_nor_replaced(world, official, ada, tmp_path):
    """The labels protect their answers: deleting or replacing the run, even forced, is refused and nothing goes."""
    from pooling.services.undo import run_delete, run_replace

    answer = world.answers[0]
    support_submit(assignment=official, answer=answer, user=ada,
                   labels=labels(world, "support", "partial_support", "not_support"))
    before = SupportJudgment.objects.count(), SupportRevision.objects.count()
    with pytest.raises(InputError, match="was not deleted: its generated answers have support or citation labels"):
        run_delete(run=answer.run, judged_items={}, force=True)
    replacement = tmp_path / "run.tsv"
    replacement.write_text("A.1\t10\t1\t1.0\tx\n")
    with pytest.raises(InputError, match="was not replaced: its generated answers have support or citation labels"):
        run_replace(run=answer.run, judged_items={}, path=replacement, force=True)
    assert (SupportJudgment.objects.count(), SupportRevision.objects.count()) == before
    assert answer.run.__class__.objects.filter(pk=answer.run.pk).exists()


def test_a_campaign_with_support_assignments_is_refused_deletion_before_anything_goes(world, official, ada):
    """Refused at the first step, in the request: its runs keep their rows (docs/nuggets.md)."""
    from judging.services.pools import campaign_delete_start

    rows = world.answers[0].run.entries.count(), world.campaign.runs.count()
    with pytest.raises(InputError, match="is kept: it has support assignments"):
        campaign_delete_start(campaign=world.campaign)
    world.campaign.refresh_from_db()
    assert not world.campaign.deleting
    assert (world.answers[0].run.entries.count(), world.campaign.runs.count()) == rows

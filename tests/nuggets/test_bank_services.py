"""The nugget bank's services (docs/nuggets.md, "Nugget banks"): each change kept with who, when, before and after."""
import pytest

from ir.problems import InputError
from nuggets.models import BankVersion, Nugget, NuggetChange
from nuggets.selectors import bank_changed_since, bank_nuggets, campaign_banks, latest_version
from nuggets.services import bank as services
from tests.nuggets.bank_world import answers_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def topic(answers):
    return answers.topics.get(topic_id="A.1")


def texts(topic):
    return [n.text for n in bank_nuggets(topic=topic)]


def test_added_nuggets_go_to_the_end_of_the_bank_with_an_add_change(topic, organizer):
    first = services.nugget_add(topic=topic, text="  One  third ", importance="vital", user=organizer)
    services.nugget_add(topic=topic, text="The power rule", user=organizer)
    assert texts(topic) == ["One third", "The power rule"]
    change = NuggetChange.objects.get(nugget=first)
    assert (change.action, change.user, change.before) == ("add", organizer, {})
    assert change.after == {"text": "One third", "importance": "vital", "status": "accepted", "position": 0}
    assert first.source == Nugget.Source.WRITTEN


def test_a_selection_from_an_answer_keeps_the_answer(answers, organizer):
    topic, (alpha, _beta) = answers_of(answers)
    nugget = services.nugget_add(topic=topic, text="the power rule gives it", user=organizer, answer=alpha)
    assert (nugget.source, nugget.answer) == (Nugget.Source.SELECTED, alpha)


def test_a_selection_not_in_the_answer_or_of_another_topic_is_refused(answers, organizer):
    topic, (alpha, _beta) = answers_of(answers)
    with pytest.raises(InputError, match="not a part of the answer"):
        services.nugget_add(topic=topic, text="something else", user=organizer, answer=alpha)
    other = answers.topics.get(topic_id="A.2")
    with pytest.raises(InputError, match="not an answer to topic A.2"):
        services.nugget_add(topic=other, text="one third", user=organizer, answer=alpha)
    assert not Nugget.objects.exists()


def test_empty_text_and_unknown_importance_are_refused(topic):
    with pytest.raises(InputError, match="needs a text"):
        services.nugget_add(topic=topic, text="   ")
    with pytest.raises(InputError, match="neither vital nor okay"):
        services.nugget_add(topic=topic, text="x", importance="failed")


def test_edit_and_importance_keep_what_changed(topic, organizer):
    nugget = services.nugget_add(topic=topic, text="one third", user=organizer)
    services.nugget_edit(nugget=nugget, text="It is one third", user=organizer)
    services.nugget_importance(nugget=nugget, importance="vital", user=organizer)
    services.nugget_importance(nugget=nugget, importance="vital", user=organizer)  # no change, no record
    changes = list(NuggetChange.objects.filter(nugget=nugget).values_list("action", "before", "after"))
    assert changes == [("add", {}, {"text": "one third", "importance": "okay", "status": "accepted", "position": 0}),
                       ("edit", {"text": "one third"}, {"text": "It is one third"}),
                       ("importance", {"importance": "okay"}, {"importance": "vital"})]


def test_move_renumbers_the_bank_and_records_every_nugget_moved(topic, organizer):
    a, b, c = (services.nugget_add(topic=topic, text=t, user=organizer) for t in "abc")
    services.nugget_move(nugget=c, position=0, user=organizer)
    assert texts(topic) == ["c", "a", "b"]
    moves = NuggetChange.objects.filter(action="move")
    assert {(m.nugget_id, m.before["position"], m.after["position"]) for m in moves} == {
        (c.pk, 2, 0), (a.pk, 0, 1), (b.pk, 1, 2)}
    services.nugget_move(nugget=c, position=99, user=organizer)  # past the end: the end
    assert texts(topic) == ["a", "b", "c"]


def test_merge_takes_the_others_out_of_the_bank_pointing_at_the_kept_one(topic, organizer):
    a, b, c = (services.nugget_add(topic=topic, text=t, user=organizer) for t in ("one third", "1/3", "power rule"))
    services.nugget_merge(keep=a, others=[b], text="The integral is one third", user=organizer)
    b.refresh_from_db()
    assert (b.status, b.merged_into) == (Nugget.Status.MERGED, a)
    assert texts(topic) == ["The integral is one third", "power rule"]
    kept = NuggetChange.objects.get(nugget=a, action="merge")
    assert kept.after == {"text": "The integral is one third", "merged": [b.pk]}
    assert NuggetChange.objects.get(nugget=b, action="merge").after == {"status": "merged", "merged_into": a.pk}
    with pytest.raises(InputError, match="is merged"):
        services.nugget_merge(keep=c, others=[b], user=organizer)
    with pytest.raises(InputError, match="at least one other"):
        services.nugget_merge(keep=c, others=[c], user=organizer)


def test_delete_keeps_the_row_out_of_the_bank(topic, organizer):
    nugget = services.nugget_add(topic=topic, text="gone", user=organizer)
    services.nugget_delete(nugget=nugget, user=organizer)
    nugget.refresh_from_db()
    assert nugget.status == Nugget.Status.DELETED and texts(topic) == []
    with pytest.raises(InputError, match="deleted from the bank"):
        services.nugget_edit(nugget=nugget, text="back")


def test_drafts_are_accepted_into_the_bank_or_rejected(topic, organizer):
    services.nugget_add(topic=topic, text="written", user=organizer)
    kept, dropped = services.drafts_add(topic=topic, nuggets=[("drafted one", "vital"), ("drafted two", "okay"),
                                                              ("Written", "okay")], model="m1")
    assert [d.text for d in (kept, dropped)] == ["drafted one", "drafted two"]  # "Written" is in the bank already
    assert NuggetChange.objects.filter(action="draft").count() == 2
    assert texts(topic) == ["written"]
    services.draft_accept(nugget=kept, user=organizer)
    services.draft_reject(nugget=dropped, user=organizer)
    assert texts(topic) == ["written", "drafted one"]
    dropped.refresh_from_db()
    assert dropped.status == Nugget.Status.REJECTED
    with pytest.raises(InputError, match="a draft rejected"):
        services.draft_accept(nugget=dropped, user=organizer)


def test_a_bank_changed_after_its_freeze_makes_a_new_version_when_frozen_again(topic, organizer):
    nugget = services.nugget_add(topic=topic, text="one third", user=organizer)
    v1 = services.bank_freeze(topic=topic, user=organizer)
    assert services.bank_freeze(topic=topic, user=organizer) == v1
    assert not bank_changed_since(topic=topic, version=v1)
    services.nugget_edit(nugget=nugget, text="one third exactly", user=organizer)
    assert bank_changed_since(topic=topic, version=v1)
    [row] = [r for r in campaign_banks(campaign=topic.campaign) if r.topic == topic]
    assert (row.nuggets, row.version, row.changed) == (1, 1, True)
    v2 = services.bank_freeze(topic=topic, user=organizer)
    assert v2.number == 2 and latest_version(topic=topic) == v2
    assert BankVersion.objects.get(number=1).nuggets[0]["text"] == "one third"

"""Characterising answers (issue 17 point 4): the questions and their rules, the seeded samples of characterisation
assignments, the assessor's page and API, the organizer's page, API and command."""
import pytest

from characterisation import services as characterising
from ir.problems import InputError
from judging import rules, services
from judging.models import (
    Assignment,
    CharacterisationAnswer,
    CharacterisationQuestion,
    CharacterisationRevision,
    Judgment,
    SampleItem,
)
from judging.services.samples import sample_draw
from pooling.models import PoolItem
from tests.commands import command_output, rejected
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


def characterise(campaign, user, *topics, size=3, sizes=None):
    return characterising.characterisation_assign(campaign=campaign, assessors=[user], topic_ids=list(topics),
                                                  size=size, sizes=sizes).created[0]


@pytest.fixture
def asked(answers):
    characterising.questions_arqmath(campaign=answers)
    return answers


# -- questions and rules


def test_arqmath_questions_are_added_once_in_their_order(answers):
    added = characterising.questions_arqmath(campaign=answers)
    assert [(q.label, q.text) for q in added] == list(characterising.ARQMATH_QUESTIONS)
    assert characterising.questions_arqmath(campaign=answers) == []
    assert list(answers.characterisation_questions.values_list("label", "position")) == [("MG", 0), ("UI", 1)]


@pytest.mark.parametrize(("label", "text", "problem"), [
    ("", "Is it?", "must be 1 to 16 letters"),
    ("M G", "Is it?", "must be 1 to 16 letters"),
    ("A" * 17, "Is it?", "must be 1 to 16 letters"),
    ("X", "   ", "has no text"),
    ("X", "y" * 501, "longer than 500"),
    ("X", "a\x00b", "NUL"),
])
def test_a_question_is_refused_with_its_reason(answers, label, text, problem):
    with pytest.raises(InputError) as info:
        characterising.question_add(campaign=answers, label=label, text=text)
    assert problem in " ".join(info.value.messages())
    assert not CharacterisationQuestion.objects.exists()


def test_a_label_is_unique_per_campaign_and_formula_campaigns_have_no_questions(asked, formulas):
    with pytest.raises(InputError, match="labelled MG already"):
        characterising.question_add(campaign=asked, label="MG", text="Again?")
    with pytest.raises(InputError, match="judges formulas"):
        characterising.question_add(campaign=formulas, label="MG", text="Generated?")


@pytest.mark.parametrize(("given", "expected"), [
    ({"MG": "yes", "UI": "No"}, {"MG": True, "UI": False}),
    ({"MG": True}, {"MG": True}),
    ({"UI": "0"}, {"UI": False}),
])
def test_answers_are_yes_or_no(given, expected):
    assert rules.characterisation_answers(given, {"MG", "UI"}) == expected


def test_answers_refused_name_every_problem():
    with pytest.raises(InputError) as info:
        rules.characterisation_answers({"MG": "maybe", "XX": "yes"}, {"MG", "UI"})
    assert info.value.messages() == ["question MG: answer yes or no, not 'maybe'",
                                     "'XX' is not a question of this campaign (MG, UI)"]
    with pytest.raises(InputError, match="no answer given"):
        rules.characterisation_answers({}, {"MG"})


def test_sizes_are_read_and_checked():
    assert rules.sizes_parse("A.1=10, A.2=5\nA.3=1") == {"A.1": 10, "A.2": 5, "A.3": 1}
    with pytest.raises(InputError) as info:
        rules.sizes_parse("A.1=x A.2 A.1=2 A.1=3")
    assert len(info.value.messages()) == 3
    assert rules.characterisation_sizes(["A.1", "A.2"], 4, {"A.2": 7}) == {"A.1": 4, "A.2": 7}
    with pytest.raises(InputError) as info:
        rules.characterisation_sizes(["A.1"], None, {"A.9": 2})
    assert info.value.messages() == ["topic A.9: a size is given for it but it is not one of the topics assigned",
                                     "topic A.1: no sample size (give one for every topic, or one for all)"]
    with pytest.raises(InputError, match="1 to 1000 items, not 0"):
        rules.characterisation_sizes(["A.1"], 0, {})


# -- samples


def test_sample_draw_is_reproducible_nested_and_pinned():
    ids = [str(n) for n in range(100, 120)]
    drawn = sample_draw(item_ids=ids, size=5, seed=7, topic_id="A.301")
    assert drawn == sample_draw(item_ids=list(reversed(ids)), size=5, seed=7, topic_id="A.301")
    assert sample_draw(item_ids=ids, size=8, seed=7, topic_id="A.301")[:5] == drawn
    assert sample_draw(item_ids=ids, size=50, seed=7, topic_id="A.301").__len__() == 20
    assert sample_draw(item_ids=ids, size=5, seed=8, topic_id="A.301") != drawn
    # The same everywhere and in every release: a sample made again must not change.
    assert drawn == ["110", "114", "115", "108", "118"]


def test_characterisation_assignments_get_the_same_sample_in_pool_order(asked, ada, bob):
    mine = characterise(asked, ada, "A.1", size=2)
    theirs = characterise(asked, bob, "A.1", size=2)
    sample = list(mine.sample.values_list("item_id", flat=True))
    assert sample == list(theirs.sample.values_list("item_id", flat=True))
    positions = [PoolItem.objects.get(topic=mine.topic, item_id=i).position for i in sample]
    assert positions == sorted(positions) and len(sample) == 2
    assert set(sample) <= {"10", "11", "12"}


def test_sizes_per_topic_and_a_pool_smaller_than_the_sample(asked, ada):
    result = characterising.characterisation_assign(campaign=asked, assessors=[ada], topic_ids=["A.1", "A.2"], size=1,
                                              sizes={"A.2": 10})
    sizes = {a.topic.topic_id: a.sample.count() for a in result.created}
    assert sizes == {"A.1": 1, "A.2": 2}
    again = characterising.characterisation_assign(campaign=asked, assessors=[ada], topic_ids=["A.1"], size=3)
    assert again.created == [] and again.existing[0].sample.count() == 1  # kept its sample


def test_characterisation_needs_questions_a_pool_and_its_own_path(answers, ada, tmp_path):
    with pytest.raises(InputError, match="no characterisation question yet"):
        characterise(answers, ada, "A.1")
    with pytest.raises(InputError, match="made with a sample size"):
        assign(answers, ada, "A.1", kind="characterisation")
    with pytest.raises(InputError, match="not for official"):
        services.assignments_create(campaign=answers, assessors=[ada], topic_ids=["A.1"], sample_sizes={"A.1": 2})
    characterising.questions_arqmath(campaign=answers)
    PoolItem.objects.filter(topic__topic_id="A.2").delete()
    with pytest.raises(InputError, match="topic A.2 has no pool items"):
        characterise(answers, ada, "A.1", "A.2")
    assert not Assignment.objects.exists()


def test_grades_never_go_to_a_characterisation_assignment(asked, ada):
    lines = rejected("assign_topics", "--campaign", "answers", "--assessor", "ada", "--kind", "characterisation",
                     "A.1")
    assert lines == ["a characterisation assignment is made with a sample size (the Characterisation page, "
                     "`characterise`), and only it"]
    with pytest.raises(InputError) as info:
        services.judgments_import(campaign=asked, lines=["ada\tA.1\t10\t2\t\tcharacterisation"])
    assert info.value.messages() == ["line 1: a characterisation assignment is answered with its yes/no questions, "
                                     "not graded"]
    assert not Assignment.objects.exists()


def test_a_campaign_is_deleted_with_its_questions_and_samples_until_something_is_answered(asked, ada):
    a = characterise(asked, ada, "A.1")
    characterising.characterisation_submit(assignment_pk=a.pk, item_id=_item(a, 0), answers={"MG": "no"}, user=ada)
    with pytest.raises(InputError, match="kept"):
        services.campaign_delete(campaign=asked)
    CharacterisationRevision.objects.all().delete()  # (a test's shortcut: nothing else ever deletes an answer)
    CharacterisationAnswer.objects.all().delete()
    services.campaign_delete(campaign=asked)
    assert not (CharacterisationQuestion.objects.exists() or SampleItem.objects.exists()
                or Assignment.objects.exists())


def test_home_counts_the_sample_and_withdrawing_an_unanswered_one_removes_it(asked, ada, client):
    a = characterise(asked, ada, "A.1", size=2)
    client.force_login(ada)
    page = client.get("/assess/").content.decode()
    assert "0 of 2 judged" in page
    assert services.assignment_withdraw(assignment=a) == "deleted"
    assert not SampleItem.objects.exists()


# -- the assessor's page


@pytest.fixture
def sampled(asked, ada):
    return characterise(asked, ada, "A.1", size=3)


def _item(assignment, number):
    return SampleItem.objects.get(assignment=assignment, number=number).item_id


def test_the_page_shows_the_item_and_the_questions(client, ada, sampled):
    client.force_login(ada)
    assert client.get(f"/assess/assignments/{sampled.pk}/")["Location"] == \
        f"/assess/characterisations/{sampled.pk}/"
    assert client.get(f"/assess/characterisations/{sampled.pk}/")["Location"] == \
        f"/assess/characterisations/{sampled.pk}/items/0/"
    assert client.get(f"/assess/assignments/{sampled.pk}/items/0/")["Location"] == \
        f"/assess/characterisations/{sampled.pk}/items/0/"
    page = client.get(f"/assess/characterisations/{sampled.pk}/items/0/").content.decode()
    assert "How do I integrate" in page and "Was this answer machine-generated?" in page
    assert "Does it contain information unrelated to the question?" in page
    assert f"Answer {_item(sampled, 0)}" in page and "0 of 3 answered" in page
    assert "System failure" not in page  # questions, not grades


def test_answers_are_stored_revised_and_move_on(client, ada, sampled):
    client.force_login(ada)
    url = f"/assess/characterisations/{sampled.pk}/items/0/"
    item = _item(sampled, 0)
    response = client.post(url, {"item_id": item, "answer-MG": "yes", "answer-UI": "no"})
    assert response["Location"] == f"/assess/characterisations/{sampled.pk}/items/1/"
    stored = {a.question.label: a.answer for a in CharacterisationAnswer.objects.filter(item_id=item)}
    assert stored == {"MG": True, "UI": False}
    assert SampleItem.objects.get(assignment=sampled, number=0).completed_at is not None
    client.post(url, {"item_id": item, "answer-MG": "no", "answer-UI": "no"})
    mg = CharacterisationAnswer.objects.get(item_id=item, question__label="MG")
    assert (mg.answer, mg.revision) == (False, 2)
    assert list(CharacterisationRevision.objects.filter(answer=mg).values_list("number", "old", "new", "user")) == \
        [(1, None, True, ada.pk), (2, True, False, ada.pk)]
    page = client.get(url).content.decode()
    assert "1 of 3 answered" in page and "Saved: <strong>no</strong>" in page


def test_a_partial_answer_is_kept_and_the_item_stays_open(client, ada, sampled):
    client.force_login(ada)
    url = f"/assess/characterisations/{sampled.pk}/items/1/"
    response = client.post(url, {"item_id": _item(sampled, 1), "answer-UI": "yes"})
    assert response["Location"] == url
    assert CharacterisationAnswer.objects.count() == 1
    assert SampleItem.objects.get(assignment=sampled, number=1).completed_at is None
    assert client.get(f"/assess/characterisations/{sampled.pk}/")["Location"].endswith("/items/0/")


def test_refused_answers_and_closed_topics(client, ada, sampled):
    client.force_login(ada)
    url = f"/assess/characterisations/{sampled.pk}/items/0/"
    response = client.post(url, {"item_id": _item(sampled, 0), "answer-MG": "perhaps"})
    assert response.status_code == 400 and "answer yes or no" in response.content.decode()
    response = client.post(url, {"item_id": "other", "answer-MG": "yes"})
    assert response.status_code == 400 and "reload it" in response.content.decode()
    services.topic_close(topic=sampled.topic)
    response = client.post(url, {"item_id": _item(sampled, 0), "answer-MG": "yes"})
    assert response.status_code == 400 and "closed" in response.content.decode()
    assert not CharacterisationAnswer.objects.exists()


def test_nobody_reaches_another_assessors_sample_and_grades_are_refused(client, bob, ada, sampled):
    client.force_login(bob)
    assert client.get(f"/assess/characterisations/{sampled.pk}/items/0/").status_code == 404
    assert client.post(f"/assess/characterisations/{sampled.pk}/items/0/",
                       {"item_id": _item(sampled, 0), "answer-MG": "yes"}).status_code == 404
    with pytest.raises(InputError, match="not graded"):
        services.judgment_submit(assignment_pk=sampled.pk, item_id=_item(sampled, 0), user=ada,
                                 grades=[services.GradeInput(grade="2")])
    assert not Judgment.objects.exists() and not CharacterisationAnswer.objects.exists()


def test_a_question_added_later_reopens_items_and_an_answered_one_is_kept(client, ada, sampled):
    client.force_login(ada)
    item = _item(sampled, 0)
    client.post(f"/assess/characterisations/{sampled.pk}/items/0/", {"item_id": item, "answer-MG": "no",
                                                                     "answer-UI": "no"})
    extra = characterising.question_add(campaign=sampled.campaign, label="XX", text="Is it   short?")
    assert extra.text == "Is it short?"
    assert SampleItem.objects.get(assignment=sampled, number=0).completed_at is None
    characterising.question_delete(question=extra)
    assert SampleItem.objects.get(assignment=sampled, number=0).completed_at is not None
    with pytest.raises(InputError, match="has answers and is kept"):
        characterising.question_delete(question=CharacterisationQuestion.objects.get(label="MG"))


# -- the API


def test_the_assessor_api_gives_the_next_item_and_takes_answers(client, ada, sampled):
    client.force_login(ada)
    nxt = client.get(f"/api/characterisations/next/?assignment={sampled.pk}").json()
    assert nxt["number"] == 0 and nxt["item_id"] == _item(sampled, 0) and nxt["answers"] == {}
    assert [q["label"] for q in nxt["questions"]] == ["MG", "UI"]
    body = {"assignment": sampled.pk, "item_id": nxt["item_id"], "answers": {"MG": "yes", "UI": "no"}}
    response = client.post("/api/characterisations/", body, content_type="application/json")
    assert response.status_code == 201 and response.json()["complete"] is True
    again = client.post("/api/characterisations/", body, content_type="application/json")
    assert again.status_code == 200 and again.json()["unchanged"] == 2
    assert client.get(f"/api/characterisations/next/?assignment={sampled.pk}").json()["number"] == 1
    listed = client.get(f"/api/characterisations/?assignment={sampled.pk}").json()
    assert {(a["question"], a["answer"]) for a in listed["results"]} == {("MG", True), ("UI", False)}
    bad = client.post("/api/characterisations/", {**body, "answers": {"MG": "so-so"}},
                      content_type="application/json")
    assert bad.status_code == 400 and "answer yes or no" in bad.json()["problems"][0]
    assert client.get(f"/api/assignments/{sampled.pk}/next/").status_code == 400
    assert client.get("/api/characterisations/next/").status_code == 400


def test_the_organizer_api_adds_questions_assigns_and_reports(client, organizer, answers, ada):
    client.force_login(organizer)
    url = f"/api/campaigns/{answers.pk}/characterisation/"
    assert client.post(url, {"arqmath": True}, content_type="application/json").status_code == 201
    made = client.post(url, {"label": "XX", "text": "Short?"}, content_type="application/json").json()
    assert [q["label"] for q in made["questions"]] == ["MG", "UI", "XX"]
    response = client.post(url + "assign/", {"assessors": ["ada"], "topics": ["A.1", "A.2"], "sample": 2,
                                             "sizes": {"A.2": 1}}, content_type="application/json")
    assert response.status_code == 201
    assert sorted((r["topic"], r["sample"]) for r in response.json()["created"]) == [("A.1", 2), ("A.2", 1)]
    refused = client.post(url + "assign/", {"assessors": ["nobody"], "topics": ["A.1"], "sample": 2},
                          content_type="application/json")
    assert refused.status_code == 400 and "no account named 'nobody'" in refused.json()["problems"][0]
    report = client.get(url).json()
    assert report["topics"] == [] and report["runs"][0]["fractions"] == {"MG": None, "UI": None, "XX": None}


# -- the organizer's page and the command


def test_the_organizer_page_adds_questions_and_assigns(client, organizer, answers, ada):
    client.force_login(organizer)
    url = f"/campaigns/{answers.pk}/characterisation/"
    assert client.post(url, {"action": "arqmath"}).status_code == 302
    assert client.post(url, {"action": "question", "label": "M G", "text": "x"}).status_code == 400
    response = client.post(url, {"action": "assign", "assessors": [ada.pk], "topics": ["A.1"], "sample": "2"})
    assert response.status_code == 302
    page = client.get(url).content.decode()
    assert "Was this answer machine-generated?" in page and "0 / 2" in page and "No item has an answer yet" in page
    assert "1 characterisation assignment created." in page
    again = client.post(url, {"action": "assign", "assessors": [ada.pk], "topics": ["A.1"], "sample": "3"}, follow=True)
    assert "0 characterisation assignments created (1 was already assigned, samples unchanged)." in (
        again.content.decode())
    refused = client.post(url, {"action": "assign", "assessors": [ada.pk], "topics": ["A.1"], "sizes": "A.1=x"})
    assert refused.status_code == 400 and "is not TOPIC=N" in refused.content.decode()
    assert client.post(url, {"action": "delete", "question": "UI"}).status_code == 302
    assert list(CharacterisationQuestion.objects.values_list("label", flat=True)) == ["MG"]


def test_the_command_defines_questions_and_assigns(answers, ada):
    out, _ = command_output("characterise", "--campaign", "answers", "--arqmath-questions",
                            "--question", "XX=Is it short?", "--assessor", "ada", "--sample", "2",
                            "--size", "A.2=1", "A.1", "A.2")
    assert "question\tMG\tWas this answer machine-generated?\tadded" in out
    assert "A.1\tada\tsample 2\tassigned" in out and "A.2\tada\tsample 1\tassigned" in out
    listed, _ = command_output("characterise", "--campaign", "answers")
    assert listed.splitlines()[2] == "question\tXX\tIs it short?"
    lines = rejected("characterise", "--campaign", "answers", "--question", "YY=Fine?", "--assessor", "nobody",
                     "--sample", "1", "A.1")
    assert lines == ["no account named 'nobody': create it first (import_judgments and the assignments page create "
                     "accounts)"]
    assert not CharacterisationQuestion.objects.filter(label="YY").exists()  # all or nothing

"""The LLM co-assessor's support labels (docs/nuggets.md, "The LLM co-assessor on support"): nuggetizer's assigner
prompt against the tests' own chat-completions server, the labels kept apart per model and revised on a re-run, an
unread reply counted and never stored, blind and suggest modes on the support judging page, the model against the
official labels (kappa and confusion), and the scores and the export that never read the model's labels."""
import pytest
from django.core.management import call_command
from django.urls import reverse

from ir.problems import InputError
from jobs.models import Job
from llm.models import Endpoint
from nuggets import scores
from nuggets.llm_support import assigner_prompt, reply_labels
from nuggets.models import BankVersion, Nugget, SupportJudgment, SupportRevision
from nuggets.selectors import assignments_export
from nuggets.services.support import support_assign, support_llm_store, support_submit
from nuggets.support_selectors import llm_support_agreement, support_agreement
from pooling.models import Run
from tests.llm.server import Answer, ChatServer
from tests.nuggets.support_world import make_world

pytestmark = pytest.mark.django_db

# What the fake model says of each answer (by a words of its text), nugget by nugget in bank order.
LABELS = {"integral of x squared": ["support", "partial_support", "not_support"],
          "Riemann sums converge": ["not_support", "not_support", "support"]}


def labeller(labels=LABELS, unread=()):
    def answer(prompt: str, n: int) -> Answer:
        for words, given in labels.items():
            if words in prompt.split("Passage: ", 1)[1].split("\nNugget List:")[0]:
                if words in unread:
                    return Answer("The first nugget is supported, I think.")
                return Answer("```python\n" + repr([g.upper() if i == 0 else g for i, g in enumerate(given)])
                              + "\n```")
        return Answer("no idea")
    return answer


@pytest.fixture
def world(answers):
    return make_world(answers)


@pytest.fixture
def official(world, ada):
    return support_assign(campaign=world.campaign, topic=world.topic, assessor=ada)[0]


def llm_labels(model="assigner-1"):
    return {(j.answer.run.name, j.nugget.text): j.label
            for j in SupportJudgment.objects.filter(model=model).select_related("answer__run", "nugget")}


def test_the_assigner_prompt_is_nuggetizers():
    prompt = assigner_prompt(query="What is {x}?", context="An answer with $\\frac{1}{3}$.", nuggets=["a", "b"])
    assert prompt.startswith("You are NuggetizeAssignerLLM")
    assert "label each of the 2 nuggets either as support, partial_support, or not_support" in prompt
    assert "Search Query: What is {x}?\nPassage: An answer with $\\frac{1}{3}$.\nNugget List: ['a', 'b']" in prompt
    assert prompt.endswith("Only return the list of labels (List[str]). Do not explain.\nLabels:")


def test_a_reply_is_read_as_nuggetizer_reads_it():
    assert reply_labels('```python\n["Support", " not_support"]\n```', 2) == ["support", "not_support"]
    assert reply_labels('["support"]', 2) is None  # one label short
    assert reply_labels('["support", "maybe"]', 2) is None
    assert reply_labels("support, support", 2) is None


def test_the_command_stores_the_models_labels_apart_from_any_assignment(world, capsys):
    assert not BankVersion.objects.exists()
    with ChatServer(labeller(), logprobs="ignore") as server:
        Endpoint.objects.create(campaign=world.campaign, base_url=server.url, model="assigner-1")
        call_command("llm_assign_nuggets", "--campaign", "answers")
    out = capsys.readouterr().out
    assert "warning: topic A.2: no answers, skipped" in out
    assert "Labelled 2 answers of 1 topics with assigner-1: 6 labels new, 0 revised, 0 unchanged" in out
    assert server.requests == 2  # one prompt per answer: three nuggets fit in one window of ten
    assert "Passage: The integral of x squared from 0 to 1 is one third. The power rule gives it at once." in (
        server.prompts[0] + server.prompts[1])
    [version] = BankVersion.objects.all()  # the bank had no version: frozen now
    assert [n["text"] for n in version.nuggets] == [n.text for n in world.nuggets]
    assert llm_labels() == {
        ("alpha", "The integral equals one third"): "support", ("alpha", "The power rule applies"): "partial_support",
        ("alpha", "Riemann sums give the value"): "not_support",
        ("beta", "The integral equals one third"): "not_support", ("beta", "The power rule applies"): "not_support",
        ("beta", "Riemann sums give the value"): "support"}
    assert set(SupportJudgment.objects.values_list("assignment", "revision")) == {(None, 1)}
    assert set(SupportRevision.objects.values_list("source", "number", "user")) == {("llm", 1, None)}


def test_a_rerun_revises_what_changed_and_another_model_keeps_its_own(world, capsys):
    changed = {**LABELS, "integral of x squared": ["support", "support", "not_support"]}
    with ChatServer(labeller(), logprobs="ignore") as first:
        Endpoint.objects.create(campaign=world.campaign, base_url=first.url, model="assigner-1")
        call_command("llm_assign_nuggets", "--campaign", "answers", "--topic", "A.1")
    with ChatServer(labeller(changed), logprobs="ignore") as second:
        Endpoint.objects.filter(campaign=world.campaign).update(base_url=second.url)
        call_command("llm_assign_nuggets", "--campaign", "answers", "--topic", "A.1")
        call_command("llm_assign_nuggets", "--campaign", "answers", "--topic", "A.1", "--model", "assigner-2")
    out = capsys.readouterr().out
    assert "1 revised, 5 unchanged" in out
    revised = SupportJudgment.objects.get(model="assigner-1", answer__run__name="alpha",
                                          nugget__text="The power rule applies")
    assert (revised.label, revised.revision) == ("support", 2)
    assert list(revised.revisions.values_list("number", "old_label", "label", "source")) == [
        (1, "", "partial_support", "llm"), (2, "partial_support", "support", "llm")]
    assert SupportJudgment.objects.filter(model="assigner-1").count() == 6
    assert llm_labels("assigner-2") == llm_labels("assigner-1")  # the same replies, rows of its own
    assert SupportJudgment.objects.filter(model="assigner-2").count() == 6


def test_an_unreadable_reply_is_counted_in_the_job_and_stored_as_no_label(world, organizer, client,
                                                                          jobs_run_on_commit):
    client.force_login(organizer)
    page = client.get(reverse("support:assignments", args=[world.campaign.pk])).content.decode()
    assert "The campaign has no LLM endpoint yet" in page and 'id="llm-assign-form"' not in page
    with ChatServer(labeller(unread=("Riemann sums converge",)), logprobs="ignore") as server:
        Endpoint.objects.create(campaign=world.campaign, base_url=server.url, model="assigner-1")
        page = client.get(reverse("support:assignments", args=[world.campaign.pk])).content.decode()
        assert "Assign support with the LLM" in page
        response = client.post(reverse("support:assignments", args=[world.campaign.pk]),
                               {"action": "llm_assign", "topics": "A.1"})
    job = Job.objects.get(kind=Job.Kind.NUGGET_SUPPORT_LLM)
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.pk}/"
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.problems
    assert (job.result["answers"], job.result["created"], job.result["failed"], job.result["unlabelled"]) == (
        1, 3, 1, 3)
    assert "1 replies could not be read (3 labels not given)" in client.get(f"/jobs/{job.pk}/").content.decode()
    assert {run for run, _ in llm_labels()} == {"alpha"}  # beta's reply was no list of labels: nothing of it kept


def test_the_button_refuses_an_unknown_topic(world, organizer, client):
    Endpoint.objects.create(campaign=world.campaign, base_url="http://127.0.0.1:9/v1", model="m")
    client.force_login(organizer)
    response = client.post(reverse("support:assignments", args=[world.campaign.pk]),
                           {"action": "llm_assign", "topics": "Z.9"})
    assert response.status_code == 400 and "Z.9" in response.content.decode()
    assert not Job.objects.exists()


def test_a_bank_over_ten_nuggets_is_asked_ten_at_a_time(world, capsys):
    for n in range(9):
        Nugget.objects.create(campaign=world.campaign, topic=world.topic, text=f"extra nugget {n}", position=3 + n)

    def answer(prompt: str, n: int) -> Answer:
        count = 10 if "label each of the 10 nuggets" in prompt else 2
        return Answer(repr(["support"] * count))

    with ChatServer(answer, logprobs="ignore") as server:
        Endpoint.objects.create(campaign=world.campaign, base_url=server.url, model="assigner-1")
        call_command("llm_assign_nuggets", "--campaign", "answers", "--topic", "A.1")
    assert server.requests == 4
    assert sum("label each of the 2 nuggets" in p for p in server.prompts) == 2
    assert "Nugget List: ['extra nugget 7', 'extra nugget 8']" in "".join(server.prompts)
    assert SupportJudgment.objects.filter(model="assigner-1").count() == 24


# -- blind and suggest


def stored(world, official, model="assigner-1", labels=("support", "not_support", "partial_support")):
    return support_llm_store(answer=world.answers[0], bank=official.bank, model=model,
                             labels={n.pk: label for n, label in zip(world.nuggets, labels, strict=True)})


def test_the_judging_page_is_blind_to_the_models_labels_by_default(world, official, ada_client):
    stored(world, official)
    url = reverse("support:judge", args=[official.pk, 0])
    assert "llm-suggestion" not in ada_client.get(url).content.decode()  # no endpoint
    Endpoint.objects.create(campaign=world.campaign, base_url="http://127.0.0.1:9/v1", model="assigner-1")
    text = ada_client.get(url).content.decode()  # an endpoint, blind: its default mode
    assert "llm-suggestion" not in text and "suggested-" not in text and "assigner-1" not in text


def test_in_suggest_mode_the_page_shows_the_models_label_and_a_submit_records_it(world, official, ada_client):
    made = stored(world, official)
    assert made.created == 3
    stored(world, official, model="another")  # not the endpoint's model: never shown
    Endpoint.objects.create(campaign=world.campaign, base_url="http://127.0.0.1:9/v1", model="assigner-1",
                            mode="suggest")
    url = reverse("support:judge", args=[official.pk, 0])
    text = ada_client.get(url).content.decode()
    shown = {j.nugget_id: j for j in SupportJudgment.objects.filter(model="assigner-1")}
    one, two, three = world.nuggets
    assert text.count('class="llm-suggestion"') == 3
    assert ('<p class="llm-suggestion" data-llm-label="not_support">The LLM suggests <strong>not_support</strong> '
            '<small>(the label of the model assigner-1, not a person') in text
    assert f'name="suggested-{two.pk}" value="{shown[two.pk].pk}"' in text
    assert "another" not in text
    second = reverse("support:judge", args=[official.pk, 1])
    assert "llm-suggestion" not in ada_client.get(second).content.decode()  # the model has no label of beta
    data = {"answer": str(world.answers[0].pk), f"label-{one.pk}": "support", f"label-{two.pk}": "support",
            f"label-{three.pk}": "support", f"suggested-{one.pk}": str(shown[one.pk].pk),
            f"suggested-{two.pk}": str(shown[two.pk].pk)}
    assert ada_client.post(url, data, HTTP_ACCEPT="application/json").status_code == 200
    mine = {j.nugget_id: j for j in SupportJudgment.objects.filter(assignment=official)}
    assert [mine[n.pk].suggested for n in world.nuggets] == [True, True, False]
    assert [mine[n.pk].revisions.get().suggested for n in world.nuggets] == [True, True, False]


def test_a_suggestion_that_is_no_label_of_the_model_is_refused(world, official, ada_client):
    stored(world, official)
    one, two, three = world.nuggets
    llm_of_two = SupportJudgment.objects.get(model="assigner-1", nugget=two)
    url = reverse("support:judge", args=[official.pk, 0])
    data = {"answer": str(world.answers[0].pk), f"label-{one.pk}": "support", f"suggested-{one.pk}": llm_of_two.pk}
    response = ada_client.post(url, data, HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and f"suggestion {llm_of_two.pk} is no LLM label" in response.json()[
        "errors"][0]
    response = ada_client.post(url, {**data, f"suggested-{one.pk}": "x"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 400
    with pytest.raises(InputError, match="is no LLM label"):
        support_submit(assignment=official, answer=world.answers[0], labels={one.pk: ("support", "")},
                       suggestions={one.pk: official.pk + 10_000})
    assert not SupportJudgment.objects.filter(assignment=official).exists()


# -- the model against people


def labelled(world, official, labels):
    for answer, given in zip(world.answers, labels, strict=True):
        support_submit(assignment=official, answer=answer,
                       labels={n.pk: (label, "") for n, label in zip(world.nuggets, given, strict=True)})


def test_kappa_and_confusion_of_the_model_against_the_official_labels(world, official, organizer, client):
    labelled(world, official, [("support", "partial_support", "not_support"),
                               ("not_support", "not_support", "support")])
    for answer, given in zip(world.answers, [("support", "not_support", "not_support"),
                                             ("not_support", "not_support", "support")], strict=True):
        support_llm_store(answer=answer, bank=official.bank, model="assigner-1",
                          labels={n.pk: label for n, label in zip(world.nuggets, given, strict=True)})
    support_llm_store(answer=world.answers[0], bank=official.bank, model="assigner-2",
                      labels={world.nuggets[0].pk: "support"})
    first, second = llm_support_agreement(campaign=world.campaign)
    assert first.model == "assigner-1" and list(first.by_topic) == ["A.1"]
    # Pairs (official, model): (S, S) (P, N) (N, N) | (N, N) (N, N) (S, S): p_o = 5/6; p_e = (2*2 + 1*0 + 3*4)/36
    # = 4/9; kappa = (5/6 - 4/9) / (1 - 4/9) = 7/10.
    assert first.overall.kappa.value == pytest.approx(0.7) and first.overall.kappa.items == 6
    assert first.overall.labels == ["support", "partial_support", "not_support"]
    assert first.overall.confusion == [[2, 0, 0], [0, 0, 1], [0, 0, 3]]
    assert first.by_topic["A.1"].confusion == first.overall.confusion
    assert second.model == "assigner-2" and second.overall.kappa.items == 1
    assert second.overall.kappa.value is None  # one pair, both "support": chance agreement is total
    client.force_login(organizer)
    page = client.get(reverse("support:assignments", args=[world.campaign.pk])).content.decode()
    assert "The LLM against people" in page
    assert '<tr class="overall" data-model="assigner-1" data-topic=""><td>assigner-1</td><td><strong>all topics' \
           '</strong></td><td><strong>0.7000</strong>' in page
    assert support_agreement(campaign=world.campaign).overall == {}  # people's agreement reads no model


def test_the_scores_and_the_export_never_read_the_models_labels(world, official):
    labelled(world, official, [("support", "partial_support", "not_support"),
                               ("not_support", "not_support", "support")])
    runs = list(Run.objects.filter(campaign=world.campaign).order_by("name"))
    before = (scores.official_labels(campaign=world.campaign, runs=runs), assignments_export(campaign=world.campaign),
              scores.support_stamp(campaign=world.campaign))
    for answer in world.answers:
        support_llm_store(answer=answer, bank=official.bank, model="assigner-1",
                          labels={n.pk: "support" for n in world.nuggets})
    after = (scores.official_labels(campaign=world.campaign, runs=runs), assignments_export(campaign=world.campaign),
             scores.support_stamp(campaign=world.campaign))
    assert after == before
    assert after[0].nuggets["beta"]["A.1"] == [("vital", "not_support"), ("okay", "not_support"), ("okay", "support")]
    assert [n.assignment for n in after[1][0].nuggets] == ["support", "partial_support", "not_support"]

"""import_nugget_assignments and assign_support, and the same import on the organizer's support assignments page and
in the API: nuggetizer's assign output as an official assignment's labels, all or nothing, each refusal with its line
(docs/nuggets.md, "Importing nuggetizer's assignments")."""
import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token

from nuggets.models import SupportAssignment, SupportJudgment, SupportRevision
from nuggets.services.support import support_assign
from tests.factories import CampaignFactory, TopicFactory
from tests.nuggets.support_world import NUGGETS, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(answers):
    return make_world(answers)


def line(run, qid="A.1", labels=("support", "partial_support", "not_support"), texts=None):
    texts = texts or [text for text, _ in NUGGETS]
    return json.dumps({"query": "q", "qid": qid, "answer_text": "a", "response_length": 3, "run_id": run,
                       "nuggets": [{"text": t, "importance": "vital", "assignment": a}
                                   for t, a in zip(texts, labels, strict=True)]})


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_an_assign_file_becomes_the_official_labels(world, ada, tmp_path):
    path = tmp_path / "assign.jsonl"
    path.write_text(line("alpha") + "\n" + line("beta", labels=("support", "failed", "support")) + "\n")
    out, _ = run("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "A.1\tada\tofficial\tbank v1" in out and "5 labels created" in out and "1 left out" in out
    official = SupportAssignment.objects.get(kind="official")
    assert official.assessor == ada and official.bank is not None and official.bank.number == 1
    labels = {(j.answer.run.name, j.nugget.text): j.label for j in SupportJudgment.objects.all()}
    assert labels[("alpha", NUGGETS[1][0])] == "partial_support" and ("beta", NUGGETS[1][0]) not in labels
    assert set(SupportRevision.objects.values_list("source", flat=True)) == {"import"}
    # Again with one label changed: a revision, nothing doubled.
    path.write_text(line("alpha", labels=("support", "support", "not_support")) + "\n")
    out, _ = run("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "0 labels created, 1 revised, 2 unchanged" in out
    assert SupportJudgment.objects.count() == 5


def refused(*args) -> str:
    err = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command(*args, stdout=StringIO(), stderr=err)
    assert failed.value.returncode == 2
    return err.getvalue()


def test_unknown_runs_and_nuggets_are_refused_with_their_lines_and_nothing_written(world, ada, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([line("alpha"), line("nobody"),
                               line("beta", texts=[NUGGETS[0][0], NUGGETS[1][0], "a nugget nobody wrote"])]) + "\n")
    text = refused("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "line 2: no run named 'nobody'" in text
    assert "line 3: topic A.1: no nugget 'a nugget nobody wrote' in its bank" in text
    assert not SupportJudgment.objects.exists() and not SupportAssignment.objects.exists()


def test_an_unknown_topic_is_refused_with_its_line(world, ada, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(line("alpha") + "\n" + line("alpha", qid="A.9") + "\n")
    text = refused("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "line 2" in text and "A.9" in text
    assert not SupportJudgment.objects.exists()


def test_an_official_held_by_another_assessor_is_refused(world, bob, ada, tmp_path):
    support_assign(campaign=world.campaign, topic=world.topic, assessor=bob)
    path = tmp_path / "assign.jsonl"
    path.write_text(line("alpha") + "\n")
    text = refused("import_nugget_assignments", "--campaign", "answers", "--assessor", "ada", str(path))
    assert "line 1: topic A.1: bob holds its official nugget assignment" in text
    assert not SupportJudgment.objects.exists()


def test_assign_support_makes_an_assignment_and_refuses_a_topic_without_answers(world, ada):
    out, _ = run("assign_support", "--campaign", "answers", "--topic", "A.1", "--assessor", "ada", "--kind",
                 "training", "--round", "2")
    assert out == "A.1\tada\tnuggets\ttraining\tbank v1\tassigned\n"
    assert SupportAssignment.objects.get().round == 2
    out, _ = run("assign_support", "--campaign", "answers", "--topic", "A.1", "--assessor", "ada", "--task",
                 "citations")
    assert out == "A.1\tada\tcitations\tofficial\tassigned\n"
    assert "topic A.2 has no answers" in refused("assign_support", "--campaign", "answers", "--topic", "A.2",
                                                 "--assessor", "ada")


# -- the organizer's page and the API


def upload(*lines: str, name="assign.jsonl") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, "".join(f"{x}\n" for x in lines).encode(), content_type="application/x-ndjson")


def page_url(campaign_pk: int) -> str:
    return reverse("support:assignments", args=[campaign_pk])


def api_url(campaign_pk: int) -> str:
    return reverse("api-support-assignments-import", args=[campaign_pk])


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client


@pytest.fixture
def organizer_api(client, organizer):
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {Token.objects.create(user=organizer).key}"
    return client


def nothing_written() -> bool:
    return not SupportJudgment.objects.exists() and not SupportAssignment.objects.exists()


def test_the_page_imports_a_file_as_the_assessors_official_labels(organizer_client, world, ada):
    text = organizer_client.get(page_url(world.campaign.pk)).content.decode()
    assert 'id="support-import"' in text and 'enctype="multipart/form-data"' in text
    assert '<option value="ada">' in text  # the assessors the assign form offers
    response = organizer_client.post(page_url(world.campaign.pk), {
        "action": "import", "assessor": "ada",
        "file": upload(line("alpha"), line("beta", labels=("support", "failed", "support")))}, follow=True)
    assert response.redirect_chain[-1] == (page_url(world.campaign.pk), 302)
    shown = response.content.decode()
    assert ("Imported assign.jsonl as ada&#x27;s official labels: 5 labels created, 0 revised, 0 unchanged, "
            "1 left out") in shown
    official = SupportAssignment.objects.get()
    assert (official.assessor, official.kind, official.bank.number) == (ada, "official", 1)
    assert SupportJudgment.objects.count() == 5
    assert set(SupportRevision.objects.values_list("source", flat=True)) == {"import"}
    again = organizer_client.post(page_url(world.campaign.pk), {
        "action": "import", "assessor": "ada", "file": upload(line("alpha", labels=("support",) * 3))}, follow=True)
    assert "0 labels created, 2 revised, 1 unchanged, 0 left out" in again.content.decode()


def test_the_page_refuses_unknown_runs_topics_and_nuggets_with_their_lines(organizer_client, world, ada):
    url = page_url(world.campaign.pk)
    refused = organizer_client.post(url, {"action": "import", "assessor": "ada", "file": upload(
        line("alpha"), line("nobody"), line("beta", texts=[NUGGETS[0][0], NUGGETS[1][0], "a nugget nobody wrote"]))})
    assert refused.status_code == 400
    text = refused.content.decode()
    assert "Nothing was imported" in text and "line 2: no run named &#x27;nobody&#x27;" in text
    assert "line 3: topic A.1: no nugget &#x27;a nugget nobody wrote&#x27; in its bank" in text
    topic = organizer_client.post(url, {"action": "import", "assessor": "ada",
                                        "file": upload(line("alpha"), line("alpha", qid="A.9"))})
    assert topic.status_code == 400 and "line 2" in topic.content.decode() and "A.9" in topic.content.decode()
    assert nothing_written()


def test_the_page_refuses_garbage_with_a_400(organizer_client, world, ada):
    url = page_url(world.campaign.pk)
    cases = {
        "binary": {"action": "import", "assessor": "ada",
                   "file": SimpleUploadedFile("x.jsonl", bytes(range(256)) * 8)},
        "empty": {"action": "import", "assessor": "ada", "file": SimpleUploadedFile("x.jsonl", b"")},
        "no file": {"action": "import", "assessor": "ada"},
        "no assessor": {"action": "import", "file": upload(line("alpha"))},
        "unknown assessor": {"action": "import", "assessor": "nobody", "file": upload(line("alpha"))},
    }
    for case, data in cases.items():
        response = organizer_client.post(url, data)
        assert response.status_code == 400, case
        assert "Nothing was imported" in response.content.decode(), case
    binary = organizer_client.post(url, cases["binary"] | {"file": SimpleUploadedFile("x.jsonl", b"\x00\xff\n")})
    assert "x.jsonl:line 1: a NUL character" in binary.content.decode()
    assert nothing_written()


def test_an_assessor_may_not_import(ada_client, world, ada):
    assert ada_client.post(page_url(world.campaign.pk), {
        "action": "import", "assessor": "ada", "file": upload(line("alpha"))}).status_code == 403
    ada_client.defaults["HTTP_AUTHORIZATION"] = f"Token {Token.objects.create(user=ada).key}"
    assert ada_client.post(api_url(world.campaign.pk), {"assessor": "ada", "file": upload(line("alpha"))}
                           ).status_code == 403
    assert nothing_written()


def test_the_api_imports_and_answers_the_counts(organizer_api, world, ada):
    url = api_url(world.campaign.pk)
    first = organizer_api.post(url, {"assessor": "ada", "file": upload(
        line("alpha"), line("beta", labels=("support", "failed", "support")))})
    assert first.status_code == 201
    assert first.json() == {"topics": ["A.1"], "created": 5, "revised": 0, "unchanged": 0, "left_out": 1}
    again = organizer_api.post(url, {"assessor": "ada", "file": upload(line("alpha"))})
    assert again.status_code == 200
    assert again.json() == {"topics": ["A.1"], "created": 0, "revised": 0, "unchanged": 3, "left_out": 0}
    assert SupportAssignment.objects.get().assessor == ada


def test_the_api_refuses_a_bad_file_with_its_lines_and_writes_nothing(organizer_api, world, ada, bob):
    url = api_url(world.campaign.pk)
    bad = organizer_api.post(url, {"assessor": "ada", "file": upload(line("alpha"), line("nobody"))})
    assert bad.status_code == 400
    assert any("line 2: no run named 'nobody'" in p for p in bad.json()["problems"])
    topic = organizer_api.post(url, {"assessor": "ada", "file": upload(line("alpha", qid="A.9"))})
    assert topic.status_code == 400 and "A.9" in " ".join(topic.json()["problems"])
    support_assign(campaign=world.campaign, topic=world.topic, assessor=bob)
    held = organizer_api.post(url, {"assessor": "ada", "file": upload(line("alpha"))})
    assert held.status_code == 400
    assert held.json()["problems"] == ["assign.jsonl:line 1: topic A.1: bob holds its official nugget assignment"]
    assert not SupportJudgment.objects.exists()


def test_the_api_refuses_garbage_with_a_400(organizer_api, world, ada):
    url = api_url(world.campaign.pk)
    cases = {
        "binary": {"assessor": "ada", "file": SimpleUploadedFile("x.jsonl", bytes(range(256)) * 8)},
        "empty": {"assessor": "ada", "file": SimpleUploadedFile("x.jsonl", b"")},
        "no file": {"assessor": "ada"},
        "no assessor": {"file": upload(line("alpha"))},
        "unknown assessor": {"assessor": "nobody", "file": upload(line("alpha"))},
    }
    for case, data in cases.items():
        assert organizer_api.post(url, data).status_code == 400, case
    binary = organizer_api.post(url, cases["binary"] | {"file": SimpleUploadedFile("x.jsonl", b"\x00\xff\n")})
    assert binary.json()["problems"][0].startswith("x.jsonl:line 1: a NUL character")
    assert organizer_api.post(url, {"assessor": "ada", "file": "not a file"}).status_code == 400
    assert organizer_api.post(url, json.dumps({"assessor": "ada"}), content_type="application/json"
                              ).status_code == 415
    assert nothing_written()


def test_another_campaigns_id_is_not_found_or_refused(organizer_api, organizer_client, world, ada):
    missing = world.campaign.pk + 1000
    assert organizer_api.post(api_url(missing), {"assessor": "ada", "file": upload(line("alpha"))}
                              ).status_code == 404
    assert organizer_client.post(page_url(missing), {"action": "import", "assessor": "ada",
                                                     "file": upload(line("alpha"))}).status_code == 404
    # Another campaign with a topic A.1 but none of these runs: the file is refused there, nothing written here.
    other = CampaignFactory(name="other")
    TopicFactory(campaign=other, topic_id="A.1", position=0)
    refused = organizer_api.post(api_url(other.pk), {"assessor": "ada", "file": upload(line("alpha"))})
    assert refused.status_code == 400 and "no run named 'alpha' in campaign other" in refused.json()["problems"][0]
    assert nothing_written()

"""Run facts (team, primary/alternate, manual, baseline, data used, extracted/generated): read from ARQMath-style
names at ingest, kept when a run's file is replaced, edited on the run's facts page and by PATCH in the API."""
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from ir.problems import InputError
from judging.tasks import RunIngestParams
from pooling import services
from pooling.models import Campaign, Run
from tests.factories import CampaignFactory, TopicFactory


@pytest.fixture
def campaign(db):
    campaign = CampaignFactory(name="facts", task=Campaign.Task.ANSWERS, primary_depth=5, alternate_depth=2)
    TopicFactory(campaign=campaign, topic_id="A.1", position=0)
    return campaign


def upload(campaign, tmp_path, filename, **kw) -> Run:
    path = tmp_path / filename
    path.write_text("A.1\t10\t1\t2.0\tt\nA.1\t11\t2\t1.0\tt\n")
    return services.run_ingest(campaign=campaign, path=path, **kw)


NAME_FACTS = ("team", "alternate", "manual", "baseline", "data_used", "answer_type")  # what a run's name can say


def facts(run):
    return {fact: getattr(run, fact) for fact in NAME_FACTS}


@pytest.mark.parametrize("filename, expected", [
    ("DPRL-task1-RRF-auto-both-A.tsv", dict(team="DPRL", alternate=True, manual=False, baseline=False,
                                            data_used="both", answer_type="")),
    ("Baseline2022-task1-Tangent-S-manual-math-P.tsv", dict(team="Baseline2022", alternate=False, manual=True,
                                                             baseline=True, data_used="math", answer_type="")),
    ("TU_DBS-task3-QALD-auto-text-generate-P.tsv", dict(team="TU_DBS", alternate=False, manual=False,
                                                         baseline=False, data_used="text", answer_type="generate")),
    ("ensemble-task1.tsv", dict(team="", alternate=False, manual=False, baseline=False, data_used="",
                                answer_type="")),
])
def test_an_arqmath_style_name_gives_the_runs_facts(campaign, tmp_path, filename, expected):
    assert facts(upload(campaign, tmp_path, filename)) == expected


def test_marks_asked_for_at_upload_stand_whatever_the_name_says(campaign, tmp_path):
    run = upload(campaign, tmp_path, "DPRL-task1-RRF-auto-both-P.tsv", alternate=True, manual=True, baseline=True)
    assert (run.alternate, run.manual, run.baseline, run.team) == (True, True, True, "DPRL")


def test_a_run_given_another_name_takes_the_facts_of_its_file_name(campaign, tmp_path):
    run = upload(campaign, tmp_path, "MathDowsers-task1-L8-auto-both-P.tsv", name="dowsers best")
    assert (run.name, run.team, run.data_used) == ("dowsers best", "MathDowsers", "both")


def test_facts_given_as_run_options_stand_and_the_name_gives_the_others(campaign, tmp_path):
    run = upload(campaign, tmp_path, "DPRL-task1-RRF-auto-both-A.tsv", team="DPRL lab", answer_type="extract")
    assert facts(run) == dict(team="DPRL lab", alternate=True, manual=False, baseline=False, data_used="both",
                              answer_type="extract")
    # The run's own options carry its facts: a job replacing it reads them back as they were.
    options = services.run_options(run)
    assert (options["team"], options["data_used"], options["alternate"]) == ("DPRL lab", "both", True)
    params = RunIngestParams(upload="uploads/r.tsv", filename="r.tsv", options=options)
    assert RunIngestParams.from_json(params.to_json()) == params


def test_a_replaced_run_keeps_its_edited_facts(campaign, tmp_path):
    run = upload(campaign, tmp_path, "DPRL-task1-RRF-auto-both-A.tsv")
    services.run_facts_set(run=run, alternate=False, team="DPRL-2", data_used="math")
    replaced, _after = services.run_replace(run=run, judged_items={}, path=tmp_path / "DPRL-task1-RRF-auto-both-A.tsv")
    assert facts(replaced) == dict(team="DPRL-2", alternate=False, manual=False, baseline=False, data_used="math",
                                   answer_type="")


def test_bad_facts_are_refused_with_the_field_and_nothing_changes(campaign, tmp_path):
    run = upload(campaign, tmp_path, "DPRL-task1-RRF-auto-both-A.tsv")
    with pytest.raises(InputError) as info:
        services.run_facts_set(run=run, team="x" * 101, data_used="pictures")
    messages = info.value.messages()
    assert any(m.startswith("team:") and "at most 100" in m for m in messages)
    assert any(m.startswith("data_used:") and "'pictures' is not a valid choice" in m for m in messages)
    run.refresh_from_db()
    assert (run.team, run.data_used) == ("DPRL", "both")
    with pytest.raises(InputError, match="not a run fact: depth"):
        services.run_facts_set(run=run, depth=3)


def test_the_facts_page_edits_the_run(campaign, tmp_path, client, organizer):
    run = upload(campaign, tmp_path, "DPRL-task1-RRF-auto-both-A.tsv")
    client.force_login(organizer)
    url = reverse("evaluation:run_facts", args=[campaign.pk, run.pk])
    page = client.get(url)
    assert page.status_code == 200 and 'value="DPRL"' in page.content.decode()
    bad = client.post(url, {"team": "DPRL", "data_used": "pictures"})
    assert bad.status_code == 400 and "not one of the available choices" in bad.content.decode()
    done = client.post(url, {"team": "DPRL lab", "manual": "on", "data_used": "text", "answer_type": ""})
    assert done.status_code == 302
    run.refresh_from_db()
    # Unticked boxes are False: the run is primary now.
    assert facts(run) == dict(team="DPRL lab", alternate=False, manual=True, baseline=False, data_used="text",
                              answer_type="")
    assert "Facts of run" in client.get(reverse("workflow:campaign", args=[campaign.pk])).content.decode()


def test_the_api_patches_the_facts(campaign, tmp_path, client, organizer):
    run = upload(campaign, tmp_path, "DPRL-task1-RRF-auto-both-A.tsv")
    client.force_login(organizer)
    url = f"/api/campaigns/{campaign.pk}/runs/{run.pk}/"
    assert client.get(url).json()["team"] == "DPRL"
    answer = client.patch(url, {"team": "DPRL", "baseline": True, "answer_type": "extract"},
                          content_type="application/json")
    assert answer.status_code == 200
    assert (answer.json()["baseline"], answer.json()["answer_type"], answer.json()["alternate"]) == (
        True, "extract", True)
    refused = client.patch(url, {"data_used": "pictures"}, content_type="application/json")
    assert refused.status_code == 400
    assert refused.json() == {"data_used": ['"pictures" is not a valid choice.']}
    run.refresh_from_db()
    assert run.data_used == "both"


def test_the_llm_a_run_declares_is_a_fact_of_every_way_in(campaign, tmp_path, client, organizer):
    """Issue 26: the LLM a run reranks or generates with, given at upload (the service, ingest_run, the upload page
    and API), kept by a replace, edited on the facts page and by PATCH."""
    run = upload(campaign, tmp_path, "DPRL-task1-RRF-auto-both-A.tsv", llm_model="judge-7b")
    assert run.llm_model == "judge-7b" and services.run_options(run)["llm_model"] == "judge-7b"
    run, _after = services.run_replace(run=run, judged_items={}, path=tmp_path / "DPRL-task1-RRF-auto-both-A.tsv")
    assert run.llm_model == "judge-7b"  # the replacing run keeps it
    with pytest.raises(InputError, match="LLM model name is longer than 200"):
        upload(campaign, tmp_path, "long.tsv", llm_model="m" * 201)
    assert not Run.objects.filter(name="long").exists()

    client.force_login(organizer)
    url = reverse("evaluation:run_facts", args=[campaign.pk, run.pk])
    assert "LLM it uses" in client.get(url).content.decode()
    done = client.post(url, {"team": "DPRL", "alternate": "on", "data_used": "both", "llm_model": "llama-3-70b"})
    assert done.status_code == 302
    run.refresh_from_db()
    assert run.llm_model == "llama-3-70b"
    api = f"/api/campaigns/{campaign.pk}/runs/{run.pk}/"
    assert client.get(api).json()["llm_model"] == "llama-3-70b"
    patched = client.patch(api, {"llm_model": ""}, content_type="application/json")
    assert patched.status_code == 200 and patched.json()["llm_model"] == ""


def test_ingest_run_takes_the_llm_the_run_uses(campaign, tmp_path):
    path = tmp_path / "reranked.tsv"
    path.write_text("A.1\t10\t1\t2.0\tt\n")
    call_command("ingest_run", "--campaign", "facts", "--llm-model", "judge-7b", str(path), stdout=io.StringIO())
    assert Run.objects.get(name="reranked").llm_model == "judge-7b"
    plain = tmp_path / "plain.tsv"
    plain.write_text("A.1\t10\t1\t2.0\tt\n")
    call_command("ingest_run", "--campaign", "facts", str(plain), stdout=io.StringIO())
    assert Run.objects.get(name="plain").llm_model == ""


@pytest.mark.usefixtures("jobs_run_on_commit")
def test_the_upload_page_and_api_take_the_llm_the_run_uses(campaign, client, organizer):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{campaign.pk}/runs/upload/").content.decode()
    assert 'name="llm_model"' in page
    client.post(f"/campaigns/{campaign.pk}/runs/upload/",
                {"file": SimpleUploadedFile("page.tsv", b"A.1\t5\t1\t2.0\tt\n"), "llm_model": "judge-7b"})
    client.post(f"/api/campaigns/{campaign.pk}/runs/",
                {"file": SimpleUploadedFile("api.tsv", b"A.1\t5\t1\t2.0\tt\n"), "llm_model": "gpt-4o"})
    assert dict(Run.objects.values_list("name", "llm_model")) == {"page": "judge-7b", "api": "gpt-4o"}

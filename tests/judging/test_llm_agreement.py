"""The LLM co-assessor against people (issue 26, points 5 and 6): `agreement --kind llm` (TSV and JSON), the LLM rows
of the agreement dashboard and its API, the canaries' flip rate, and issue 25's facet kappa on the dashboard."""
import csv
import io
import json
import re

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from agreement import llm as llm_review
from judging import services
from llm.models import Endpoint
from tests.commands import command_output, rejected
from tests.factories import CanaryFactory, LlmGradeFactory, LlmPromptFactory
from tests.judging.fixtures import facets_judged_twice

pytestmark = pytest.mark.django_db

MODEL = "qwen2.5:7b"  # a model name with a colon, as Ollama's are: llm:qwen2.5:7b


def llm_grade(**fields):
    """An LLM grade by MODEL unless another model is named."""
    return LlmGradeFactory(**{"model": MODEL, **fields})

TOPIC = {"10": "A.1", "11": "A.1", "12": "A.1", "20": "A.2", "99": "A.2"}
# ada judges both topics officially, bob A.1 as its dual assessor. 99 is DK: left out of every comparison.
ADA = {"10": "3", "11": "2", "12": "0", "20": "1", "99": "DK"}
BOB = {"10": "2", "11": "0", "12": "0"}
# The model: 12 over-labelled relevant, 20 right, 99 graded (but ada's DK leaves it out).
LLM = {"10": 3, "11": 1, "12": 2, "20": 1, "99": 3}


def judge(campaign, name, grades, kind):
    lines = ["\t".join([name, TOPIC[item], item, grade, "unsure" if grade in ("SF", "DK") else "", kind])
             for item, grade in grades.items()]
    services.judgments_import(campaign=campaign, lines=lines)


def grade_all(campaign, grades, model="qwen2.5:7b", prompt=None):
    topics = {t.topic_id: t for t in campaign.topics.all()}
    for item, grade in grades.items():
        llm_grade(topic=topics[TOPIC[item]], item_id=item, grade=grade, model=model,
                        **({"prompt": prompt} if prompt else {}))


@pytest.fixture
def judged(answers):
    judge(answers, "ada", ADA, "official")
    judge(answers, "bob", BOB, "dual")
    grade_all(answers, LLM)
    return answers


def rows_of(out):
    lines = out.splitlines()
    assert lines[0] == "kind\tround\tassessor\tother\tscale\tkappa\titems"
    return {(r[2], r[3], r[4]): (r[5], r[6]) for r in (line.split("\t") for line in lines[1:]) if r[0] == "llm"}


def test_llm_rows_give_kappa_against_the_official_qrels_and_each_assessor(judged):
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "llm")
    rows = rows_of(out)
    assert {other for _name, other, _scale in rows} == {"qrels:official", "ada", "bob", "mean"}
    assert all(name == "llm:qwen2.5:7b" for name, _other, _scale in rows)
    common = ["10", "11", "12", "20"]  # 99: ada said DK
    llm, ada = [LLM[i] for i in common], [int(ADA[i]) for i in common]
    assert rows[("llm:qwen2.5:7b", "qrels:official", "graded")] == (f"{cohen_kappa_score(llm, ada):.4f}", "4")
    binary = cohen_kappa_score([g >= 2 for g in llm], [g >= 2 for g in ada])
    assert rows[("llm:qwen2.5:7b", "qrels:official", "binary")] == (f"{binary:.4f}", "4")
    weighted = cohen_kappa_score(llm, ada, labels=[0, 1, 2, 3], weights="linear")
    assert rows[("llm:qwen2.5:7b", "qrels:official", "weighted")] == (f"{weighted:.4f}", "4")
    alpha = krippendorff.alpha(reliability_data=np.array([llm, ada], dtype=float), value_domain=[0, 1, 2, 3],
                               level_of_measurement="ordinal")
    assert rows[("llm:qwen2.5:7b", "qrels:official", "alpha")] == (f"{alpha:.4f}", "4")
    # ada is the official assessor: the same numbers; bob judged A.1 only.
    assert rows[("llm:qwen2.5:7b", "ada", "graded")] == rows[("llm:qwen2.5:7b", "qrels:official", "graded")]
    bob = cohen_kappa_score([LLM[i] for i in BOB], [int(g) for g in BOB.values()])
    assert rows[("llm:qwen2.5:7b", "bob", "graded")] == (f"{bob:.4f}", "3")
    mean = (cohen_kappa_score(llm, ada) + bob) / 2
    assert rows[("llm:qwen2.5:7b", "mean", "graded")][0] == f"{mean:.4f}"


def test_llm_json_has_the_confusion_matrix_and_the_reasons(judged):
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "llm", "--format", "json")
    [llm] = json.loads(out)
    assert (llm["kind"], llm["assessor"], llm["model"], llm["graded"]) == ("llm", "llm:qwen2.5:7b", "qwen2.5:7b", 5)
    official = next(p for p in llm["pairs"] if p["other"] == "qrels:official")
    # Rows: the LLM's grade; columns: the official grade. 10: 3/3, 11: 1/2, 12: 2/0, 20: 1/1.
    assert official["confusion"]["grades"] == [0, 1, 2, 3]
    assert official["confusion"]["matrix"] == [[0, 0, 0, 0], [0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1]]
    assert official["graded"]["items"] == 4
    assert set(official) >= {"graded", "binary", "weighted", "alpha"}


def test_default_agreement_adds_the_llm_rows_after_the_assessors(judged):
    out, _ = command_output("agreement", "--campaign", "answers")
    kinds = [line.split("\t")[0] for line in out.splitlines()[1:]]
    assert kinds[0] == "dual" and kinds[-1] == "llm"
    assert kinds == sorted(kinds, key=lambda k: k == "llm")
    dual_only, _ = command_output("agreement", "--campaign", "answers", "--kind", "dual")
    assert "llm:" not in dual_only


def test_an_undefined_kappa_is_na_with_its_reason(answers):
    judge(answers, "ada", {"10": "0", "11": "0"}, "official")
    grade_all(answers, {"10": 0, "11": 0})
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "llm")
    assert rows_of(out)[("llm:qwen2.5:7b", "qrels:official", "graded")] == ("n/a", "2")
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "llm", "--format", "json")
    graded = json.loads(out)[0]["pairs"][0]["graded"]
    assert graded["value"] is None and "one category only" in graded["reason"]


def test_failures_canaries_and_older_prompt_versions_are_not_grades(judged):
    topic = judged.topics.get(topic_id="A.1")
    old = LlmPromptFactory(version=1)
    new = LlmPromptFactory(version=2)
    # The same model graded 10 with an older prompt version first: 0. The later grade (3, from the fixture) counts.
    llm_grade(topic=topic, item_id="10", grade=0, prompt=new, model="other")
    llm_grade(topic=topic, item_id="10", grade=3, prompt=old, model="other")
    llm_grade(topic=topic, item_id="11", grade=None, failure="no grade in the reply", model="other")
    canary = CanaryFactory(topic=topic, source_item_id="12")
    llm_grade(topic=topic, item_id="12", canary=canary, grade=3, model="other")
    [other] = llm_review.llm_agreement(campaign=judged, models=["other"])
    assert (other.graded, other.failures) == (1, 1)
    assert other.official is not None and other.official.items == 1
    assert other.official.confusion[3][3] == 1


def test_canaries_flip_rate_per_kind(judged):
    a1 = judged.topics.get(topic_id="A.1")
    a2 = judged.topics.get(topic_id="A.2")
    # Sources: 12 (official 0), 20 (official 1): not relevant; 10 (official 3) is relevant and never counts.
    for source, kind, grade in [("12", "instruction", 3), ("20", "instruction", 0), ("10", "instruction", 3),
                                ("12", "stuffed", 2), ("20", "stuffed", None)]:
        canary = CanaryFactory(topic=a1 if source != "20" else a2, source_item_id=source, kind=kind)
        if grade is not None:
            llm_grade(topic=canary.topic, item_id=source, canary=canary, grade=grade)
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "llm", "--format", "json")
    flips = {f["kind"]: f for f in json.loads(out)[0]["canaries"]}
    assert flips["instruction"] == {"kind": "instruction", "canaries": 3, "graded": 3, "source_not_relevant": 2,
                                    "flipped": 1, "flip_rate": 0.5}
    assert flips["stuffed"] == {"kind": "stuffed", "canaries": 2, "graded": 1, "source_not_relevant": 1,
                                "flipped": 1, "flip_rate": 1.0}
    # The canaries' grades stay out of the agreement: still 5 pool items graded.
    assert json.loads(out)[0]["graded"] == 5


def test_a_round_with_the_llm_kind_is_rejected(judged):
    assert any("round" in line for line in rejected("agreement", "--campaign", "answers", "--kind", "llm",
                                                    "--round", "1"))


def test_several_models_each_have_their_rows(judged):
    grade_all(judged, {"10": 3, "11": 2, "12": 0, "20": 1}, model="gpt-4o")
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "llm")
    names = {name for name, _other, _scale in rows_of(out)}
    assert names == {"llm:gpt-4o", "llm:qwen2.5:7b"}
    assert rows_of(out)[("llm:gpt-4o", "qrels:official", "graded")] == ("1.0000", "4")


def test_formula_campaign_compares_instances(formulas):
    # A formulas campaign: the LLM grades each instance, as assessors do.
    from judging.models import Judgment
    from pooling.models import PoolInstance

    instances = list(PoolInstance.objects.filter(item__campaign=formulas, selected=True)
                     .values_list("item__topic__topic_id", "item__item_id", "formula_id"))
    assert instances
    lines = ["\t".join(["ada", t, f, "3" if n % 2 else "0", "", "official"]) for n, (t, _v, f) in enumerate(instances)]
    services.judgments_import(campaign=formulas, lines=lines)
    assert Judgment.objects.filter(assignment__campaign=formulas).count() == len(instances)
    topics = {t.topic_id: t for t in formulas.topics.all()}
    for n, (t, visual, f) in enumerate(instances):
        llm_grade(topic=topics[t], item_id=visual, formula_id=f, grade=3 if n % 2 else 0)
    [llm] = llm_review.llm_agreement(campaign=formulas)
    assert llm.official is not None
    assert llm.official.items == len(instances)
    assert llm.official.graded.value == pytest.approx(1.0)
    assert llm.official.confusion[0][0] + llm.official.confusion[3][3] == len(instances)


def test_the_endpoint_model_names_the_default_when_several_graded(judged):
    from llm import selectors

    grade_all(judged, {"10": 3}, model="gpt-4o")
    Endpoint.objects.create(campaign=judged, base_url="http://127.0.0.1:1/v1", model="gpt-4o")
    assert selectors.llm_model_chosen(campaign=judged) == "gpt-4o"
    Endpoint.objects.filter(campaign=judged).delete()
    with pytest.raises(Exception, match="several models"):
        selectors.llm_model_chosen(campaign=judged)


# -- the dashboard, its CSV and the API


def test_dashboard_shows_the_llm_rows_confusion_and_flip_rate(judged, client, organizer):
    a1 = judged.topics.get(topic_id="A.1")
    canary = CanaryFactory(topic=a1, source_item_id="12", kind="instruction")
    llm_grade(topic=a1, item_id="12", canary=canary, grade=3)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{judged.pk}/agreement/?kind=dual").content.decode()
    section = page[page.index('id="llm-agreement"'):]
    assert "llm:qwen2.5:7b" in section
    common = ["10", "11", "12", "20"]
    kappa = cohen_kappa_score([LLM[i] for i in common], [int(ADA[i]) for i in common])
    official_row = re.search(r'<tr class="llm-official">(.*?)</tr>', section, re.S).group(1)
    assert f"{kappa:.4f}" in official_row and "official qrels" in official_row
    # The confusion matrix against the official qrels: LLM 2 / official 0 is item 12.
    confusion = re.search(r'<table class="data matrix confusion".*?</table>', section, re.S).group(0)
    llm_2 = re.search(r"<th scope=\"row\">LLM 2</th>(.*?)</tr>", confusion, re.S).group(1)
    assert re.findall(r">(\d+)</td>", llm_2) == ["1", "0", "0", "0", "1"]
    flips = re.search(r'<table class="data flips".*?</table>', section, re.S).group(0)
    assert "planted instruction" in flips and '<td class="num flip-rate">1.00</td>' in flips


def test_dashboard_of_a_campaign_with_only_llm_grades_shows_them(answers, client, organizer):
    grade_all(answers, {"10": 3})
    client.force_login(organizer)
    page = client.get(f"/campaigns/{answers.pk}/agreement/").content.decode()
    assert "No training round and no dual assessment yet" not in page
    assert 'id="llm-rows"' in page and "no item graded by both" in page


def test_csv_and_api_carry_the_llm_rows(judged, client, organizer):
    client.force_login(organizer)
    csv_text = client.get(f"/campaigns/{judged.pk}/agreement.csv?kind=llm").content.decode()
    rows = list(csv.reader(io.StringIO(csv_text)))
    assert rows[0][-1] == "reason" and {r[0] for r in rows[1:]} == {"llm"}
    assert ["llm", "-", "llm:qwen2.5:7b", "qrels:official", "weighted"] in [r[:5] for r in rows]
    everything = client.get(f"/campaigns/{judged.pk}/agreement.csv").content.decode()
    assert "dual," in everything and "llm:qwen2.5:7b" in everything
    api = client.get(f"/api/campaigns/{judged.pk}/agreement/", {"kind": "llm"}).json()
    assert api["groups"] == [] and api["llm"][0]["assessor"] == "llm:qwen2.5:7b"
    assert api["llm"][0]["pairs"][0]["confusion"]["matrix"][2][0] == 1
    assert client.get(f"/api/campaigns/{judged.pk}/agreement/", {"kind": "llm", "round": "1"}).status_code == 400


def test_assessors_never_reach_the_llm_agreement(judged, client):
    from tests.factories import UserFactory

    client.force_login(UserFactory(username="cy"))
    assert client.get(f"/campaigns/{judged.pk}/agreement/").status_code == 403
    assert client.get(f"/api/campaigns/{judged.pk}/agreement/", {"kind": "llm"}).status_code == 403


def test_dashboard_shows_kappa_per_facet(answers, ada, bob, client, organizer):
    facets_judged_twice(answers, ada, bob)
    client.force_login(organizer)
    page = client.get(f"/campaigns/{answers.pk}/agreement/?kind=dual").content.decode()
    table = re.search(r'<table class="data" id="facet-kappas">.*?</table>', page, re.S).group(0)
    assert re.search(r'data-facet="totality">1\.0000 <small>\(3 items\)', table)
    assert re.search(r'data-facet="directness">-0\.5000 <small>\(3 items\)', table)
    assert table.count("<tr>") == 2  # the header, and the pair once


def test_facet_rows_of_the_csv_carry_their_reason(answers, client, organizer):
    from ir import grades
    from judging.models import Assignment
    from tests.factories import UserFactory

    answers.scheme = grades.preset("mo-facets").to_json()
    answers.save()
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    topic = answers.topics.get(topic_id="A.1")
    for user, kind in ((ada, "official"), (bob, "dual")):
        a = Assignment.objects.create(campaign=answers, topic=topic, assessor=user, kind=kind)
        for item in ("10", "11"):  # both answer "total" every time: totality's kappa is undefined
            services.judgment_submit(assignment_pk=a.pk, item_id=item, user=user, grades=[services.GradeInput(
                grade="", facets={"totality": "total", "directness": "direct" if item == "10" else "indirect"})])
    client.force_login(organizer)
    rows = list(csv.reader(io.StringIO(client.get(f"/campaigns/{answers.pk}/agreement.csv?kind=dual")
                                       .content.decode())))
    totality = next(r for r in rows if r[2] == "ada" and r[4] == "facet:totality")
    assert totality[5] == "n/a" and "one category only" in totality[7]

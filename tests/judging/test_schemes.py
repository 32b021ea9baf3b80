"""A judging scheme per campaign (docs/judging.md, "Judging schemes"): each preset and a custom scheme, seen through
create_campaign, the judging page's buttons and keys, the API, import_judgments, the qrels export and kappa."""
import json
import re

import pytest

from ir import grades
from ir.problems import InputError
from judging import services
from judging.models import Judgment
from pooling.models import Campaign, PoolItem
from tests.commands import command_output, rejected
from tests.judging.fixtures import assign, facets_judged_twice
from tests.pooling.undo_data import token_client

pytestmark = pytest.mark.django_db

CUSTOM = {"grades": [{"value": 2, "label": "Useful", "key": "u", "definition": "helps"},
                     {"value": 0, "label": "Useless", "key": "x", "definition": "does not help"}],
          "marks": ["DK"], "relevance_level": 2}
# Each scheme: (buttons as value and key, in order), a grade it lacks.
EXPECTED = {
    "arqmath": ([("3", "3"), ("2", "2"), ("1", "1"), ("0", "0"), ("SF", "f"), ("DK", "d")], "4"),
    "trec-binary": ([("1", "1"), ("0", "0")], "2"),
    "trec-3": ([("2", "2"), ("1", "1"), ("0", "0")], "SF"),
    "trec-4": ([("3", "3"), ("2", "2"), ("1", "1"), ("0", "0")], "DK"),
    "custom": ([("2", "u"), ("0", "x"), ("DK", "d")], "1"),
}


def _scheme(name: str) -> grades.Scheme:
    return grades.scheme_from_json({"name": "custom", **CUSTOM}) if name == "custom" else grades.preset(name)


def _use(campaign: Campaign, name: str) -> Campaign:
    scheme = _scheme(name)
    campaign.scheme, campaign.relevance_level = scheme.to_json(), scheme.relevance_level
    campaign.save()
    return campaign


@pytest.mark.parametrize("name", list(EXPECTED))
def test_the_judging_page_shows_the_scheme_s_buttons_and_keys(name, answers, ada, ada_client):
    a = assign(_use(answers, name), ada, "A.1")
    page = ada_client.get(f"/assess/assignments/{a.pk}/items/0/").content.decode()
    buttons = re.findall(r'name="grade" value="([^"]+)" data-key="([^"]+)"', page)
    assert buttons == EXPECTED[name][0]
    for g in _scheme(name).grades:
        assert f"<kbd>{g.key}</kbd> {g.label}" in page and g.definition in page


@pytest.mark.parametrize("name", list(EXPECTED))
def test_the_api_takes_the_scheme_s_grades_only(name, answers, ada, ada_api):
    a = assign(_use(answers, name), ada, "A.1")
    buttons, lacking = EXPECTED[name]

    def post(grade, item):
        body = {"assignment": a.pk, "item_id": item, "grades": [{"grade": grade, "comment": "why"}]}
        return ada_api.post("/api/judgments/", body, content_type="application/json")

    assert post(buttons[0][0], "10").status_code == 201
    refused = post(lacking, "11")
    assert refused.status_code == 400 and f"'{lacking}' is not a grade: use " in json.dumps(refused.json())
    assert list(Judgment.objects.values_list("item_id", "grade")) == [("10", buttons[0][0])]


@pytest.mark.parametrize("name", list(EXPECTED))
def test_import_exports_and_kappa_follow_the_scheme(name, answers, tmp_path):
    _use(answers, name)
    buttons, lacking = EXPECTED[name]
    top, bottom = buttons[0][0], [v for v, _ in buttons if v.isdigit()][-1]
    bad = tmp_path / "bad.tsv"
    bad.write_text(f"ada\tA.1\t10\t{top}\t\nada\tA.1\t11\t{lacking}\tx\n")
    assert rejected("import_judgments", "--campaign", "answers", str(bad)) == [
        f"bad.tsv:line 2: '{lacking}' is not a grade: use {', '.join(v for v, _ in buttons[:-1])} or {buttons[-1][0]}"]
    good = tmp_path / "good.tsv"
    good.write_text(f"ada\tA.1\t10\t{top}\t\nada\tA.1\t11\t{bottom}\t\nada\tA.1\t12\t{top}\t\n"
                    f"bob\tA.1\t10\t{top}\t\tdual\nbob\tA.1\t11\t{bottom}\t\tdual\nbob\tA.1\t12\t{bottom}\t\tdual\n")
    command_output("import_judgments", "--campaign", "answers", str(good))
    qrels, _ = command_output("export_qrels", "--campaign", "answers")
    assert qrels.splitlines() == [f"A.1\t0\t10\t{top}", f"A.1\t0\t11\t{bottom}", f"A.1\t0\t12\t{top}"]
    kappa, _ = command_output("agreement", "--campaign", "answers", "--kind", "dual")
    rows = {(r[2], r[4]): r[5:] for r in (line.split("\t") for line in kappa.splitlines()[1:])}
    # Two of three items agree (p_o 2/3); ada gives the top grade to 2 of 3, bob to 1 of 3 (p_e 4/9): kappa 2/5.
    assert rows[("ada", "graded")] == ["0.4000", "3"] and rows[("ada", "binary")] == ["0.4000", "3"]


def test_create_campaign_takes_a_preset_or_a_scheme_file(tmp_path):
    out, _ = command_output("create_campaign", "trec", "--task", "answers", "--scheme", "trec-4")
    assert out.endswith("relevance level 2, scheme trec-4\n")
    assert Campaign.objects.get(name="trec").judging_scheme == grades.preset("trec-4")
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(CUSTOM))
    command_output("create_campaign", "mine", "--task", "answers", "--scheme", str(path))
    assert Campaign.objects.get(name="mine").judging_scheme == _scheme("custom")
    out, _ = command_output("create_campaign", "plain", "--task", "answers")
    assert "scheme" not in out and Campaign.objects.get(name="plain").scheme == {}
    path.write_text(json.dumps({"grades": [{"value": 1, "label": "Yes", "key": "n"}]}))
    assert rejected("create_campaign", "bad", "--task", "answers", "--scheme", str(path)) == [
        "grade 1: key 'n' must be one character, not taken by another grade nor one of ? b d f j k n s",
        "a scheme has at least two grades"]
    assert rejected("create_campaign", "bad", "--task", "answers", "--scheme", "trec-9") == [
        "unknown scheme 'trec-9': use arqmath, trec-binary, trec-3, trec-4, mo-facets, or a scheme file FILE.json"]


def test_a_facet_combination_maps_to_the_organizer_s_grade():
    scheme = grades.preset("mo-facets")
    table = {(t, d): scheme.grade_of({"totality": t, "directness": d})
             for t in ("total", "partial", "none") for d in ("direct", "indirect")}
    assert table == {("total", "direct"): 3, ("total", "indirect"): 2, ("partial", "direct"): 2,
                     ("partial", "indirect"): 1, ("none", "direct"): 0, ("none", "indirect"): 0}
    with pytest.raises(InputError) as info:
        scheme.grade_of({"totality": "most"})
    assert info.value.messages() == ["totality: answer total, partial, none, not 'most'",
                                     "directness: answer direct, indirect, not ''"]
    # The organizer's own table, and one that misses a combination.
    data = scheme.to_json()
    data["table"][0]["grade"] = 2
    assert grades.scheme_from_json(data).grade_of({"totality": "total", "directness": "direct"}) == 2
    del data["table"][0]
    with pytest.raises(InputError, match=r"total \+ direct needs one of the grades \(3, 2, 1, 0\)"):
        grades.scheme_from_json(data)


def test_the_settings_page_shows_the_scheme_as_assessors_see_it(client, organizer, answers):
    client.force_login(organizer)
    _use(answers, "trec-4")
    page = client.get(f"/campaigns/{answers.pk}/settings/").content.decode()
    assert "Judging scheme: trec-4" in page and "<kbd>3</kbd> Perfectly relevant (3)" in page
    assert "Has nothing to do with the query" in page and "System failure" not in page
    answers.scheme = grades.preset("mo-facets").to_json()
    answers.save()
    page = client.get(f"/campaigns/{answers.pk}/settings/").content.decode()
    assert "Does it answer the whole question?" in page and "<kbd>t</kbd> Total" in page
    assert "<tr><td>partial</td><td>indirect</td><td class=\"num\">1</td></tr>" in page


def test_the_campaigns_page_and_the_api_create_a_campaign_with_a_scheme(client, organizer):
    client.force_login(organizer)
    client.post("/campaigns/", {"name": "bin", "task": "answers", "scheme": "trec-binary"})
    assert Campaign.objects.get(name="bin").judging_scheme == grades.preset("trec-binary")
    made = client.post("/api/campaigns/", {"name": "mine", "task": "answers", "scheme": CUSTOM},
                       content_type="application/json")
    assert made.status_code == 201 and made.json()["scheme"] == _scheme("custom").to_json()
    refused = client.post("/api/campaigns/", {"name": "bad", "task": "answers", "scheme": "trec-9"},
                          content_type="application/json")
    assert refused.status_code == 400 and "a preset's name" in json.dumps(refused.json())
    assert not Campaign.objects.filter(name="bad").exists()


def test_facets_are_answered_on_the_page_and_by_the_api_and_give_the_mapped_grade(answers, ada, ada_client, ada_api,
                                                                                    tmp_path):
    answers.scheme = grades.preset("mo-facets").to_json()
    answers.save()
    a = assign(answers, ada, "A.1")
    page = ada_client.get(f"/assess/assignments/{a.pk}/items/0/").content.decode()
    assert re.findall(r'name="(facet-\w+)" value="(\w+)" data-key="(\w)"', page) == [
        ("facet-totality", "total", "t"), ("facet-totality", "partial", "p"), ("facet-totality", "none", "o"),
        ("facet-directness", "direct", "r"), ("facet-directness", "indirect", "i")]
    assert re.findall(r'name="grade" value="([^"]+)"', page) == ["SF", "DK"]  # the grade comes from the facets
    at = PoolItem.objects.get(topic=a.topic, item_id="10").position
    ada_client.post(f"/assess/assignments/{a.pk}/items/{at}/", {"item_id": "10", "facet-totality": "partial",
                                                              "facet-directness": "indirect", "comment": ""})
    body = {"assignment": a.pk, "item_id": "11", "grades": [{"facets": {"totality": "total", "directness": "direct"}}]}
    assert ada_api.post("/api/judgments/", body, content_type="application/json").status_code == 201
    assert sorted(Judgment.objects.values_list("item_id", "grade", "facets")) == [
        ("10", "1", {"totality": "partial", "directness": "indirect"}),
        ("11", "3", {"totality": "total", "directness": "direct"})]
    half = {"assignment": a.pk, "item_id": "12", "grades": [{"facets": {"totality": "total"}}]}
    refused = ada_api.post("/api/judgments/", half, content_type="application/json")
    assert refused.status_code == 400 and "directness: answer direct, indirect, not ''" in json.dumps(refused.json())
    # The page shows the saved answers; the qrels take the mapped grades.
    page = ada_client.get(f"/assess/assignments/{a.pk}/items/{at}/").content.decode()
    assert 'value="partial" data-key="p" checked' in page and "Saved: <strong>Low</strong>" in page
    target = tmp_path / "facets.tsv"
    qrels, err = command_output("export_qrels", "--campaign", "answers", "--facets", str(target))
    assert qrels.splitlines() == ["A.1\t0\t10\t1", "A.1\t0\t11\t3"]
    assert target.read_text().splitlines() == ["topic\titem_id\ttotality\tdirectness\tgrade",
                                               "A.1\t10\tpartial\tindirect\t1", "A.1\t11\ttotal\tdirect\t3"]
    assert err.startswith(f"{target}: the facets of 2 judgments\n")


def test_edit_campaign_changes_the_scheme_until_judging_starts(answers, tmp_path):
    out, _ = command_output("edit_campaign", "answers", "--scheme", "trec-binary")
    assert out.startswith("campaign 'answers'") and "relevance level 1" in out and out.endswith("scheme trec-binary\n")
    assert Campaign.objects.get(name="answers").judging_scheme == grades.preset("trec-binary")
    (tmp_path / "j.tsv").write_text("ada\tA.1\t10\t1\t\n")
    command_output("import_judgments", "--campaign", "answers", str(tmp_path / "j.tsv"))
    assert rejected("edit_campaign", "answers", "--scheme", "trec-4") == [
        "the judging scheme cannot change: judging has started (its grades are read in it)"]


def test_kappa_is_given_per_facet_and_on_the_combined_grade(answers, ada, bob):
    facets_judged_twice(answers, ada, bob)
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "dual")
    rows = {(r[2], r[3], r[4]): r[5:] for r in (line.split("\t") for line in out.splitlines()[1:])}
    # Totality: all three agree; directness: one of three (kappa -0.5); the grades 3 2 0 against 2 2 0: 0.5.
    assert rows[("ada", "bob", "facet:totality")] == ["1.0000", "3"]
    assert rows[("ada", "bob", "facet:directness")] == ["-0.5000", "3"]
    assert rows[("ada", "bob", "graded")] == ["0.5000", "3"]


def _judge_one(answers, ada):
    services.judgment_submit(assignment_pk=assign(answers, ada, "A.1").pk, item_id="10", user=ada,
                             grades=[services.GradeInput(grade="0")])


def test_the_settings_page_changes_the_scheme_until_judging_starts(answers, ada, client, organizer):
    client.force_login(organizer)
    url = f"/campaigns/{answers.pk}/settings/"
    assert '<option value="arqmath" selected>' in client.get(url).content.decode()
    form = {"name": "answers", "primary_depth": answers.primary_depth, "alternate_depth": answers.alternate_depth,
            "seed": answers.seed, "max_depth": answers.max_depth}
    assert client.post(url, {**form, "scheme": "trec-binary"}).status_code == 302
    answers.refresh_from_db()
    assert answers.judging_scheme == grades.preset("trec-binary") and answers.relevance_level == 1
    _judge_one(answers, ada)
    response = client.post(url, {**form, "scheme": "trec-4"})
    assert "the judging scheme cannot change: judging has started" in response.content.decode()
    assert Campaign.objects.get(pk=answers.pk).judging_scheme == grades.preset("trec-binary")


def test_a_custom_scheme_is_kept_by_the_settings_page_unless_a_preset_replaces_it(answers, client, organizer):
    _use(answers, "custom")
    client.force_login(organizer)
    url = f"/campaigns/{answers.pk}/settings/"
    assert '<option value="" selected>custom (as it is)</option>' in client.get(url).content.decode()
    form = {"name": "renamed", "primary_depth": answers.primary_depth, "alternate_depth": answers.alternate_depth,
            "seed": answers.seed, "max_depth": answers.max_depth, "scheme": ""}
    assert client.post(url, form).status_code == 302
    assert Campaign.objects.get(pk=answers.pk).judging_scheme == _scheme("custom")


def test_the_api_patch_changes_the_scheme_until_judging_starts(answers, ada, organizer):
    api = token_client(organizer)
    response = api.patch(f"/api/campaigns/{answers.pk}/", {"scheme": "trec-3"}, format="json")
    assert response.status_code == 200 and response.json()["campaign"]["scheme"]["name"] == "trec-3"
    response = api.patch(f"/api/campaigns/{answers.pk}/", {"scheme": CUSTOM}, format="json")
    assert response.status_code == 200 and Campaign.objects.get(pk=answers.pk).judging_scheme == _scheme("custom")
    assert api.patch(f"/api/campaigns/{answers.pk}/", {"scheme": "nope"}, format="json").status_code == 400
    _judge_one(answers, ada)
    response = api.patch(f"/api/campaigns/{answers.pk}/", {"scheme": "trec-4"}, format="json")
    assert response.status_code == 400 and response.json()["problems"] == [
        "the judging scheme cannot change: judging has started (its grades are read in it)"]
    assert Campaign.objects.get(pk=answers.pk).judging_scheme == _scheme("custom")

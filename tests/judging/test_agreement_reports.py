"""Agreement of training rounds and of the dual assessment (SPEC 7, 9): the `agreement` command, the API, the
dashboard with its CSV, the disagreement review, and who may see them."""
import csv
import io
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from sklearn.metrics import cohen_kappa_score

from agreement import views as dashboard_views
from core.downloads import spreadsheet_safe
from judging import services
from judging.models import Assignment, Judgment
from tests.commands import command_output, rejected
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db

# Round 1 of the answers campaign: A.1 pools 10, 11, 12; A.2 pools 20, 99. Item 12 is graded 0 by everyone.
ROUND_1 = {
    "ada": {"10": "3", "11": "2", "12": "0", "20": "1", "99": "DK"},
    "bob": {"10": "3", "11": "1", "12": "0", "20": "1", "99": "2"},
    "cy": {"10": "2", "11": "2", "12": "0", "20": "SF", "99": "2"},
}
TOPIC = {"10": "A.1", "11": "A.1", "12": "A.1", "20": "A.2", "99": "A.2"}


def import_lines(campaign, grades, kind="training", round_="1", comment=None):
    lines = []
    for name, items in grades.items():
        for item, grade in items.items():
            note = comment(name, item) if comment else ("" if grade not in ("SF", "DK") else f"{name} unsure")
            lines.append("\t".join([name, TOPIC[item], item, grade, note, kind] + ([round_] if round_ else [])))
    services.judgments_import(campaign=campaign, lines=lines)


@pytest.fixture
def round_1(answers):
    import_lines(answers, ROUND_1, comment=lambda name, item: f"{name} on {item}")
    return answers


def expected_kappa(first, second, scale):
    common = [i for i in ROUND_1[first] if ROUND_1[first][i] in "0123" and ROUND_1[second][i] in "0123"
              and len(ROUND_1[first][i]) == 1 and len(ROUND_1[second][i]) == 1]
    def value(g):
        return int(g) if scale == "graded" else int(int(g) >= 2)
    kappa = cohen_kappa_score([value(ROUND_1[first][i]) for i in common], [value(ROUND_1[second][i]) for i in common])
    return kappa, len(common)


def test_agreement_command_prints_the_tsv_of_the_spec(round_1):
    out, _ = command_output("agreement", "--campaign", "answers", "--round", "1")
    lines = out.splitlines()
    assert lines[0] == "kind\tround\tassessor\tother\tscale\tkappa\titems"
    rows = [line.split("\t") for line in lines[1:]]
    # Per assessor: two others x two scales, then the mean on each scale.
    assert len(rows) == 3 * (2 * 2 + 2)
    assert [r[:5] for r in rows[:6]] == [
        ["training", "1", "ada", "bob", "graded"], ["training", "1", "ada", "bob", "binary"],
        ["training", "1", "ada", "cy", "graded"], ["training", "1", "ada", "cy", "binary"],
        ["training", "1", "ada", "mean", "graded"], ["training", "1", "ada", "mean", "binary"]]
    by_key = {tuple(r[2:5]): r for r in rows}
    for first, second in (("ada", "bob"), ("ada", "cy"), ("bob", "cy"), ("cy", "ada")):
        for scale in ("graded", "binary"):
            kappa, items = expected_kappa(first, second, scale)
            assert by_key[(first, second, scale)][5:] == [f"{kappa:.4f}", str(items)]
    # SF and DK are left out: ada and bob share 4 items (99 is DK for ada), ada and cy 3 (20 is SF for cy).
    assert by_key[("ada", "bob", "graded")][6] == "4" and by_key[("ada", "cy", "graded")][6] == "3"
    mean = (expected_kappa("ada", "bob", "graded")[0] + expected_kappa("ada", "cy", "graded")[0]) / 2
    assert by_key[("ada", "mean", "graded")][5] == f"{mean:.4f}"


def test_kappa_is_n_a_with_its_reason_when_undefined(answers, ada, bob):
    # Round 2: both give every item of A.2 the grade 2: one category only.
    import_lines(answers, {"ada": {"20": "2", "99": "2"}, "bob": {"20": "2", "99": "3"}}, round_="2")
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "training")
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    binary = [r for r in rows if r[4] == "binary"]
    assert binary and all(r[5] == "n/a" for r in binary)
    assert all("nan" not in r[5].lower() for r in rows)
    data = json.loads(command_output("agreement", "--campaign", "answers", "--format", "json")[0])
    pair = next(p for p in data[0]["pairs"] if p["scale"] == "binary")
    assert pair["kappa"] is None and "one category only" in pair["reason"]
    mean = next(m for m in data[0]["means"] if m["scale"] == "binary")
    assert mean["kappa"] is None and mean["reason"] == "no pairwise kappa is defined"
    assert data[0]["alpha"]["binary"]["alpha"] is None


def test_agreement_json_has_alpha_and_counts(round_1):
    data = json.loads(command_output("agreement", "--campaign", "answers", "--format", "json")[0])
    assert [(g["kind"], g["round"]) for g in data] == [("training", 1)]
    group = data[0]
    assert group["assessors"] == ["ada", "bob", "cy"] and group["topics"] == ["A.1", "A.2"]
    assert group["judged"] == 13 and group["left_out_sf_dk"] == 2
    assert -1 <= group["alpha"]["graded"]["alpha"] <= 1 and group["alpha"]["graded"]["items"] == 5
    assert group["gold"] is None


def test_agreement_command_rejects_what_the_campaign_does_not_have(round_1):
    assert rejected("agreement", "--campaign", "answers", "--round", "7") == [
        "campaign 'answers' has no training round 7"]
    assert "for training rounds only" in rejected("agreement", "--campaign", "answers", "--kind", "dual",
                                                  "--round", "1")[0]
    assert rejected("agreement", "--campaign", "nope") == ["no campaign named 'nope'"]


def dual_setup(answers, ada, bob):
    assign(answers, ada, "A.1")
    assign(answers, bob, "A.1", kind="dual")
    import_lines(answers, {"ada": {"10": "3", "11": "0", "12": "1"}}, kind="official", round_="",
                 comment=lambda name, item: "ADA-PRIVATE-NOTE")
    import_lines(answers, {"bob": {"10": "3", "11": "1", "12": "1"}}, kind="dual", round_="")


def test_dual_assessment_reports_agreement_with_the_official_assessor(answers, ada, bob):
    dual_setup(answers, ada, bob)
    official_before = list(Judgment.objects.filter(assignment__kind="official").values_list("item_id", "grade"))
    out, _ = command_output("agreement", "--campaign", "answers", "--kind", "dual")
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    kappa = cohen_kappa_score([3, 0, 1], [3, 1, 1])
    assert ["dual", "-", "ada", "bob", "graded", f"{kappa:.4f}", "3"] in rows
    assert ["dual", "-", "bob", "ada", "graded", f"{kappa:.4f}", "3"] in rows
    data = json.loads(command_output("agreement", "--campaign", "answers", "--kind", "dual", "--format",
                                     "json")[0])
    assert data[0]["topics_dual"][0]["official"] == "ada" and data[0]["topics_dual"][0]["dual"] == "bob"
    # The qrels stay the official assessor's: reading agreement changes no judgment.
    assert list(Judgment.objects.filter(assignment__kind="official").values_list("item_id", "grade")) == \
        official_before


def test_the_dual_assessor_never_sees_the_official_judgments(client, answers, ada, bob):
    dual_setup(answers, ada, bob)
    client.force_login(bob)
    dual = bob.assignments.get(kind="dual")
    listed = client.get("/api/judgments/").json()
    assert {j["assignment"] for j in listed["results"]} == {dual.pk}
    response = client.get(f"/assess/assignments/{dual.pk}/items/0/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'type="radio"' in page and "ADA-PRIVATE-NOTE" not in page  # the item and its grades, not ada's note
    for url in (f"/campaigns/{answers.pk}/agreement/", f"/campaigns/{answers.pk}/disagreements/?kind=dual",
                f"/campaigns/{answers.pk}/agreement.csv", f"/campaigns/{answers.pk}/progress/",
                f"/campaigns/{answers.pk}/training/"):
        assert client.get(url).status_code == 403, url
    for url in (f"/api/campaigns/{answers.pk}/agreement/", f"/api/campaigns/{answers.pk}/progress/"):
        assert client.get(url).status_code == 403, url


def test_anonymous_visitors_go_to_the_login_page(client, round_1):
    response = client.get(f"/campaigns/{round_1.pk}/agreement/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert client.get(f"/api/campaigns/{round_1.pk}/agreement/").status_code in (401, 403)


def test_agreement_api_for_organizers(client, organizer, round_1):
    client.force_login(organizer)
    body = client.get(f"/api/campaigns/{round_1.pk}/agreement/?round=1").json()
    pair = next(p for p in body["groups"][0]["pairs"] if (p["assessor"], p["other"], p["scale"]) ==
                ("ada", "bob", "graded"))
    assert pair["kappa"] == pytest.approx(expected_kappa("ada", "bob", "graded")[0])
    bad = client.get(f"/api/campaigns/{round_1.pk}/agreement/?round=9")
    assert bad.status_code == 400 and bad.json()["problems"] == ["campaign 'answers' has no training round 9"]
    assert client.get(f"/api/campaigns/{round_1.pk}/agreement/?round=x").status_code == 400


def test_dashboard_shows_bars_matrix_numbers_and_offers_the_csv(client, organizer, round_1):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{round_1.pk}/agreement/").content.decode()
    assert 'id="kappa-chart"' in page and page.count('class="bar graded"') == 3 + 1  # three bars and the legend
    assert 'id="pair-matrix"' in page and "Krippendorff" in page
    ada_bob = expected_kappa("ada", "bob", "graded")[0]
    assert f"{ada_bob:.4f}" in page or f"{ada_bob:.4f}"[:5] in page
    response = client.get(f"/campaigns/{round_1.pk}/agreement.csv?kind=training&round=1")
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="agreement-answers-training-1.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["kind", "round", "assessor", "other", "scale", "kappa", "items", "reason"]
    tsv = command_output("agreement", "--campaign", "answers", "--round", "1")[0].splitlines()
    assert [r[:7] for r in rows[1:]] == [line.split("\t") for line in tsv[1:]]


def test_dashboard_of_a_round_nobody_has_is_refused_with_the_reason(client, organizer, round_1):
    client.force_login(organizer)
    response = client.get(f"/campaigns/{round_1.pk}/agreement/?kind=training&round=4")
    assert response.status_code == 400 and "has no training round 4" in response.content.decode()


def test_disagreement_review_lists_items_graded_differently_with_grades_and_comments(client, organizer, round_1):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{round_1.pk}/disagreements/?kind=training&round=1").content.decode()
    assert "4 items" in page
    # 12 got 0 from everyone: not listed. The others are, with each assessor's grade and comment beside the item.
    assert "answer 12" not in page
    for item in ("10", "11", "20", "99"):
        assert f"answer {item}" in page
        for name in ("ada", "bob", "cy"):
            assert f"{name} on {item}" in page
    assert "by the power rule" in page          # the item's own content (answer 10)
    assert "System failure" in page and "Do not know" in page
    only_a2 = client.get(f"/campaigns/{round_1.pk}/disagreements/?kind=training&round=1&topic=A.2").content.decode()
    assert "answer 20" in only_a2 and "answer 10" not in only_a2
    assert 'class="review projector"' in client.get(
        f"/campaigns/{round_1.pk}/disagreements/?kind=training&round=1&projector=1").content.decode()


def _review_items(html):
    return re.findall(r'<p class="item-head">#(\d+) · answer (\w+)', html)


def test_disagreement_review_comes_a_page_at_a_time(client, organizer, round_1, monkeypatch):
    monkeypatch.setattr(dashboard_views, "REVIEW_PAGE_ITEMS", 3)
    client.force_login(organizer)
    url = f"/campaigns/{round_1.pk}/disagreements/?kind=training&round=1"
    first = client.get(url).content.decode()
    assert "4 items" in first and "items 1–3 of 4" in first
    assert _review_items(first) == [("1", "11"), ("2", "10"), ("3", "20")]  # in pool order
    assert "page=2" in first and "Previous page" not in first
    second = client.get(url + "&page=2").content.decode()
    assert _review_items(second) == [("4", "99")] and "items 4–4 of 4" in second and "Next page" not in second
    # A topic's own view, linked from the review.
    assert 'href="?kind=training&amp;round=1&amp;topic=A.2"' in first
    only_a2 = client.get(url + "&topic=A.2").content.decode()
    assert [item for _n, item in _review_items(only_a2)] == ["20", "99"] and "Next page" not in only_a2


def test_projector_shows_one_item_at_a_time(client, organizer, round_1):
    client.force_login(organizer)
    url = f"/campaigns/{round_1.pk}/disagreements/?kind=training&round=1&projector=1"
    shown = [_review_items(client.get(url + f"&page={n}").content.decode()) for n in range(1, 5)]
    assert shown == [[("1", "11")], [("2", "10")], [("3", "20")], [("4", "99")]]
    second = client.get(url + "&page=2").content.decode()
    assert "item 2 of 4" in second and "Previous item" in second and "Next item" in second
    assert 'page=3">Next item' in second and "projector=1" in second.split('page=3">Next item')[0].rsplit("href", 1)[1]


def test_disagreement_review_queries_do_not_grow_with_its_items(client, organizer, round_1):
    client.force_login(organizer)
    url = f"/campaigns/{round_1.pk}/disagreements/?kind=training&round=1"
    client.get(url)  # the session's first request reads more
    with CaptureQueriesContext(connection) as two:
        assert len(_review_items(client.get(url + "&topic=A.2").content.decode())) == 2
    with CaptureQueriesContext(connection) as four:
        assert len(_review_items(client.get(url).content.decode())) == 4
    assert len(four) == len(two)


def test_disagreement_review_reads_the_rounds_judgments_once_until_one_changes(client, organizer, round_1):
    client.force_login(organizer)
    url = f"/campaigns/{round_1.pk}/disagreements/?kind=training&round=1"
    def comments_read(queries):
        return [q for q in queries if '"assessor_judgment"."comment"' in q["sql"]]

    with CaptureQueriesContext(connection) as first:
        assert "4 items" in client.get(url).content.decode()
    with CaptureQueriesContext(connection) as again:
        assert "4 items" in client.get(url + "&page=1").content.decode()
    assert comments_read(first) and not comments_read(again)  # the second page came from the cache
    # Ada changes her 0 for answer 12, which everyone had graded 0: it is now a disagreement, on the next request.
    ada_a1 = Assignment.objects.get(campaign=round_1, assessor__username="ada", topic__topic_id="A.1",
                                    kind="training")
    services.judgment_submit(assignment_pk=ada_a1.pk, item_id="12", grades=[services.GradeInput(grade="1")],
                             user=ada_a1.assessor)
    page = client.get(url).content.decode()
    assert "5 items" in page and "answer 12" in page
    # And an assessor taken off the round takes their grades with them: bob alone disagreed on 11 with ada and cy.
    Assignment.objects.filter(campaign=round_1, assessor__username="bob").update(withdrawn_at=timezone.now())
    assert "answer 11" not in client.get(url).content.decode()


def test_agreement_reads_the_rounds_judgments_once_until_one_changes(client, organizer, round_1):
    """The page, its CSV and the API share the round's agreement, kept under what it is computed from."""
    client.force_login(organizer)
    api = f"/api/campaigns/{round_1.pk}/agreement/?kind=training&round=1"

    def grades_read(queries):
        return [q for q in queries if '"assessor_judgment"."grade"' in q["sql"]]

    def ada_bob_graded():
        group = client.get(api).json()["groups"][0]
        return next(p["kappa"] for p in group["pairs"]
                    if (p["assessor"], p["other"], p["scale"]) == ("ada", "bob", "graded"))

    with CaptureQueriesContext(connection) as first:
        before = ada_bob_graded()
    with CaptureQueriesContext(connection) as again:
        assert client.get(f"/campaigns/{round_1.pk}/agreement/?kind=training&round=1").status_code == 200
        assert client.get(f"/campaigns/{round_1.pk}/agreement.csv?kind=training&round=1").status_code == 200
        assert ada_bob_graded() == before
    assert grades_read(first) and not grades_read(again)
    # Bob changes his 1 for answer 11 to ada's 2: the next request computes the new kappa.
    bob_a1 = Assignment.objects.get(campaign=round_1, assessor__username="bob", topic__topic_id="A.1",
                                    kind="training")
    services.judgment_submit(assignment_pk=bob_a1.pk, item_id="11", grades=[services.GradeInput(grade="2")],
                             user=bob_a1.assessor)
    ada, bob = ROUND_1["ada"], {**ROUND_1["bob"], "11": "2"}
    common = [i for i in ada if ada[i] in "0123" and bob[i] in "0123"]
    expected = cohen_kappa_score([int(ada[i]) for i in common], [int(bob[i]) for i in common])
    assert ada_bob_graded() == pytest.approx(expected) and expected != pytest.approx(before)


def test_formulas_agree_per_instance(formulas, django_user_model):
    lines = ["ada\tB.1\t1\t3\t\ttraining\t1", "ada\tB.1\t2\t2\t\ttraining\t1", "ada\tB.1\t3\t0\t\ttraining\t1",
             "bob\tB.1\t1\t3\t\ttraining\t1", "bob\tB.1\t2\t3\t\ttraining\t1", "bob\tB.1\t3\t0\t\ttraining\t1"]
    services.judgments_import(campaign=formulas, lines=lines)
    rows = [line.split("\t") for line in command_output("agreement", "--campaign", "formulas")[0].splitlines()[1:]]
    graded = next(r for r in rows if r[2:5] == ["ada", "bob", "graded"])
    assert graded[5:] == [f"{cohen_kappa_score([3, 2, 0], [3, 3, 0]):.4f}", "3"]


def test_the_binary_scale_counts_relevant_at_the_campaigns_relevance_level(answers, ada, bob, client, organizer):
    # ada and bob differ only on 11, low against not relevant: one side of the line at level 2, apart at level 1.
    import_lines(answers, {"ada": {"10": "3", "11": "1", "12": "0"}, "bob": {"10": "3", "11": "0", "12": "0"}})
    answers.relevance_level = 1
    answers.save()
    kappa = f"{cohen_kappa_score([1, 1, 0], [1, 0, 0]):.4f}"
    out, _ = command_output("agreement", "--campaign", "answers")
    assert ["training", "1", "ada", "bob", "binary", kappa, "3"] in [line.split("\t") for line in out.splitlines()]
    client.force_login(organizer)
    group = client.get(f"/api/campaigns/{answers.pk}/agreement/").json()["groups"][0]
    pair = next(p for p in group["pairs"] if p["scale"] == "binary")
    assert f"{pair['kappa']:.4f}" == kappa and group["alpha"]["binary"]["alpha"] < 1
    rows = list(csv.reader(io.StringIO(client.get(f"/campaigns/{answers.pk}/agreement.csv").content.decode())))
    assert ["training", "1", "ada", "bob", "binary", kappa, "3", ""] in rows
    page = client.get(f"/campaigns/{answers.pk}/agreement/").content.decode()
    assert "binary scale (grades ≥ 1 relevant" in page


@pytest.mark.parametrize("sent", ["x", "²", "-1", "0", "99999999999999999999"])
def test_a_round_that_is_no_training_round_number_is_refused_alike_by_page_csv_api_and_qrels(
        client, organizer, round_1, sent):
    client.force_login(organizer)
    page = client.get(f"/campaigns/{round_1.pk}/agreement/", {"kind": "training", "round": sent})
    csv_file = client.get(f"/campaigns/{round_1.pk}/agreement.csv", {"round": sent})
    api = client.get(f"/api/campaigns/{round_1.pk}/agreement/", {"round": sent})
    qrels = client.get(f"/campaigns/{round_1.pk}/qrels.txt", {"source": "adjudicated", "round": sent})
    assert (page.status_code, csv_file.status_code, api.status_code, qrels.status_code) == (400, 400, 400, 400)
    [problem] = api.json()["problems"]
    assert problem.startswith(f"round '{sent[:20]}' is not")
    assert problem in csv_file.content.decode()
    assert "<li>" + problem.replace("'", "&#x27;") + "</li>" in qrels.content.decode()  # the site's 400 page
    assert problem.replace("'", "&#x27;") in page.content.decode()


def test_a_negative_kappa_in_the_csv_is_a_number_and_a_formula_is_not(answers, ada, bob, client, organizer):
    # ada and bob disagree on every answer that is graded relevant: a kappa below 0.
    import_lines(answers, {"ada": {"10": "3", "11": "0", "12": "2"}, "bob": {"10": "0", "11": "3", "12": "0"}})
    kappa = f"{cohen_kappa_score([1, 0, 1], [0, 1, 0]):.4f}"
    assert kappa.startswith("-")
    client.force_login(organizer)
    rows = list(csv.reader(io.StringIO(client.get(f"/campaigns/{answers.pk}/agreement.csv").content.decode())))
    assert ["training", "1", "ada", "bob", "binary", kappa, "3", ""] in rows
    assert not any(cell.startswith("'-0") or cell.startswith("'-1") for row in rows for cell in row)


@pytest.mark.parametrize(("value", "cell"), [
    (-0.3333, "-0.3333"), (-2, "-2"), ("-0.3333", "-0.3333"), ("+1", "+1"), ("-2e-05", "-2e-05"), ("3", "3"),
    ("=1+1", "'=1+1"), ("-1+cmd|' /C calc'!A0", "'-1+cmd|' /C calc'!A0"), ("+A1", "'+A1"), ("@SUM(1;2)", "'@SUM(1;2)"),
    ("\t=1", "'\t=1"), ("\r-1", "'\r-1"), ("-", "'-"), ("- 1", "'- 1"), ("-1 ", "'-1 "), ("ada", "ada"),
])
def test_a_csv_cell_neutralises_only_what_starts_a_formula(value, cell):
    assert spreadsheet_safe(value) == cell

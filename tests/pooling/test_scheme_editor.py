"""The scheme editor (issue 25 point 1, docs/judging.md "Editing a scheme"): an organizer defines a campaign's custom
scheme on a page, grades, marks, facets and their table, under the same rules as the API and create_campaign's
scheme file (ir.grades.scheme_from_json), refused once judging has started."""
import re

import pytest

from ir import grades
from judging import services as assessor_services
from pooling.models import Campaign
from tests.factories import UserFactory
from tests.judging.fixtures import assign

pytestmark = pytest.mark.django_db


@pytest.fixture
def olga(client):
    client.force_login(UserFactory(username="olga", organizer=True))
    return client


def _post(grade_rows, facet_rows=(), *, name="mine", marks=("DK",), level="", table=""):
    data = {"name": name, "marks": list(marks), "relevance_level": level, "table": table,
            "grade-TOTAL_FORMS": "4", "grade-INITIAL_FORMS": "0", "facet-TOTAL_FORMS": "3",
            "facet-INITIAL_FORMS": "0"}
    for n, (value, label, key, definition) in enumerate(grade_rows):
        data.update({f"grade-{n}-value": value, f"grade-{n}-label": label, f"grade-{n}-key": key,
                     f"grade-{n}-definition": definition})
    for n, (facet, question, options) in enumerate(facet_rows):
        data.update({f"facet-{n}-name": facet, f"facet-{n}-question": question, f"facet-{n}-options": options})
    return data


FACETS = [("scope", "How much does it answer?", "all a All\nsome o Some"),
          ("proof", "Is there a proof?", "yes y Yes\nno x No")]
TABLE = "all yes 2\nall no 1\nsome yes 1\nsome no 0"


def test_an_organizer_saves_a_custom_scheme_with_facets_made_on_the_page(answers, olga):
    page = olga.get(f"/campaigns/{answers.pk}/scheme/").content.decode()
    assert re.findall(r'name="grade-\d-label"[^>]*value="([^"]+)"', page) == ["High", "Medium", "Low",
                                                                               "Not relevant"]
    assert f'href="/campaigns/{answers.pk}/scheme/"' in olga.get(f"/campaigns/{answers.pk}/settings/").content.decode()
    rows = [("2", "Useful", "u", "helps"), ("1", "Partly", "p", "helps a bit"), ("0", "Useless", "z", "")]
    answer = olga.post(f"/campaigns/{answers.pk}/scheme/", _post(rows, FACETS, level="2", table=TABLE))
    assert answer.status_code == 302 and answer.url == f"/campaigns/{answers.pk}/settings/"
    campaign = Campaign.objects.get(pk=answers.pk)
    expected = grades.scheme_from_json({
        "name": "mine", "marks": ["DK"], "relevance_level": 2,
        "grades": [{"value": v, "label": label, "key": k, "definition": d}
                   for v, label, k, d in [(2, "Useful", "u", "helps"), (1, "Partly", "p", "helps a bit"),
                                          (0, "Useless", "z", "")]],
        "facets": [{"name": "scope", "question": "How much does it answer?",
                    "options": [{"value": "all", "key": "a", "label": "All"},
                                {"value": "some", "key": "o", "label": "Some"}]},
                   {"name": "proof", "question": "Is there a proof?",
                    "options": [{"value": "yes", "key": "y", "label": "Yes"},
                                {"value": "no", "key": "x", "label": "No"}]}],
        "table": [{"answers": line.split()[:2], "grade": int(line.split()[2])} for line in TABLE.splitlines()]})
    assert campaign.judging_scheme == expected and campaign.relevance_level == 2
    # the page opens again on what was saved
    page = olga.get(f"/campaigns/{answers.pk}/scheme/").content.decode()
    assert "all yes 2\nall no 1" in page and "yes y Yes\nno x No" in page


def test_a_preset_is_a_starting_point(answers, olga):
    page = olga.get(f"/campaigns/{answers.pk}/scheme/?from=mo-facets").content.decode()
    assert "total t Total\npartial p Partial\nnone o None" in page and "total direct 3" in page


@pytest.mark.parametrize("rows, facets, table, level, expected", [
    ([("7", "Seven", "7", ""), ("0", "No", "0", "")], [], "", "",
     ["grade 1: a value is a whole number from 0 to 3, not 7"]),
    ([("1", "Yes", "y", ""), ("0", "No", "y", "")], [], "", "",
     ["grade 2: key 'y' must be one character, not taken by another grade nor one of ? b d f j k n s"]),
    ([("1", "Yes", "1", "")], [], "", "", ["a scheme has at least two grades"]),
    ([("1", "Yes", "1", ""), ("0", "No", "0", "")], [], "", "0",
     ["the relevance level must be one of the grades above 0, not 0"]),
    ([("2", "A", "2", ""), ("1", "B", "1", ""), ("0", "C", "0", "")], FACETS, "all yes 2\nall no\nsome yes 1", "",
     ["facets to grade, line 2: 2 options (one per facet) and a grade, not 2 words"]),
    ([("2", "A", "2", ""), ("1", "B", "1", ""), ("0", "C", "0", "")], FACETS, "all yes 2\nall no 1\nsome yes 1", "",
     ["table: some + no needs one of the grades (2, 1, 0)"]),
    ([("2", "A", "2", ""), ("1", "B", "1", ""), ("0", "C", "0", "")], FACETS,
     "all yes 2\nall no 1\nsome yes 1\nsome no " + "9" * 5000, "",
     ["table: some + no needs one of the grades (2, 1, 0)"]),
])
def test_a_scheme_that_breaks_a_rule_is_refused_with_every_problem_and_nothing_changes(
        answers, olga, rows, facets, table, level, expected):
    answer = olga.post(f"/campaigns/{answers.pk}/scheme/", _post(rows, facets, table=table, level=level))
    assert answer.status_code == 400
    shown = re.findall(r"<li>([^<]+)</li>", answer.content.decode().split('id="scheme-problems"')[1].split("</ul>")[0])
    assert [s.replace("&#x27;", "'") for s in shown] == expected
    assert Campaign.objects.get(pk=answers.pk).judging_scheme == grades.preset("arqmath")


def test_the_scheme_is_refused_once_judging_has_started(answers, olga, ada):
    a = assign(answers, ada, "A.1")
    assessor_services.judgment_submit(assignment_pk=a.pk, item_id="10", user=ada,
                                      grades=[assessor_services.GradeInput(grade="2")])
    page = olga.get(f"/campaigns/{answers.pk}/scheme/").content.decode()
    assert "Judging has started (1 judged item)" in page and "<fieldset disabled>" in page
    answer = olga.post(f"/campaigns/{answers.pk}/scheme/", _post([("1", "Yes", "1", ""), ("0", "No", "0", "")]))
    assert answer.status_code == 400
    assert "the judging scheme cannot change: judging has started (its grades are read in it)" in \
        answer.content.decode()
    assert Campaign.objects.get(pk=answers.pk).judging_scheme == grades.preset("arqmath")


def test_only_organizers_edit_a_scheme(answers, client, ada):
    client.force_login(ada)
    assert client.get(f"/campaigns/{answers.pk}/scheme/").status_code in (302, 403)
    answer = client.post(f"/campaigns/{answers.pk}/scheme/", _post([("1", "Yes", "1", ""), ("0", "No", "0", "")]))
    assert answer.status_code in (302, 403)
    assert Campaign.objects.get(pk=answers.pk).judging_scheme == grades.preset("arqmath")


@pytest.mark.parametrize("value", ["²", "1e3", "+-2"])
def test_a_grade_value_that_is_no_whole_number_is_refused_by_name_not_with_an_error_page(answers, olga, value):
    answer = olga.post(f"/campaigns/{answers.pk}/scheme/", _post([(value, "A", "a", ""), ("0", "B", "b", "")]))
    assert answer.status_code == 400
    assert f"grade 1: a value is a whole number from 0 to 3, not {value}" in answer.content.decode()

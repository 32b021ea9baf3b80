"""A scheme's values are checked before anything compares them (walkthrough defect: the scheme editor answered 500
on a grade value `x` or `-1`): any JSON gives a Scheme or an InputError, the page answers 400 with the problem, the
API 400 and the commands exit status 2, and nothing changes."""
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ir import grades
from ir.problems import InputError
from pooling.models import Campaign
from tests.commands import rejected
from tests.factories import UserFactory

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                 max_size=4), max_leaves=20)
KEYS = st.sampled_from(["value", "label", "key", "definition", "name", "options", "answers", "grade", "question"])
# Scheme-shaped JSON: the real field names with any JSON in them, so the fuzz reaches past the first check.
ROW = st.dictionaries(KEYS, JSON | st.integers(-2, 5) | st.sampled_from(["a", "b", "x", "1", "SF"]), max_size=5)
SCHEME = st.fixed_dictionaries({}, optional={
    "name": JSON, "grades": st.lists(ROW, max_size=5) | JSON, "marks": st.lists(JSON, max_size=3) | JSON,
    "relevance_level": st.integers(-2, 5) | JSON, "facets": st.lists(ROW, max_size=3) | JSON,
    "table": st.lists(ROW, max_size=4) | JSON})


def _scheme_or_problems(data):
    try:
        scheme = grades.scheme_from_json(data)
    except InputError as exc:
        assert exc.messages() and all(isinstance(m, str) and m for m in exc.messages())
        return None
    assert all(isinstance(g.value, int) and 0 <= g.value <= grades.MAX_GRADE for g in scheme.grades)
    assert scheme.relevance_level in {g.value for g in scheme.grades} and type(scheme.relevance_level) is int
    assert grades.scheme_from_json(scheme.to_json()) == scheme
    return scheme


@settings(max_examples=400, deadline=None)
@given(JSON | SCHEME)
def test_any_json_gives_a_scheme_or_an_input_error(data):
    _scheme_or_problems(data)


@pytest.mark.parametrize(("value", "problem"), [
    ("x", "grade 1: a value is a whole number from 0 to 3, not x"),
    (-1, "grade 1: a value is a whole number from 0 to 3, not -1"),
    (1.0, "grade 1: a value is a whole number from 0 to 3, not 1.0"),
    (True, "grade 1: a value is a whole number from 0 to 3, not True"),
    ([1], "grade 1: a value is a whole number from 0 to 3, not [1]"),
])
def test_a_grade_value_that_is_no_whole_number_is_named_with_or_without_a_relevance_level(value, problem):
    rows = [{"value": value, "label": "Odd", "key": "o"}, {"value": 0, "label": "No", "key": "z"}]
    for extra in ({}, {"relevance_level": 1}):
        with pytest.raises(InputError) as info:
            grades.scheme_from_json({"grades": rows, **extra})
        assert problem in info.value.messages()


@pytest.mark.parametrize("level", [True, 1.0, "1", [1], 0, -1, 4])
def test_a_relevance_level_is_a_grade_above_0_as_a_whole_number(level):
    rows = [{"value": 1, "label": "Yes", "key": "y"}, {"value": 0, "label": "No", "key": "z"}]
    with pytest.raises(InputError) as info:
        grades.scheme_from_json({"grades": rows, "relevance_level": level})
    assert info.value.messages() == [f"the relevance level must be one of the grades above 0, not {level}"]


def test_a_table_grade_is_a_whole_number():
    data = grades.preset("mo-facets").to_json()
    data["table"][0]["grade"] = True
    with pytest.raises(InputError) as info:
        grades.scheme_from_json(data)
    answers = " + ".join(data["table"][0]["answers"])
    assert info.value.messages() == [f"table: {answers} needs one of the grades (3, 2, 1, 0)"]


def _page(grade_value, level=""):
    data = {"name": "mine", "marks": ["DK"], "relevance_level": level, "table": "",
            "grade-TOTAL_FORMS": "4", "grade-INITIAL_FORMS": "0", "facet-TOTAL_FORMS": "3",
            "facet-INITIAL_FORMS": "0",
            "grade-0-value": grade_value, "grade-0-label": "Yes", "grade-0-key": "y", "grade-0-definition": "",
            "grade-1-value": "0", "grade-1-label": "No", "grade-1-key": "z", "grade-1-definition": ""}
    return data


@pytest.mark.django_db
@pytest.mark.parametrize(("value", "level"), [("x", ""), ("-1", ""), ("x", "1"), ("99999999999", ""), ("1", "x")])
def test_the_scheme_editor_answers_400_with_the_problem_on_a_bad_value(client, answers, value, level):
    client.force_login(UserFactory(username="olga", organizer=True))
    before = Campaign.objects.get(pk=answers.pk).scheme
    answer = client.post(f"/campaigns/{answers.pk}/scheme/", _page(value, level))
    page = answer.content.decode()
    assert answer.status_code == 400 and 'id="scheme-problems"' in page
    assert "a whole number from 0 to 3" in page or "the relevance level must be one of the grades" in page
    assert f'value="{value}"' in page  # the organizer's input is kept
    assert Campaign.objects.get(pk=answers.pk).scheme == before


@pytest.mark.django_db
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scheme=SCHEME)
def test_the_api_answers_201_or_400_on_any_scheme(client, organizer, scheme):
    client.force_login(organizer)
    answer = client.post("/api/campaigns/", {"name": "fuzz", "task": "answers", "scheme": scheme},
                         content_type="application/json")
    assert answer.status_code in (201, 400), answer.content[:300]
    made = Campaign.objects.filter(name="fuzz")
    assert made.exists() == (answer.status_code == 201)
    if answer.status_code == 400:
        assert json.dumps(answer.json())
    made.delete()


@pytest.mark.django_db
def test_create_campaign_names_a_bad_value_in_a_scheme_file(tmp_path):
    path = tmp_path / "scheme.json"
    path.write_text(json.dumps({"grades": [{"value": "x", "label": "Odd", "key": "o"},
                                           {"value": -1, "label": "Neg", "key": "g"}]}))
    assert rejected("create_campaign", "bad", "--task", "answers", "--scheme", str(path)) == [
        "grade 1: a value is a whole number from 0 to 3, not x",
        "grade 2: a value is a whole number from 0 to 3, not -1"]
    assert not Campaign.objects.filter(name="bad").exists()


@pytest.mark.django_db
def test_a_too_long_definition_is_marked_with_its_message_beside_it(client, answers):
    client.force_login(UserFactory(username="olga", organizer=True))
    data = _page("1") | {"grade-0-definition": "D" * 700}
    answer = client.post(f"/campaigns/{answers.pk}/scheme/", data)
    page = answer.content.decode()
    assert answer.status_code == 400
    assert "<li>grade 1, definition: Ensure this value has at most 500 characters (it has 700).</li>" in page
    cell = re.search(r'<td class="has-error"><input[^>]*name="grade-0-definition"[^>]*>'
                     r'<p class="error" id="id_grade-0-definition-error">([^<]*)</p></td>', page)
    assert cell and cell.group(1) == "Ensure this value has at most 500 characters (it has 700)."
    assert Campaign.objects.get(pk=answers.pk).scheme == {}


@pytest.mark.django_db
def test_the_marks_are_named_above_their_checkboxes(client, answers):
    client.force_login(UserFactory(username="olga", organizer=True))
    page = client.get(f"/campaigns/{answers.pk}/scheme/").content.decode()
    group = re.search(r'<fieldset class="choices"><legend>Marks</legend>(.*?)</fieldset>', page, re.S)
    assert group and 'value="SF"' in group.group(1) and 'value="DK"' in group.group(1)


@settings(max_examples=150, deadline=None)
@given(JSON | SCHEME)
def test_a_scheme_file_of_any_json_gives_a_scheme_or_an_input_error(data):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scheme.json"
        path.write_text(json.dumps(data))
        try:
            grades.scheme_chosen(str(path), "answers")
        except InputError as exc:
            assert exc.messages()


@pytest.mark.django_db
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scheme=SCHEME)
def test_the_api_update_answers_200_or_400_on_any_scheme_and_refuses_without_a_change(client, organizer, answers,
                                                                                       scheme):
    client.force_login(organizer)
    before = Campaign.objects.get(pk=answers.pk).scheme
    answer = client.patch(f"/api/campaigns/{answers.pk}/", {"scheme": scheme}, content_type="application/json")
    assert answer.status_code in (200, 400), answer.content[:300]
    if answer.status_code == 400:
        assert Campaign.objects.get(pk=answers.pk).scheme == before
    Campaign.objects.filter(pk=answers.pk).update(scheme=before)

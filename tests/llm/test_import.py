"""An LLM's grades made elsewhere (docs/llm.md, "Grades from elsewhere"): import_llm_grades and the LLM page's form
store a qrels file, with or without each grade's probabilities, as one model's grades that every LLM view reads;
a file with any problem writes nothing."""
from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from agreement.llm import llm_agreement
from llm.models import LlmGrade, Prompt
from tests.commands import command_output, rejected

pytestmark = pytest.mark.django_db

# The answers campaign pools A.1: 10, 11, 12 and A.2: 20, 99; its scheme is ARQMath's, grades 0 to 3.
GOOD = "A.1 0 10 3\nA.1 0 11 0\nA.1 0 12 1\nA.2 0 20 2\n"
WITH_PROBABILITIES = ("A.1\t0\t10\t3\t0.0\t0.1\t0.2\t0.7\n"
                      "A.1\t0\t11\t0\t0.9\t0.1\t0\t0\n"
                      "A.2\t0\t20\t2\t0.05\t0.05\t0.6\t0.3\n")


def write(tmp_path, text: str, name: str = "grades.qrels"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def imported(model: str = "gpt-x") -> dict[str, tuple[int, dict, str]]:
    return {f"{g.topic.topic_id}/{g.item_id}": (g.grade, g.probabilities, g.probability_source)
            for g in LlmGrade.objects.filter(model=model).select_related("topic")}


def test_a_qrels_file_becomes_the_models_grades_read_by_the_llm_views(answers, tmp_path):
    out, _ = command_output("import_llm_grades", "--campaign", "answers", "--model", "gpt-x", write(tmp_path, GOOD))
    assert out.strip() == "Imported 4 grades of model gpt-x (without probabilities) as imported v1."
    assert {key: grade for key, (grade, _p, _s) in imported().items()} == {
        "A.1/10": 3, "A.1/11": 0, "A.1/12": 1, "A.2/20": 2}
    grade, probabilities, source = imported()["A.1/10"]
    assert probabilities == {"0": 0.0, "1": 0.0, "2": 0.0, "3": 1.0} and source == "single"
    prompt = Prompt.objects.get(name="imported")
    assert prompt.task == "imported" and "grades.qrels" in prompt.text and "gpt-x" in prompt.text
    qrels, _ = command_output("export_qrels", "--campaign", "answers", "--source", "llm:gpt-x")
    assert qrels.splitlines() == ["A.1\t0\t10\t3", "A.1\t0\t11\t0", "A.1\t0\t12\t1", "A.2\t0\t20\t2"]
    [agreement] = llm_agreement(campaign=answers)
    assert agreement.name == "llm:gpt-x" and agreement.graded == 4


def test_probabilities_after_the_grade_are_stored_with_it(answers, tmp_path):
    out, _ = command_output("import_llm_grades", "--campaign", "answers", "--model", "gpt-x",
                            write(tmp_path, WITH_PROBABILITIES))
    assert "Imported 3 grades of model gpt-x (with probabilities)" in out
    assert imported()["A.1/10"] == (3, {"0": 0.0, "1": 0.1, "2": 0.2, "3": 0.7}, "file")
    assert imported()["A.2/20"] == (2, {"0": 0.05, "1": 0.05, "2": 0.6, "3": 0.3}, "file")


def test_a_grade_outside_the_scheme_is_refused_with_its_line_and_nothing_is_written(answers, tmp_path):
    lines = rejected("import_llm_grades", "--campaign", "answers", "--model", "gpt-x",
                     write(tmp_path, "A.1 0 10 3\nA.1 0 11 4\n"))
    assert lines == ["grades.qrels:line 2: grade 4 is not a grade of the campaign's scheme (0 to 3)"]
    assert not LlmGrade.objects.exists() and not Prompt.objects.filter(name="imported").exists()


def test_probabilities_that_do_not_sum_to_1_or_are_no_numbers_are_refused(answers, tmp_path):
    lines = rejected("import_llm_grades", "--campaign", "answers", "--model", "gpt-x", write(
        tmp_path, "A.1 0 10 3 0.1 0.1 0.1 0.6\nA.1 0 11 0 1 0 0 0.0000005\nA.1 0 12 1 nan 0 0 1\n"
                  "A.2 0 20 2 -0.5 0.5 0.5 0.5\nA.2 0 21 1 0.3 0.3 0.3 0.1004\nA.2 0 22 1 0.3 0.3 0.3 0.102\n"))
    assert lines == [
        "grades.qrels:line 1: the probabilities sum to 0.9, not 1 (within 1e-3)",
        "grades.qrels:line 3: the probability of grade 0, 'nan', is not a number",
        "grades.qrels:line 4: the probability of grade 0, '-0.5', is not between 0 and 1",
        "grades.qrels:line 6: the probabilities sum to 1.002, not 1 (within 1e-3)"]
    assert not LlmGrade.objects.exists()


def test_malformed_lines_are_refused_with_their_numbers(answers, tmp_path):
    lines = rejected("import_llm_grades", "--campaign", "answers", "--model", "gpt-x",
                     write(tmp_path, "A.1 0 10 3\nA.1 0 11\nA.1 0 12 x\nA.2 0 20 2 0.5 0.5 0 0\n"))
    assert lines == [
        "grades.qrels:line 2: expected 4 columns (topic iteration doc_id grade) or 8 (topic iteration doc_id grade "
        "then 4 probabilities (of grades 0, 1, 2, 3, in that order)), found 3",
        "grades.qrels:line 3: grade 'x' is not an integer",
        "grades.qrels:line 4: 8 columns, but the file's first line has 4: every line gives the 4 probabilities, or "
        "none does"]
    assert not LlmGrade.objects.exists()


def test_unknown_topics_are_refused(answers, tmp_path):
    lines = rejected("import_llm_grades", "--campaign", "answers", "--model", "gpt-x",
                     write(tmp_path, "A.1 0 10 3\nZ.9 0 10 1\n"))
    assert lines == ["grades.qrels:line 2: topic 'Z.9' is not a topic of campaign 'answers'"]
    assert not LlmGrade.objects.exists()


def test_items_outside_the_pools_are_counted_and_named_not_stored(answers, tmp_path):
    text = GOOD + "".join(f"A.1 0 {item} 1\n" for item in range(500, 507))
    out, _ = command_output("import_llm_grades", "--campaign", "answers", "--model", "gpt-x", write(tmp_path, text))
    assert ("warning: 7 lines name items outside the pools, not stored: A.1 500 (line 5), A.1 501 (line 6), "
            "A.1 502 (line 7), A.1 503 (line 8), A.1 504 (line 9), ...") in out
    assert "Imported 4 grades" in out and len(imported()) == 4
    assert rejected("import_llm_grades", "--campaign", "answers", "--model", "gpt-x",
                    write(tmp_path, "A.1 0 500 1\n")) == [
        "grades.qrels: no grade of a pool item to import (1 line names items outside the pools)"]


def test_importing_a_model_again_replaces_its_import_and_keeps_its_other_grades(answers, tmp_path):
    prompt = Prompt.objects.create(name="p", task="answers", text="{query} {passage}")
    LlmGrade.objects.create(campaign=answers, topic=answers.topics.get(topic_id="A.2"), item_id="99", model="gpt-x",
                            prompt=prompt, grade=1)
    command_output("import_llm_grades", "--campaign", "answers", "--model", "gpt-x", write(tmp_path, GOOD))
    command_output("import_llm_grades", "--campaign", "answers", "--model", "other", write(tmp_path, GOOD))
    out, _ = command_output("import_llm_grades", "--campaign", "answers", "--model", "gpt-x",
                            write(tmp_path, "A.1 0 10 0\n", "second.qrels"))
    assert out.strip() == ("Imported 1 grade of model gpt-x (without probabilities) as imported v3, replacing the 4 "
                           "grades of its earlier import.")
    assert {key: grade for key, (grade, _p, _s) in imported().items()} == {"A.1/10": 0, "A.2/99": 1}
    assert len(imported("other")) == 4


def test_a_refused_reimport_keeps_the_earlier_one(answers, tmp_path):
    command_output("import_llm_grades", "--campaign", "answers", "--model", "gpt-x", write(tmp_path, GOOD))
    rejected("import_llm_grades", "--campaign", "answers", "--model", "gpt-x", write(tmp_path, "A.1 0 10 9\n"))
    assert len(imported()) == 4


def test_a_formulas_campaign_takes_visual_ids(formulas, tmp_path):
    command_output("import_llm_grades", "--campaign", "formulas", "--model", "gpt-x",
                   write(tmp_path, "B.1 0 100 3\nB.1 0 400 0\nB.1 0 1 2\n"))
    assert {key: grade for key, (grade, _p, _s) in imported().items()} == {"B.1/100": 3, "B.1/400": 0}
    qrels, _ = command_output("export_qrels", "--campaign", "formulas", "--source", "llm:gpt-x")
    assert qrels.splitlines() == ["B.1\t0\t100\t3", "B.1\t0\t400\t0"]


def upload(text: str, name: str = "grades.qrels") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/plain")


def test_the_llm_pages_form_imports_and_says_so(answers, organizer_client):
    page = organizer_client.get(f"/campaigns/{answers.pk}/llm/").content.decode()
    assert f'action="/campaigns/{answers.pk}/llm/import/"' in page and 'enctype="multipart/form-data"' in page
    response = organizer_client.post(f"/campaigns/{answers.pk}/llm/import/",
                                     {"model": "gpt-x", "file": upload(GOOD + "A.1 0 77 1\n")}, follow=True)
    assert response.status_code == 200
    text = response.content.decode()
    assert "Imported 4 grades of model gpt-x (without probabilities) as imported v1." in text
    assert "Warning: 1 line names items outside the pools, not stored: A.1 77 (line 5)" in text
    assert len(imported()) == 4


def test_a_bad_file_shows_its_problems_on_the_page_and_writes_nothing(answers, organizer_client):
    response = organizer_client.post(f"/campaigns/{answers.pk}/llm/import/",
                                     {"model": "gpt-x", "file": upload("A.1 0 10 3\nA.1 0 11 7\nA.1 0\n")},
                                     follow=True)
    assert response.status_code == 200
    text = response.content.decode()
    assert "Nothing was imported: 2 problems." in text
    assert "grades.qrels:line 2: grade 7 is not a grade of the campaign&#x27;s scheme (0 to 3)" in text
    assert "grades.qrels:line 3: expected 4 columns" in text
    assert not LlmGrade.objects.exists()
    missing = organizer_client.post(f"/campaigns/{answers.pk}/llm/import/", {"model": " "}, follow=True)
    assert "Model: This field is required." in missing.content.decode()
    assert "Qrels file: This field is required." in missing.content.decode()


def test_an_assessor_gets_403_and_nothing_is_written(answers, ada_client):
    url = f"/campaigns/{answers.pk}/llm/import/"
    assert ada_client.post(url, {"model": "gpt-x", "file": upload(GOOD)}).status_code == 403
    assert not LlmGrade.objects.exists()


def test_the_form_is_post_only_and_anonymous_users_go_to_log_in(answers, client, organizer):
    url = f"/campaigns/{answers.pk}/llm/import/"
    response = client.post(url, {"model": "gpt-x", "file": upload(GOOD)})
    assert response.status_code == 302 and "/login" in response["Location"]
    client.force_login(organizer)
    assert client.get(url).status_code == 405
    assert not LlmGrade.objects.exists()


def test_the_form_needs_the_csrf_token(answers, organizer):
    from django.test import Client
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(organizer)
    response = strict.post(f"/campaigns/{answers.pk}/llm/import/", {"model": "gpt-x", "file": upload(GOOD)})
    assert response.status_code == 403 and not LlmGrade.objects.exists()


def test_an_upload_over_the_limit_is_refused(answers, organizer_client, settings):
    settings.UPLOAD_MAX_BYTES = 10
    response = organizer_client.post(f"/campaigns/{answers.pk}/llm/import/",
                                     {"model": "gpt-x", "file": upload(GOOD)}, follow=True)
    assert "more than the upload limit of 10 bytes" in response.content.decode()
    assert not LlmGrade.objects.exists()


def test_the_service_reads_a_stream(answers):
    from llm.imports import llm_grades_import
    result = llm_grades_import(campaign=answers, model="  gpt-x  ", stream=io.BytesIO(GOOD.encode()))
    assert result.model == "gpt-x" and result.imported == 4 and result.warnings() == []

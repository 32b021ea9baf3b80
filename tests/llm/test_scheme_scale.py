"""The LLM judge asks for the campaign's own grades (docs/llm.md, "Parsing"): a 0-2 scheme's prompt says 0 to 2, a
reply of 3 is a failure with its text, and the pages name the scheme's grades. Each test failed before its fix."""
from __future__ import annotations

import pytest

from ir import grades
from llm import services
from llm.client import EndpointSettings
from llm.models import LlmGrade
from tests.llm.server import Answer, ChatServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_grades(answers):
    answers.scheme = grades.preset("trec-3").to_json()  # 2 Highly relevant, 1 Relevant, 0 Not relevant
    answers.save()
    return answers


def test_a_0_to_2_scheme_is_asked_for_0_to_2_and_a_3_is_a_failure_with_its_text(three_grades):
    def answer(prompt, n):
        return Answer("##final score: 3" if "power rule" in prompt else "##final score: 2")

    with ChatServer(answer) as server:
        result = services.llm_judge(campaign=three_grades, settings=EndpointSettings(
            base_url=server.url, model="m", retries=0), topics=["A.1"])
    assert server.requests == 3
    for prompt in server.prompts:
        assert "integer scale of 0 to 2 with the following meanings:" in prompt
        assert ("2 = Highly relevant: Highly relevant to the topic,\n1 = Relevant: Relevant to the topic,\n"
                "0 = Not relevant: Not relevant to the topic.") in prompt
        assert "3 =" not in prompt and "category 3" not in prompt
    assert (result.judged, result.failed) == (2, 1)
    failure = LlmGrade.objects.get(item_id="10")
    assert failure.grade is None and failure.replies == ["##final score: 3"]
    assert "N one of the scheme's grades, 0 to 2" in failure.failure
    assert set(LlmGrade.objects.exclude(item_id="10").values_list("grade", flat=True)) == {2}


def test_the_pages_name_the_schemes_grades(three_grades, organizer_client):
    with ChatServer(lambda prompt, n: Answer("##final score: 1")) as server:
        services.llm_judge(campaign=three_grades, settings=EndpointSettings(base_url=server.url, model="m"),
                           topics=["A.1"])
    page = organizer_client.get(f"/campaigns/{three_grades.pk}/llm/").content.decode()
    assert '<span id="llm-scale">0 to 2</span>' in page and "one of the scheme's grades (0 to 2)" in page
    agreement = organizer_client.get(f"/campaigns/{three_grades.pk}/agreement/").content.decode()
    section = agreement[agreement.index('id="llm-agreement"'):]
    assert "Kappa, grades 0 to 2" in section and "four grades" not in section


def test_the_scale_of_a_scheme_names_its_grades():
    assert grades.preset("arqmath").scale == "0 to 3"
    assert grades.preset("trec-binary").scale == "0 or 1"
    three = grades.preset("trec-3")
    skipping = grades.Scheme("s", tuple(g for g in grades.preset("trec-4").grades if g.value != 2))
    assert three.scale == "0 to 2" and skipping.scale == "0, 1 or 3"


def test_a_grade_stored_outside_the_scheme_counts_nowhere(three_grades, organizer_client):
    # Grades of 3 stored under a 0-2 scheme before replies were checked: no grade of the model's, no "official 3"
    # row or fourth grade on the agreement page.
    from agreement.llm import llm_agreement
    from llm.selectors import llm_grades
    from tests.factories import LlmPromptFactory
    from tests.llm_rows import llm_grade

    topic = three_grades.topics.get(topic_id="A.1")
    items = list(topic.pool_items.values_list("item_id", flat=True)[:2])
    prompt = LlmPromptFactory()
    llm_grade(three_grades, "A.1", items[0], 3, prompt=prompt, model="m")
    llm_grade(three_grades, "A.1", items[1], 1, prompt=prompt, model="m")
    assert llm_grades(campaign=three_grades, model="m") == {("A.1", items[1], ""): 1}
    [agreement] = llm_agreement(campaign=three_grades)
    assert agreement.categories == (0, 1, 2) and agreement.graded == 1

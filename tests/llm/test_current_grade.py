"""The one rule of the LLM's current grade of an item (docs/llm.md "Which grade counts", llm.selectors.current_grades):
the judging page's suggestion, the filter mode's demoted items, the leaderboard judge's qrels and export_qrels read the
same grade: the newest successful one of the model, of the endpoint's prompt when the endpoint names one (for that
prompt's task only: a Task 3 answer keeps its own prompt's grade)."""
import pytest

from evaluation.llm_board import graded, llm_qrels, llm_stamp
from judging.ordering import demoted_items
from judging.suggestions import suggestions_shown
from llm import selectors
from llm.models import Mode
from pooling.models import Topic
from tests.factories import LlmEndpointFactory, LlmPromptFactory
from tests.llm_rows import llm_grade

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(task3):
    """A.1 of the answers campaign with Task 3 answers; the endpoint names umbrela v2. Post 10: v2 says 2, then v1
    says 0 (newer, another prompt); post 11: only v1 (3); post 12: v2 says 3, then v2 again 0 (newer); a failure of
    v2 on post 11; the Task 3 answer d_1 graded 1 with the Task 3 prompt."""
    v1, v2 = LlmPromptFactory(version=1), LlmPromptFactory(version=2)
    task3_prompt = LlmPromptFactory(name="arqmath-task3", task="task3")
    endpoint = LlmEndpointFactory(campaign=task3, prompt=v2, mode=Mode.SUGGEST)
    llm_grade(task3, "A.1", "10", 2, prompt=v2)
    llm_grade(task3, "A.1", "10", 0, prompt=v1)
    llm_grade(task3, "A.1", "11", 3, prompt=v1)
    llm_grade(task3, "A.1", "11", None, prompt=v2)
    llm_grade(task3, "A.1", "12", 3, prompt=LlmPromptFactory(version=3))
    llm_grade(task3, "A.1", "12", 0, prompt=v2)
    llm_grade(task3, "A.1", "d_1", 1, prompt=task3_prompt)
    return endpoint


CURRENT = {"10": 2, "12": 0, "d_1": 1}


def test_suggestion_board_and_export_read_the_same_grade_of_the_endpoints_prompt(judged, task3):
    topic = Topic.objects.get(campaign=task3, topic_id="A.1")
    shown = suggestions_shown(campaign=task3, topic=topic, item_ids=["10", "11", "12", "d_1"], kind="official")
    assert {item: grade.grade for (item, _formula), grade in shown.items()} == CURRENT
    assert llm_qrels(campaign=task3, model="judge-7b") == {"A.1": CURRENT}
    assert sorted(graded(campaign=task3, model="judge-7b").values_list("item_id", flat=True).distinct()) == \
        sorted(CURRENT)
    judged.mode = Mode.FILTER
    judged.save()
    assert demoted_items(campaign=task3, topic_id=topic.pk) == {"12"}


def test_without_a_prompt_named_or_for_another_model_the_newest_grade_of_any_prompt_counts(judged, task3):
    newest = {("A.1", "10", ""): 0, ("A.1", "11", ""): 3, ("A.1", "12", ""): 0, ("A.1", "d_1", ""): 1}
    judged.model = "another-model"
    judged.save()
    assert selectors.llm_grades(campaign=task3, model="judge-7b") == newest
    judged.model, judged.prompt = "judge-7b", None
    judged.save()
    assert selectors.llm_grades(campaign=task3, model="judge-7b") == newest


def test_naming_another_prompt_on_the_endpoint_computes_the_leaderboards_llm_part_again(judged, task3):
    before = llm_stamp(campaign=task3)
    assert llm_stamp(campaign=task3) == before
    judged.prompt = None
    judged.save()
    assert llm_stamp(campaign=task3) != before


def test_an_item_the_model_graded_0_once_and_relevant_since_is_no_canary_source(answers):
    from llm import services
    from llm.models import Canary

    v1, v2 = LlmPromptFactory(version=1), LlmPromptFactory(version=2)
    llm_grade(answers, "A.1", "10", 0, prompt=v1)
    llm_grade(answers, "A.1", "10", 2, prompt=v2)  # newer: the current grade
    llm_grade(answers, "A.1", "11", 0, prompt=v1)
    topic = Topic.objects.get(campaign=answers, topic_id="A.1")
    result = services.canaries_create(campaign=answers, topics=[topic], per_topic=2, model="judge-7b",
                                      official_zeros={})
    assert result.sources == {"A.1": "llm"}
    assert set(Canary.objects.filter(topic=topic).values_list("source_item_id", flat=True)) == {"11"}

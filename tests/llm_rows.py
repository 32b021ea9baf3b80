"""LLM grades of a campaign's pool items as the LLM judging job leaves them, for the tests of what the judging page
does with them (issue 26 point 4); the rows come from tests/factories.py's Llm*Factory."""
from __future__ import annotations

from llm.models import LlmGrade, Prompt
from pooling.models import Campaign, Topic
from tests.factories import LlmGradeFactory


def llm_grade(campaign: Campaign, topic_id: str, item_id: str, grade: int | None, *, prompt: Prompt,
              model: str = "judge-7b", formula_id: str = "") -> LlmGrade:
    """One LLM grade of an item (formulas: of one instance) of the campaign's topic `topic_id`; `grade` None is a
    failure with its raw reply."""
    return LlmGradeFactory(
        topic=Topic.objects.get(campaign=campaign, topic_id=topic_id), item_id=item_id, formula_id=formula_id,
        model=model, prompt=prompt, grade=grade, failure="" if grade is not None else "no grade in the reply",
        replies=[f"##final score: {grade}" if grade is not None else "I cannot tell."], sample_grades=[grade])

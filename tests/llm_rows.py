"""LLM rows made directly, for the tests of what the judging page does with them (issue 26 point 4): a campaign's
Endpoint with its mode, a Prompt version, and LlmGrade rows as the LLM judging job would leave them. The job itself
is tested elsewhere; these rows are the contract between the two."""
from __future__ import annotations

from llm.models import Endpoint, LlmGrade, Mode, Prompt
from pooling.models import Campaign, Topic


def llm_endpoint(campaign: Campaign, *, mode: str = Mode.SUGGEST, model: str = "qwen-test",
                 prompt: Prompt | None = None) -> Endpoint:
    """The campaign's endpoint (a local address: nothing is ever sent to it here)."""
    return Endpoint.objects.create(campaign=campaign, base_url="http://127.0.0.1:9/v1", model=model, mode=mode,
                                   prompt=prompt)


def llm_prompt(name: str = "umbrela-test", version: int = 1, task: str = Prompt.Task.ANSWERS) -> Prompt:
    return Prompt.objects.create(name=name, version=version, task=task, text="Grade {item} for {topic}: 0-3.")


def llm_grade(campaign: Campaign, topic_id: str, item_id: str, grade: int | None, *, prompt: Prompt,
              model: str = "qwen-test", formula_id: str = "") -> LlmGrade:
    """One LLM grade of an item (formulas: of one instance); `grade` None is a failure with its raw reply."""
    return LlmGrade.objects.create(
        campaign=campaign, topic=Topic.objects.get(campaign=campaign, topic_id=topic_id), item_id=item_id,
        formula_id=formula_id, model=model, prompt=prompt, grade=grade,
        failure="" if grade is not None else "no grade in the reply",
        replies=[f"##final score: {grade}" if grade is not None else "I cannot tell."],
        sample_grades=[grade], tokens_in=120, tokens_out=8, latency=0.2)

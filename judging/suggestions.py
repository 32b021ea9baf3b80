"""The LLM's grades as the judging page shows them in a campaign's suggest mode (docs/judging.md
"What the LLM shows you"): which grade is on screen for an item, and the rule a submit's suggestion must meet. In the
blind mode (the default, and a campaign without an endpoint) nothing of an LLM grade leaves this module."""
from __future__ import annotations

from collections.abc import Iterable

from ir.problems import InputError
from judging.models import Assignment
from llm import selectors as llm_selectors
from llm.models import LlmGrade, Mode
from pooling.models import Campaign, Topic


def suggestions_shown(*, campaign: Campaign, topic: Topic, item_ids: Iterable[str],
                      kind: str) -> dict[tuple[str, str], LlmGrade]:
    """(item id, formula id) -> the LLM grade the judging page shows for it: in suggest mode, the endpoint model's
    current grade of the item (Task 2: of each instance; `llm.selectors.current_grades`, docs/llm.md); {} in any other
    mode. One query for the items of a page and those fetched ahead. `kind` is the assignment's: a check assignment is
    judged blind to both grades (llm_review), so it is shown none."""
    if kind == Assignment.Kind.CHECK:
        return {}
    endpoint = llm_selectors.endpoint_in_mode(campaign, Mode.SUGGEST)
    if endpoint is None:
        return {}
    grades = llm_selectors.current_grades(campaign=campaign, model=endpoint.model, endpoint=endpoint).filter(
        topic=topic, item_id__in=list(item_ids))
    return {(grade.item_id, grade.formula_id): grade for grade in grades}  # oldest first: the newest stays


def suggestions_checked(*, campaign: Campaign, topic: Topic, item_id: str,
                        given: dict[str, int]) -> dict[str, LlmGrade]:
    """The LLM grades a submit says were on screen (formula id, '' for an answer -> LlmGrade id), each checked to be a
    grade of this campaign for that very item (and instance); InputError naming every other. A grade that was on
    screen is recorded whatever the campaign's mode is now: the mode may have changed while the submit waited in the
    browser's outbox, and what the assessor saw stays true."""
    if not given:
        return {}
    found = LlmGrade.objects.in_bulk(set(given.values()))
    problems = []
    checked = {}
    for formula_id, pk in given.items():
        grade = found.get(pk)
        unit = f"instance {formula_id}: " if formula_id else ""
        if (grade is None or grade.campaign_id != campaign.pk or grade.topic_id != topic.pk
                or grade.item_id != item_id or grade.formula_id != formula_id or grade.canary_id is not None
                or grade.grade is None):
            problems.append(f"{unit}suggestion {pk} is no LLM grade of this item in this campaign")
        else:
            checked[formula_id] = grade
    if problems:
        raise InputError(problems)
    return checked

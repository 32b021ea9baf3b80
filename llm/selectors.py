"""Reads of the LLM co-assessor's grades (docs/llm.md): which models graded a campaign, a model's grade of each item as
qrels, and its canaries' grades. A model's grades are a source of their own: nothing here reads or writes people's
judgments.

The one rule of "the LLM's current grade of a unit" (docs/llm.md "Which grade counts") is `current_grades`: the
newest successful grade of the model, canaries and failures left out; when the model is the campaign endpoint's and
the endpoint names a prompt, only that prompt's grades of its task count (another task's items, such as Task 3
answers beside Task 1 posts, keep their own prompt's). Suggest mode, filter mode, the leaderboard's judge, the LLM
agreement and export_qrels --source llm all read it.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import Count, Max, Q, QuerySet
from django.db.models.fields.json import KeyTransform

from ir.prime import natural_key
from ir.problems import InputError
from llm.models import Calibration, Canary, Endpoint, LlmGrade, Prompt
from pooling.models import Campaign

VISUAL, INSTANCE = "visual", "instance"  # as evaluation.selectors.LEVELS: qrels by visual id or by formula instance
LLM_PREFIX = "llm:"  # how an LLM is named beside assessors (agreement) and in a qrels source (export_qrels)


def llm_name(model: str) -> str:
    """The name of a model's column beside assessors: llm:MODEL."""
    return LLM_PREFIX + model


def llm_models(*, campaign: Campaign) -> list[str]:
    """The models with at least one grade of a pool item of the campaign, by name."""
    return sorted(set(LlmGrade.objects.filter(campaign=campaign, canary__isnull=True, grade__isnull=False)
                      .order_by().values_list("model", flat=True).distinct()))


def llm_model_chosen(*, campaign: Campaign, model: str | None = None) -> str:
    """The model a request means: the one named, else the campaign endpoint's, else the only model that graded the
    campaign. InputError when there is no such model, or several and none named."""
    graded = llm_models(campaign=campaign)
    if model:
        if model not in graded:
            known = f": it has grades of {', '.join(graded)}" if graded else ": it has no LLM grades yet"
            raise InputError(f"model '{model[:200]}' graded nothing in campaign '{campaign.name}'{known}")
        return model
    endpoint = Endpoint.objects.filter(campaign=campaign).values_list("model", flat=True).first()
    if endpoint:
        return endpoint
    if len(graded) == 1:
        return graded[0]
    if not graded:
        raise InputError(f"campaign '{campaign.name}' has no LLM grades yet: run llm_judge first")
    raise InputError(f"campaign '{campaign.name}' has grades of several models ({', '.join(graded)}): name one "
                     "(llm:MODEL)")


_NO_ENDPOINT = object()


def current_grades(*, campaign: Campaign, model: str, endpoint: Endpoint | None | object = _NO_ENDPOINT
                   ) -> QuerySet[LlmGrade]:
    """The grades of the campaign's pool items that count as `model`'s, oldest first, so that the last row of a unit
    (item, or Task 2 instance) is its current grade: successful ones (a failure, or a grade the campaign's scheme
    does not have, is no grade), no canary, and, when
    `model` is the campaign endpoint's and the endpoint names a prompt, none of another prompt of that prompt's task.
    `endpoint`: the campaign's endpoint (or None) when the caller has read it already, else it is read here."""
    if endpoint is _NO_ENDPOINT:
        endpoint = Endpoint.objects.filter(campaign=campaign).first()
    # A grade outside the campaign's scheme (stored before the judge checked replies against it) is no grade.
    rows = LlmGrade.objects.filter(campaign=campaign, model=model, canary__isnull=True,
                                   grade__in=[g.value for g in campaign.judging_scheme.grades])
    if isinstance(endpoint, Endpoint) and endpoint.model == model and endpoint.prompt_id is not None:
        task = Prompt.objects.filter(pk=endpoint.prompt_id).values("task")[:1]
        rows = rows.exclude(~Q(prompt_id=endpoint.prompt_id) & Q(prompt__task=task))
    return rows.order_by("created_at", "pk")


def item_grades(grades: dict[tuple[str, str, str], int]) -> dict[tuple[str, str], int]:
    """(topic id, item id) -> the grade of the item: a formula's visual id takes the highest grade of its graded
    instances, as the official qrels do."""
    out: dict[tuple[str, str], int] = {}
    for (topic_id, item_id, _formula), grade in grades.items():
        out[topic_id, item_id] = max(grade, out.get((topic_id, item_id), grade))
    return out


def llm_grades(*, campaign: Campaign, model: str, topic_pk: int | None = None,
               endpoint: Endpoint | None | object = _NO_ENDPOINT) -> dict[tuple[str, str, str], int]:
    """(topic id, item id, formula id) -> the model's current grade (`current_grades`) of that pool item (formulas:
    of that instance), of every topic or of one (`topic_pk`)."""
    rows = current_grades(campaign=campaign, model=model, endpoint=endpoint)
    if topic_pk is not None:
        rows = rows.filter(topic_id=topic_pk)
    return {(topic_id, item_id, formula_id): grade for topic_id, item_id, formula_id, grade
            in rows.values_list("topic__topic_id", "item_id", "formula_id", "grade") if grade is not None}


def llm_qrels_by_topic(*, campaign: Campaign, model: str, level: str = VISUAL
                       ) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """The model's grades as qrels, as evaluation's `qrels_by_topic` gives people's: (topic id, [(item id, grade)])
    with topics and items in natural order; formulas by visual id (the highest grade of its graded instances) or by
    instance (`level="instance"`)."""
    if level not in (VISUAL, INSTANCE):
        raise ValueError(f"level must be visual or instance, not {level!r}")
    grades = llm_grades(campaign=campaign, model=model)
    by_unit = ({(topic_id, formula_id): grade for (topic_id, _item, formula_id), grade in grades.items()}
               if campaign.task == Campaign.Task.FORMULAS and level == INSTANCE else item_grades(grades))
    by_topic: dict[str, dict[str, int]] = {}
    for (topic_id, unit), grade in by_unit.items():
        by_topic.setdefault(topic_id, {})[unit] = grade
    for topic_id in sorted(by_topic, key=natural_key):
        yield topic_id, sorted(by_topic[topic_id].items(), key=lambda row: natural_key(row[0]))



def endpoint_in_mode(campaign: Campaign, mode: str) -> Endpoint | None:
    """The campaign's endpoint when it is in `mode` (suggest or filter), else None (another mode, or no endpoint):
    what the judging page and the live order ask before reading any grade. A campaign read with its endpoint
    (select_related("campaign__llm_endpoint"), as the judging pages read theirs) is answered without a query."""
    if Campaign.llm_endpoint.is_cached(campaign):
        endpoint = getattr(campaign, "llm_endpoint", None)  # None cached: the campaign has none
        return endpoint if endpoint is not None and endpoint.mode == mode else None
    return Endpoint.objects.filter(campaign=campaign, mode=mode).first()

@dataclass(frozen=True)
class CanaryGrade:
    kind: str
    topic: str
    source_item_id: str
    grade: int | None  # None: the model has no grade of it (not asked yet, or a failure)


def canary_grades(*, campaign: Campaign, model: str) -> list[CanaryGrade]:
    """Every canary of the campaign with the model's latest grade of it, by kind, topic and source item."""
    latest = {canary: grade for canary, grade in LlmGrade.objects.filter(
        campaign=campaign, model=model, canary__isnull=False, grade__isnull=False)
        .order_by("created_at", "pk").values_list("canary_id", "grade") if grade is not None}
    canaries = Canary.objects.filter(campaign=campaign).values_list("pk", "kind", "topic__topic_id", "source_item_id")
    return sorted((CanaryGrade(kind, topic_id, source, latest.get(pk)) for pk, kind, topic_id, source in canaries),
                  key=lambda c: (c.kind, natural_key(c.topic), natural_key(c.source_item_id)))


# Calibration (docs/llm_calibration.md, "In the product") ----------------------------------------------------------

def grade_probabilities(*, campaign: Campaign, model: str) -> dict[tuple[str, str], list[float]]:
    """(topic id, item id) -> the model's probability of each grade of the scheme (0, 1, ... to its highest) of every
    pool item it has a current grade of (`current_grades`): its stored probabilities, or, where none were stored,
    probability 1 on its grade. A formula takes the instance of its highest grade (as the qrels do), the newest among
    equal ones."""
    size = max(g.value for g in campaign.judging_scheme.grades) + 1
    found: dict[tuple[str, str], tuple[int, list[float]]] = {}
    rows = current_grades(campaign=campaign, model=model).values_list("topic__topic_id", "item_id", "grade",
                                                                       "probabilities")
    for topic_id, item_id, grade, stored in rows.iterator(chunk_size=5000):
        if grade is None:  # not in a current grade's rows; said for the type
            continue
        vector = [float(stored.get(str(g), 0.0)) for g in range(size)] if stored else []
        if sum(vector) <= 0:
            vector = [1.0 if g == grade else 0.0 for g in range(size)]
        else:
            vector = [p / sum(vector) for p in vector]
        key = (topic_id, item_id)
        if key not in found or grade >= found[key][0]:
            found[key] = (grade, vector)
    return {key: vector for key, (_grade, vector) in found.items()}


def grades_stamp(*, campaign: Campaign, model: str) -> str:
    """What changes when the model's grades of the campaign change: their number and the newest one's time."""
    found = LlmGrade.objects.filter(campaign=campaign, model=model, canary__isnull=True).aggregate(
        n=Count("pk"), last=Max("created_at"))
    return f"{found['n']}|{found['last'].isoformat() if found['last'] else ''}"


def calibrated_grades(*, campaign: Campaign, model: str) -> dict[str, dict[str, int]]:
    """topic id -> item id -> the calibrated most probable grade (the lowest of equal ones) of every pooled item the
    model graded: what the hybrid qrels give an item no person judged. InputError before any calibration."""
    found = Calibration.objects.filter(campaign=campaign, model=model).values_list("probabilities", flat=True).first()
    if found is None:
        raise InputError(f"no calibration of {model[:200]} on campaign '{campaign.name}' yet: it is fitted on the "
                         "official judgments when the agreement page is opened (a job); try again once it is done")
    return {topic: {item: p.index(max(p)) for item, p in items.items()} for topic, items in found.items()}


def order_calibration(*, campaign: Campaign, topic_id: str) -> dict[str, list[float]]:
    """item id -> calibrated probabilities of one topic's items, as the `uncertain` judging order reads them: the
    calibration of the campaign endpoint's model, else the one fitted last; empty when there is none (the order is
    then random's). Only that topic's part of the stored JSON is read."""
    rows = Calibration.objects.filter(campaign=campaign)
    endpoint = Endpoint.objects.filter(campaign=campaign).values_list("model", flat=True).first()
    if endpoint and rows.filter(model=endpoint).exists():
        rows = rows.filter(model=endpoint)
    found = (rows.order_by("-fitted_at", "-pk").annotate(topic=KeyTransform(topic_id, "probabilities"))
             .values_list("topic", flat=True).first())
    return found or {}

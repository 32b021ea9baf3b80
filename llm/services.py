"""The LLM co-assessor's writes (docs/llm.md): prompts and their versions, a campaign's endpoint, canaries,
and `llm_judge`, which asks a model for the grade of each pool item (Task 2: each selected instance) and canary and
stores every answer as an LlmGrade.

The HTTP runs in llm.client's event loop (its own thread); this module hands it prompts and writes the verdicts in
batches from the caller's thread, each batch its own transaction: a cancelled or interrupted job keeps what it
judged, and the next run asks only for what is not graded yet (a failure is asked again)."""
from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import asdict, dataclass, field
from functools import reduce
from itertools import islice
from operator import or_
from pathlib import Path
from typing import Any, Protocol

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from ir.canaries import PLANTED, STUFFED, canary_seed, canary_sources, planted, stuffed, topic_terms
from ir.grades import Scheme
from ir.html_text import html_text
from ir.llm_replies import FIELDS, prompt_fill, template_fields
from ir.problems import InputError
from llm import selectors
from llm.client import EndpointSettings, Judge, Verdict, base_url_normalised
from llm.models import Calibration, Canary, Endpoint, LlmGrade, Prompt
from pooling.models import AnswerText, Campaign, Formula, PoolInstance, PoolItem, Post, Topic

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
# The prompt each task starts with: name -> (task, file shipped as version 1).
DEFAULT_PROMPTS = {
    Prompt.Task.ANSWERS: "umbrela-bing",
    Prompt.Task.FORMULAS: "arqmath-formula",
    Prompt.Task.TASK3: "arqmath-task3",
}
# The fields a prompt of each task must fill in.
REQUIRED_FIELDS = {
    Prompt.Task.ANSWERS: ("query", "passage"),
    Prompt.Task.FORMULAS: ("query", "passage", "formula"),
    Prompt.Task.TASK3: ("query", "passage"),
}
# The fields filled in for a prompt of each task (what an error lists).
TASK_FIELDS = {
    Prompt.Task.ANSWERS: ("query", "passage"),
    Prompt.Task.FORMULAS: FIELDS,
    Prompt.Task.TASK3: ("query", "passage"),
}
# The most characters a prompt's text may have (the page and any other caller): the shipped ones have under 3,000.
PROMPT_MAX_CHARS = 20_000
# Verdicts are written at least this often (and a cancel is seen between two writes).
BATCH = 64
BATCH_SECONDS = 2.0
# Items whose texts are read from the database at once.
TEXT_CHUNK = 500
# How many of a run's distinct failure reasons its result keeps.
FAILURE_REASONS = 3

class Progress(Protocol):
    """The job's progress: the fraction done, and what to say of it while it runs ("120 of 2,000 items ...")."""

    def __call__(self, fraction: float, text: str = "") -> None: ...


Cancelled = Callable[[], bool]


# Prompts ---------------------------------------------------------------------------------------------------------

def prompt_default(*, task: str) -> Prompt:
    """The latest version of the task's shipped prompt, created as version 1 from llm/prompts/ on first use."""
    return prompt_named(name=DEFAULT_PROMPTS[Prompt.Task(task)])


def prompt_named(*, name: str) -> Prompt:
    """`NAME` (its latest version) or `NAME@V`; a shipped prompt's name works before anyone used it."""
    base, _, version = name.partition("@")
    shipped = {value: task for task, value in DEFAULT_PROMPTS.items()}
    if base in shipped and not Prompt.objects.filter(name=base).exists():
        text = (PROMPTS_DIR / f"{base}.txt").read_text(encoding="utf-8")
        Prompt.objects.get_or_create(name=base, version=1, defaults={"task": shipped[base], "text": text})
    prompts = Prompt.objects.filter(name=base)
    if version:
        if not version.isascii() or not version.isdigit():
            raise InputError(f"'{name}': a prompt is NAME or NAME@VERSION, VERSION a whole number")
        prompts = prompts.filter(version=int(version))
    found = prompts.order_by("-version").first()
    if found is None:
        known = ", ".join(sorted({*Prompt.objects.values_list("name", flat=True), *shipped})) or "none"
        raise InputError(f"no prompt named '{name}' (prompts: {known})")
    return found


def prompt_check(*, task: str, text: str) -> None:
    """A template's text must fill in what its task's prompt needs: `{query}`, `{passage}` (and `{formula}` for
    formulas)."""
    named = template_fields(text)
    missing = [name for name in REQUIRED_FIELDS[Prompt.Task(task)] if name not in named]
    if not text.strip():
        raise InputError("the prompt is empty")
    if len(text) > PROMPT_MAX_CHARS:
        raise InputError(f"the prompt has {len(text):,} characters, more than {PROMPT_MAX_CHARS:,}")
    if missing:
        fields = TASK_FIELDS[Prompt.Task(task)]
        raise InputError(f"the prompt must name {', '.join('{' + m + '}' for m in missing)}, filled in with the "
                         f"topic and the item (fields: {', '.join('{' + f + '}' for f in fields)})")


@transaction.atomic
def prompt_edit(*, prompt: Prompt, text: str, campaign: Campaign | None = None) -> Prompt:
    """A new version of the prompt with `text` (the one given is kept: grades name the version they were made with);
    the campaign's endpoint, if it used this prompt, uses the new version. The same text again makes nothing new."""
    prompt_check(task=prompt.task, text=text)
    latest = Prompt.objects.select_for_update().filter(name=prompt.name).order_by("-version").first()
    assert latest is not None
    if latest.text == text:
        made = latest
    else:
        made = Prompt.objects.create(name=prompt.name, version=latest.version + 1, task=prompt.task, text=text)
    if campaign is not None:
        Endpoint.objects.filter(campaign=campaign, prompt__name=prompt.name).update(prompt=made)
    return made


def prompts_of_campaign(*, campaign: Campaign) -> list[Prompt]:
    """The latest version of every prompt a campaign of its task can use, its defaults first created."""
    tasks = [Prompt.Task.FORMULAS] if campaign.task == Campaign.Task.FORMULAS else [Prompt.Task.ANSWERS,
                                                                                     Prompt.Task.TASK3]
    for task in tasks:
        prompt_default(task=task)
    latest = Prompt.objects.filter(task__in=tasks).values("name").annotate(last=Max("version"))
    wanted = Q(pk__in=[])
    for row in latest:
        wanted |= Q(name=row["name"], version=row["last"])
    return list(Prompt.objects.filter(wanted).order_by("task", "name"))


# The endpoint ----------------------------------------------------------------------------------------------------

ENDPOINT_FIELDS = ("base_url", "model", "api_key_env", "temperature", "concurrency", "timeout", "retries", "samples",
                   "prompt", "mode")


def endpoint_update(*, campaign: Campaign, values: Mapping[str, Any]) -> Endpoint:
    """Sets the campaign's endpoint fields given in `values` (validated by the caller's form or serializer); the
    endpoint is created with the first save. No prompt chosen means the task default's latest version, pinned now
    (docs/llm.md "Prompts are shared, versions are pinned")."""
    endpoint = Endpoint.objects.filter(campaign=campaign).first() or Endpoint(campaign=campaign)
    for name in ENDPOINT_FIELDS:
        if name in values:
            setattr(endpoint, name, values[name])
    if not endpoint.base_url or not endpoint.model:
        raise InputError("an endpoint needs a base URL and a model")
    if endpoint.prompt is None:
        # Pinned to the task default's version of today: an edit made for another campaign never changes this one's.
        endpoint.prompt = prompt_default(task=campaign.task)
    endpoint.save()
    return endpoint


def endpoint_settings(*, campaign: Campaign, overrides: Mapping[str, Any] | None = None) -> EndpointSettings:
    """The campaign's endpoint with a run's overrides (a command's options; None: not given)."""
    given = {name: value for name, value in (overrides or {}).items() if value is not None}
    endpoint = Endpoint.objects.filter(campaign=campaign).first()
    base = {name: getattr(endpoint, name) for name in EndpointSettings.__dataclass_fields__} if endpoint else {}
    values = {**base, **{name: value for name, value in given.items() if name in EndpointSettings.__dataclass_fields__}}
    if not values.get("base_url") or not values.get("model"):
        raise InputError(f"campaign '{campaign.name}' has no LLM endpoint: set one on its LLM page, or give a base "
                         "URL and a model")
    values["base_url"] = base_url_normalised(values["base_url"])  # also an endpoint saved before the check
    if values.get("concurrency", 1) < 1 or values.get("samples", 1) < 1:
        raise InputError("concurrency and samples must be at least 1")
    return EndpointSettings(**values)


# What the model is shown -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    """One thing to grade: a pool item (Task 2: one selected instance of it) or a canary."""

    topic_pk: int
    item_id: str
    formula_id: str = ""
    task: str = Prompt.Task.ANSWERS  # which prompt it takes
    canary_pk: int | None = None

    @property
    def key(self) -> tuple:
        return ("canary", self.canary_pk) if self.canary_pk is not None else (self.topic_pk, self.item_id,
                                                                               self.formula_id)


def topics_chosen(*, campaign: Campaign, topic_ids: Sequence[str] | None) -> list[Topic]:
    """The campaign's topics named (each once, in the order given), all of them for none; an unknown one is refused
    (the page's form, the API and the command say the same)."""
    topics = list(campaign.topics.order_by("position"))
    if not topic_ids:
        return topics
    known = {topic.topic_id: topic for topic in topics}
    unknown = [topic_id for topic_id in topic_ids if topic_id not in known]
    if unknown:
        raise InputError([f"topic '{topic_id}' is not a topic of campaign '{campaign.name}'" for topic_id in unknown])
    return [known[topic_id] for topic_id in dict.fromkeys(topic_ids)]


def _pool_units(campaign: Campaign, topics: Sequence[Topic], limit: int | None) -> list[Unit]:
    """The pool items of the topics in display order, the first `limit` per topic (formulas: their selected
    instances, highest vote first)."""
    items: dict[int, list[PoolItem]] = {topic.pk: [] for topic in topics}
    for item in PoolItem.objects.filter(topic__in=list(items)).order_by("topic_id", "position").only(
            "pk", "topic_id", "item_id"):
        if limit is None or len(items[item.topic_id]) < limit:
            items[item.topic_id].append(item)
    units: list[Unit] = []
    if campaign.task == Campaign.Task.FORMULAS:
        instances: dict[int, list[str]] = {}
        wanted = [item.pk for topic_items in items.values() for item in topic_items]
        for item_pk, formula_id in PoolInstance.objects.filter(item_id__in=wanted, selected=True).order_by(
                "-vote", "formula_id").values_list("item_id", "formula_id"):
            instances.setdefault(item_pk, []).append(formula_id)
        for topic in topics:
            units += [Unit(topic.pk, item.item_id, formula_id, Prompt.Task.FORMULAS)
                      for item in items[topic.pk] for formula_id in instances.get(item.pk, [])]
        return units
    answers = set(AnswerText.objects.filter(campaign=campaign).values_list("topic_id", "answer_id"))
    for topic in topics:
        units += [Unit(topic.pk, item.item_id, "",
                       Prompt.Task.TASK3 if (topic.pk, item.item_id) in answers else Prompt.Task.ANSWERS)
                  for item in items[topic.pk]]
    return units


def _canary_units(campaign: Campaign, topics: Sequence[Topic]) -> list[Unit]:
    canaries = Canary.objects.filter(campaign=campaign, topic__in=list(topics)).order_by("topic_id", "source_item_id",
                                                                                          "kind")
    rows = list(canaries.values_list("pk", "topic_id", "source_item_id"))
    if campaign.task == Campaign.Task.FORMULAS:
        first = _first_instances(campaign, {(topic_pk, item_id) for _pk, topic_pk, item_id in rows})
        return [Unit(topic_pk, item_id, first.get((topic_pk, item_id), ""), Prompt.Task.FORMULAS, pk)
                for pk, topic_pk, item_id in rows]
    answers = set(AnswerText.objects.filter(campaign=campaign).values_list("topic_id", "answer_id"))
    return [Unit(topic_pk, item_id, "", Prompt.Task.TASK3 if (topic_pk, item_id) in answers else Prompt.Task.ANSWERS,
                 pk) for pk, topic_pk, item_id in rows]


def _first_instances(campaign: Campaign, items: set[tuple[int, str]]) -> dict[tuple[int, str], str]:
    """(topic pk, visual id) -> its selected instance with the highest vote."""
    first: dict[tuple[int, str], str] = {}
    topic_pks = {topic_pk for topic_pk, _ in items}
    for topic_pk, item_id, formula_id in PoolInstance.objects.filter(
            item__topic_id__in=topic_pks, selected=True).order_by("-vote", "formula_id").values_list(
            "item__topic_id", "item__item_id", "formula_id"):
        if (topic_pk, item_id) in items:
            first.setdefault((topic_pk, item_id), formula_id)
    return first


def topic_text(topic: Topic) -> str:
    """A topic as the model reads it: its title and question as plain text with their LaTeX (and a TREC topic's
    description and narrative)."""
    parts = [html_text(topic.title), html_text(topic.question), topic.description, topic.narrative]
    return "\n\n".join(part.strip() for part in parts if part and part.strip())


def query_formula(topic: Topic) -> str:
    """A Task 2 topic's query formula as LaTeX between dollars: its <Latex>, or else the text of its formula's span in
    the question."""
    if topic.latex:
        return f"${topic.latex.strip().strip('$')}$"
    if topic.formula_id:
        span = re.search(r"<span\b[^>]*\bid=[\"']?" + re.escape(topic.formula_id) + r"(?=[\"'\s>])[^>]*>(.*?)</span>",
                         topic.question, re.DOTALL)
        if span:
            return html_text(span.group(1))
    return ""


def scheme_fields(scheme: Scheme) -> dict[str, str]:
    """A prompt's `{scale}` ("0 to 2") and `{grades}` (a line per grade, highest first: "2 = Highly relevant: ..."):
    the model is asked for the campaign's own grades, and any other reply is a failure (llm.client.Judge)."""
    lines = [f"{g.value} = {g.label}: {g.definition.rstrip('.')}" if g.definition else f"{g.value} = {g.label}"
             for g in sorted(scheme.grades, key=lambda g: -g.value)]
    return {"scale": scheme.scale, "grades": ",\n".join(lines) + "."}


class _Texts:
    """The texts of a chunk of units, read in a few queries."""

    def __init__(self, campaign: Campaign, units: Sequence[Unit], topics: Mapping[int, Topic]) -> None:
        collection = campaign.collection_id
        item_ids = {unit.item_id for unit in units}
        formula_ids = {unit.formula_id for unit in units if unit.formula_id}
        self.formulas = {f.formula_id: f for f in Formula.objects.filter(
            collection_id=collection, formula_id__in=formula_ids).only("formula_id", "post_id", "latex")
        } if collection is not None else {}
        post_ids = item_ids | {f.post_id for f in self.formulas.values()}
        self.posts = {p.post_id: p for p in Post.objects.filter(collection_id=collection, post_id__in=post_ids).only(
            "post_id", "title", "body")} if collection is not None else {}
        self.answers = {(a.topic_id, a.answer_id): a.text for a in AnswerText.objects.filter(
            campaign=campaign, answer_id__in=item_ids)}
        self.canaries = dict(Canary.objects.filter(pk__in=[u.canary_pk for u in units if u.canary_pk is not None])
                             .values_list("pk", "text"))
        self.topics = topics
        self.scheme = scheme_fields(campaign.judging_scheme)

    def item(self, unit: Unit) -> str:
        """The item's plain text (a canary's own), or "" when the collection does not hold it."""
        if unit.canary_pk is not None:
            return self.canaries.get(unit.canary_pk, "")
        return self.source(unit)

    def source(self, unit: Unit) -> str:
        if unit.task == Prompt.Task.TASK3:
            return self.answers.get((unit.topic_pk, unit.item_id), "")
        if unit.task == Prompt.Task.FORMULAS:
            formula = self.formulas.get(unit.formula_id)
            post = self.posts.get(formula.post_id) if formula else None
        else:
            post = self.posts.get(unit.item_id)
        if post is None:
            return ""
        return "\n\n".join(text for text in (html_text(post.title), html_text(post.body)) if text)

    def fields(self, unit: Unit) -> dict[str, str] | None:
        """The values of a prompt's fields for the unit, None when its text is missing."""
        passage = self.item(unit)
        if not passage:
            return None
        topic = self.topics[unit.topic_pk]
        values = {"query": topic_text(topic), "passage": passage, **self.scheme}
        if unit.task == Prompt.Task.FORMULAS:
            formula = self.formulas.get(unit.formula_id)
            if formula is None:
                return None
            values["query_formula"] = query_formula(topic)
            values["formula"] = f"${formula.latex}$"
        return values


# Canaries --------------------------------------------------------------------------------------------------------

@dataclass
class CanariesResult:
    created: int = 0
    # topic id -> where its canaries' sources came from: "official" (items people graded 0), "llm" (items the model
    # graded 0) or "none" (neither: no canary).
    sources: dict[str, str] = field(default_factory=dict)


@transaction.atomic
def canaries_create(*, campaign: Campaign, topics: Sequence[Topic], per_topic: int, model: str,
                    official_zeros: Mapping[str, Sequence[str]]) -> CanariesResult:
    """Up to `per_topic` canary sources per topic, each made into two canaries (keywords stuffed, an instruction
    planted): pool items the official judgments graded 0 when the topic has any, else items `model` graded 0.
    A topic with canaries already gets only as many new sources as it lacks; canaries are never pooled."""
    result = CanariesResult()
    if per_topic <= 0:
        return result
    pooled = {(topic_pk, item_id) for topic_pk, item_id in PoolItem.objects.filter(
        topic__in=list(topics)).values_list("topic_id", "item_id")}
    by_topic = {topic.pk: topic for topic in topics}
    # The model's current grades (selectors.current_grades; a formula: the highest of its instances), as the filter
    # mode reads them: an item graded 0 once and relevant since is no source.
    pks = {topic.topic_id: topic.pk for topic in topics}
    llm_zeros: dict[int, set[str]] = {}
    for (topic_id, item_id), grade in selectors.item_grades(selectors.llm_grades(campaign=campaign, model=model)
                                                            ).items():
        if grade == 0 and topic_id in pks:
            llm_zeros.setdefault(pks[topic_id], set()).add(item_id)
    plans: list[tuple[Topic, list[str]]] = []
    for topic in topics:
        have = set(Canary.objects.filter(topic=topic).values_list("source_item_id", flat=True))
        official = [item for item in official_zeros.get(topic.topic_id, ()) if (topic.pk, item) in pooled]
        zeros, source = (official, "official") if official else (sorted(llm_zeros.get(topic.pk, ())), "llm")
        result.sources[topic.topic_id] = source if zeros else "none"
        wanted = per_topic - len(have)
        if wanted > 0 and zeros:
            plans.append((topic, canary_sources([z for z in zeros if z not in have], wanted,
                                                seed=canary_seed(campaign.seed, topic.topic_id, "", "sources"))))
    first = _first_instances(campaign, {(topic.pk, item) for topic, items in plans for item in items}) \
        if campaign.task == Campaign.Task.FORMULAS else {}
    answers = set(AnswerText.objects.filter(campaign=campaign).values_list("topic_id", "answer_id"))
    units = [Unit(topic.pk, item, first.get((topic.pk, item), ""),
                  Prompt.Task.FORMULAS if campaign.task == Campaign.Task.FORMULAS else
                  Prompt.Task.TASK3 if (topic.pk, item) in answers else Prompt.Task.ANSWERS)
             for topic, items in plans for item in items]
    texts = _Texts(campaign, units, by_topic)
    made = []
    for unit in units:
        topic = by_topic[unit.topic_pk]
        text = texts.source(unit)
        if not text:
            continue
        terms = topic_terms(topic_text(topic))
        made.append(Canary(campaign=campaign, topic=topic, source_item_id=unit.item_id, kind=STUFFED,
                           text=stuffed(text, terms, seed=canary_seed(campaign.seed, topic.topic_id, unit.item_id,
                                                                      STUFFED))))
        made.append(Canary(campaign=campaign, topic=topic, source_item_id=unit.item_id, kind=PLANTED,
                           text=planted(text, seed=canary_seed(campaign.seed, topic.topic_id, unit.item_id, PLANTED))))
    Canary.objects.bulk_create(made, ignore_conflicts=True)
    result.created = len(made)
    return result


# Judging ---------------------------------------------------------------------------------------------------------

MISSING_TEXT = "the item's text is not in the collection: nothing was sent (load its text, then run again)"


@dataclass
class LlmJudgeResult:
    """What a judging run did: `judged` grades and `failed` failures stored now, `skipped` already graded (by this
    model and prompt version), tokens, seconds; `cancelled` when it stopped early on request; the commonest failure
    reasons, and `all_failed` when there were failures and no grade (`gave_up` when the first GIVE_UP requests all
    failed and the run stopped there)."""

    model: str
    prompts: list[str] = field(default_factory=list)
    judged: int = 0
    failed: int = 0
    # Units whose text the collection lacks: stored with MISSING_TEXT, never sent, and not a failure to try again.
    missing: int = 0
    skipped: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    canaries_created: int = 0
    canary_sources: dict[str, str] = field(default_factory=dict)
    cancelled: bool = False
    # The commonest reasons of this run's failures, [count, reason], commonest first (FAILURE_REASONS of them).
    failure_reasons: list[list[Any]] = field(default_factory=list)
    # Every request failed and nothing was graded (an endpoint unreachable, a wrong model): the job ends "failed".
    all_failed: bool = False
    # The first GIVE_UP requests all failed: the run stopped there instead of trying every item against an endpoint
    # that does not answer (the next run sends the rest).
    gave_up: bool = False

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _prompts(campaign: Campaign, chosen: Prompt | None) -> dict[str, Prompt]:
    """The prompt of each kind of unit: the task's default, or the one chosen for its task."""
    endpoint = Endpoint.objects.filter(campaign=campaign).select_related("prompt").first()
    chosen = chosen or (endpoint.prompt if endpoint else None)
    tasks = [Prompt.Task.FORMULAS] if campaign.task == Campaign.Task.FORMULAS else [Prompt.Task.ANSWERS,
                                                                                     Prompt.Task.TASK3]
    if chosen is not None and chosen.task not in tasks:
        raise InputError(f"prompt '{chosen}' is a {chosen.get_task_display()} prompt: campaign '{campaign.name}' "
                         f"judges {campaign.get_task_display()}")
    prompts: dict[str, Prompt] = {str(task): prompt_default(task=task) for task in tasks}
    if chosen is not None:
        prompts[chosen.task] = chosen
    return prompts


def _graded(campaign: Campaign, model: str, prompts: Iterable[Prompt], *, canaries: bool) -> set[tuple[tuple, int]]:
    """(unit key, prompt pk) of every unit this model has a grade for (a failure is asked again)."""
    rows = LlmGrade.objects.filter(campaign=campaign, model=model, prompt__in=list(prompts), grade__isnull=False,
                                   canary__isnull=not canaries)
    if canaries:
        return {(("canary", canary), prompt) for canary, prompt in rows.values_list("canary_id", "prompt_id")}
    return {((topic, item, formula), prompt)
            for topic, item, formula, prompt in rows.values_list("topic_id", "item_id", "formula_id", "prompt_id")}


def _store(campaign: Campaign, model: str, done: list[tuple[Unit, Prompt, Verdict]]) -> None:
    """One batch of verdicts, in one transaction, each replacing the failure stored for its unit before."""
    if not done:
        return
    keys = [Q(canary_id=unit.canary_pk, prompt=prompt) if unit.canary_pk is not None else
            Q(canary__isnull=True, topic_id=unit.topic_pk, item_id=unit.item_id, formula_id=unit.formula_id,
              prompt=prompt) for unit, prompt, _verdict in done]
    with transaction.atomic():
        LlmGrade.objects.filter(reduce(or_, keys), campaign=campaign, model=model).delete()
        LlmGrade.objects.bulk_create([
            LlmGrade(campaign=campaign, topic_id=unit.topic_pk, item_id=unit.item_id, formula_id=unit.formula_id,
                     canary_id=unit.canary_pk, model=model, prompt=prompt, grade=verdict.grade,
                     failure=verdict.failure[:500], replies=verdict.replies, sample_grades=verdict.sample_grades,
                     probabilities={str(grade): p for grade, p in verdict.probabilities.items()},
                     probability_source=verdict.probability_source,
                     tokens_in=verdict.tokens_in, tokens_out=verdict.tokens_out, latency=verdict.latency)
            for unit, prompt, verdict in done])


def _prompted(campaign: Campaign, units: Sequence[Unit], prompts: Mapping[str, Prompt], topics: Mapping[int, Topic]
              ) -> Iterator[tuple[Unit, Prompt, str | None]]:
    """Each unit with its prompt's text (None: the item's text is missing), the texts read TEXT_CHUNK at a time."""
    it = iter(units)
    while chunk := list(islice(it, TEXT_CHUNK)):
        texts = _Texts(campaign, chunk, topics)
        for unit in chunk:
            prompt = prompts[unit.task]
            values = texts.fields(unit)
            yield unit, prompt, prompt_fill(prompt.text, values) if values is not None else None


# Requests that may fail before the first grade comes back: past this many the endpoint (or the model, or the prompt)
# is wrong, and trying every item would take minutes (hours, with retries over a dead address) to say so.
GIVE_UP = 20


class _Run:
    """Keeps up to a window of prompts in the judge's hands, and writes what comes back in batches."""

    def __init__(self, campaign: Campaign, judge: Judge, result: LlmJudgeResult, *, total: int,
                 progress: Progress | None, cancelled: Cancelled | None) -> None:
        self.campaign, self.judge, self.result = campaign, judge, result
        self.total, self.done_count = max(total, 1), 0
        self.progress, self.cancelled = progress, cancelled
        self.window = judge.settings.concurrency * 2 + 2
        self.reasons: Counter[str] = Counter()
        self.answered = self.sent_failed = 0  # replies with a grade, and requests that failed, of this run

    def run(self, work: Iterator[tuple[Unit, Prompt, str | None]]) -> None:
        """Sends the work, writes what comes back at least every BATCH verdicts or BATCH_SECONDS, and asks
        `cancelled` as often (also while a slow model keeps every request waiting): once cancelled, what came back
        is written and the prompts still out are dropped (the next run sends them again)."""
        in_flight: dict[Future[Verdict], tuple[Unit, Prompt]] = {}
        done: list[tuple[Unit, Prompt, Verdict]] = []
        exhausted = False
        written_at = checked_at = time.monotonic()
        try:
            while True:
                while not exhausted and len(in_flight) < self.window:
                    nxt = next(work, None)
                    if nxt is None:
                        exhausted = True
                        break
                    unit, prompt, text = nxt
                    if text is None:
                        done.append((unit, prompt, Verdict.failed(MISSING_TEXT)))
                    else:
                        in_flight[self.judge.submit(text)] = (unit, prompt)
                if in_flight:
                    finished, _ = wait(in_flight, timeout=BATCH_SECONDS, return_when=FIRST_COMPLETED)
                    for future in finished:
                        verdict = future.result()
                        done.append((*in_flight.pop(future), verdict))
                        if verdict.grade is None:
                            self.sent_failed += 1
                        else:
                            self.answered += 1
                    if not self.answered and self.sent_failed >= GIVE_UP:
                        self._write(done)
                        self.result.gave_up = True
                        return
                last = exhausted and not in_flight
                now = time.monotonic()
                if done and (last or len(done) >= BATCH or now - written_at >= BATCH_SECONDS):
                    self._write(done)
                    done, written_at = [], now
                if last:
                    return
                if self.cancelled is not None and now - checked_at >= BATCH_SECONDS:
                    checked_at = now
                    if self.cancelled():
                        self._write(done)
                        self.result.cancelled = True
                        return
        finally:
            for future in in_flight:  # cancelled (or an error): prompts not answered yet are left for the next run
                future.cancel()

    def _write(self, done: list[tuple[Unit, Prompt, Verdict]]) -> None:
        if not done:
            return
        _store(self.campaign, self.result.model, done)
        for _unit, _prompt, verdict in done:
            if verdict.failure == MISSING_TEXT:  # never sent, and no run sends it until its text is loaded
                self.result.missing += 1
            elif verdict.grade is None:
                self.result.failed += 1
                self.reasons[verdict.failure[:500]] += 1
            else:
                self.result.judged += 1
            self.result.tokens_in += verdict.tokens_in
            self.result.tokens_out += verdict.tokens_out
        self.done_count += len(done)
        self.result.failure_reasons = [[count, reason] for reason, count in self.reasons.most_common(FAILURE_REASONS)]
        if self.progress is not None:
            self.progress(min(self.done_count / self.total, 1.0),
                          f"{self.done_count:,} of {self.total:,} items answered ({self.result.judged:,} graded, "
                          f"{self.result.failed:,} failed)")


def llm_judge(*, campaign: Campaign, settings: EndpointSettings, prompt: Prompt | None = None,
              topics: Sequence[str] | None = None, limit_per_topic: int | None = None, canaries: int = 0,
              official_zeros: Mapping[str, Sequence[str]] | None = None, progress: Progress | None = None,
              cancelled: Cancelled | None = None) -> LlmJudgeResult:
    """Asks the endpoint's model for a grade of every pool item of the campaign (Task 2: every selected instance),
    the first `limit_per_topic` items of each topic, of the `topics` given or all, that this model and prompt
    version has not graded yet; then, with `canaries`, makes up to that many canary sources per topic (from
    `official_zeros`, topic id -> items people graded 0, else from what the model just graded 0) and grades the
    topics' canaries the same way. `cancelled` is asked between batches: the run stops there, keeping what it
    stored."""
    started = time.perf_counter()
    if limit_per_topic is not None and limit_per_topic < 1:
        raise InputError("the limit per topic must be at least 1")
    if canaries < 0:
        raise InputError("the number of canaries per topic cannot be negative")
    prompts = _prompts(campaign, prompt)
    chosen_topics = topics_chosen(campaign=campaign, topic_ids=topics)
    by_pk = {topic.pk: topic for topic in chosen_topics}
    result = LlmJudgeResult(model=settings.model, prompts=[str(p) for p in prompts.values()])
    scheme = campaign.judging_scheme  # the prompt's scale and the grades a reply may give (docs/llm.md)
    with Judge(settings, grades=[g.value for g in scheme.grades], scale=scheme.scale) as judge:
        # A key named but not set stopped it above: nothing was sent.
        units = _pool_units(campaign, chosen_topics, limit_per_topic)
        graded = _graded(campaign, settings.model, prompts.values(), canaries=False)
        todo = [unit for unit in units if (unit.key, prompts[unit.task].pk) not in graded]
        result.skipped = len(units) - len(todo)
        expected = len(todo) + 2 * canaries * len(chosen_topics)
        run = _Run(campaign, judge, result, total=expected, progress=progress, cancelled=cancelled)
        if cancelled is None or not cancelled():
            run.run(_prompted(campaign, todo, prompts, by_pk))
        else:
            result.cancelled = True
        if canaries and not result.cancelled and not result.gave_up:
            made = canaries_create(campaign=campaign, topics=chosen_topics, per_topic=canaries, model=settings.model,
                                   official_zeros=official_zeros or {})
            result.canaries_created, result.canary_sources = made.created, made.sources
            units = _canary_units(campaign, chosen_topics)
            graded = _graded(campaign, settings.model, prompts.values(), canaries=True)
            todo = [unit for unit in units if (unit.key, prompts[unit.task].pk) not in graded]
            result.skipped += len(units) - len(todo)
            run.total = max(run.done_count + len(todo), 1)
            run.run(_prompted(campaign, todo, prompts, by_pk))
    result.seconds = round(time.perf_counter() - started, 3)
    result.all_failed = result.failed > 0 and result.judged == 0 and not result.cancelled
    return result


@transaction.atomic
def calibration_store(*, campaign: Campaign, model: str, stamp: str, rule: str, humans: int,
                      ece_before: float | None, ece_after: float | None, bins: dict[str, list[dict[str, Any]]],
                      probabilities: dict[str, dict[str, list[float]]]) -> Calibration:
    """Stores a fit of the model's calibration (docs/llm_calibration.md, "In the product"): the campaign's one row of
    the model, its version one more than the last."""
    found = Calibration.objects.select_for_update().filter(campaign=campaign, model=model).first()
    values = {"stamp": stamp, "rule": rule, "humans": humans, "ece_before": ece_before, "ece_after": ece_after,
              "bins": bins, "probabilities": probabilities, "fitted_at": timezone.now()}
    if found is None:
        return Calibration.objects.create(campaign=campaign, model=model, **values)
    for name, value in values.items():
        setattr(found, name, value)
    found.version += 1
    found.save()
    return found

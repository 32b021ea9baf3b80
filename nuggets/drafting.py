"""Nuggets drafted by the LLM co-assessor with nuggetizer's creator prompt, credited (nuggets/prompts/README.md,
docs/nuggets.md, "Drafting with the LLM"): per topic, the bank's nuggets and the topic's pooled answers ten at a
time go to the creator, which returns the list updated (nuggetizer's iterative process); the scorer labels each new
nugget vital or okay; the new ones become drafts (nuggets.services.bank.drafts_add) for an organizer to accept or
reject. The prompts, the windows and the reading of a reply are nuggetizer's (src/nuggetizer/models/nuggetizer.py)."""
from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judging.services.assignments import campaign_topics
from llm.client import EndpointSettings, Judge
from nuggets.models import Importance
from nuggets.selectors import bank_nuggets, pooled_answers, topic_query
from nuggets.services.bank import drafts_add
from pooling.models import Campaign, Topic

PROMPTS = Path(__file__).resolve().parent / "prompts"
# nuggetizer's defaults: creator_window_size and scorer_window_size 10, creator_max_nuggets 30.
WINDOW = 10
MAX_NUGGETS = 30


# The fields of nuggetizer's two templates. Filled in one pass, not by str.format: an answer's text holds braces
# (LaTeX), and a value naming a field must stay as it is.
_FIELD = re.compile(r"\{(query|context|nuggets|nuggets_length|creator_max_nuggets|num_nuggets)\}")


def prompt_fill(template: str, values: dict[str, str]) -> str:
    return _FIELD.sub(lambda match: values.get(match.group(1), match.group(0)), template)


def prompt_template(name: str) -> str:
    return (PROMPTS / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n")


def creator_prompt(*, query: str, answers: Sequence[str], nuggets: Sequence[str],
                   max_nuggets: int = MAX_NUGGETS) -> str:
    """nuggetizer's create_nugget_messages: the window's texts numbered from 1, the list so far as Python writes
    it."""
    context = "\n".join(f"[{n}] {text}" for n, text in enumerate(answers, start=1))
    return prompt_fill(prompt_template("creator"), {
        "query": query, "context": context, "nuggets": str(list(nuggets)), "nuggets_length": str(len(nuggets)),
        "creator_max_nuggets": str(max_nuggets)})


def scorer_prompt(*, query: str, nuggets: Sequence[str]) -> str:
    return prompt_fill(prompt_template("scorer"), {"query": query, "nuggets": str(list(nuggets)),
                                                   "num_nuggets": str(len(nuggets))})


def reply_list(reply: str) -> list[str] | None:
    """A reply read as nuggetizer reads it (code fences taken off, then a Python literal): its list of strings, or
    None when it is not one."""
    text = reply.replace("```python", "").replace("```", "").strip()
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    return value


def reply_importances(reply: str, count: int) -> list[str] | None:
    """The scorer's labels, one per nugget in order (vital or okay, any case), or None when the reply is not that."""
    labels = reply_list(reply)
    if labels is None or len(labels) != count:
        return None
    lowered = [label.strip().lower() for label in labels]
    return lowered if all(label in Importance.values for label in lowered) else None


Ask = Callable[[str], str | None]  # a prompt -> the reply's text, or None when the endpoint gave none


def nuggets_create(*, ask: Ask, query: str, answers: Sequence[str], initial: Sequence[str]) -> tuple[list[str], int]:
    """The list after every window of answers, and how many windows failed (the reply unread or missing: the list
    stays as it was, as nuggetizer's does after its tries)."""
    nuggets, failed = list(initial), 0
    for start in range(0, len(answers), WINDOW):
        reply = ask(creator_prompt(query=query, answers=answers[start:start + WINDOW], nuggets=nuggets))
        updated = reply_list(reply) if reply is not None else None
        if updated is None:
            failed += 1
            continue
        nuggets = updated[:MAX_NUGGETS]
    return nuggets, failed


def nuggets_score(*, ask: Ask, query: str, nuggets: Sequence[str]) -> tuple[list[str], int]:
    """Each nugget's importance, ten at a time; a window whose reply is unread is okay throughout (nuggetizer's
    default), counted as failed."""
    importances: list[str] = []
    failed = 0
    for start in range(0, len(nuggets), WINDOW):
        window = nuggets[start:start + WINDOW]
        reply = ask(scorer_prompt(query=query, nuggets=window))
        labels = reply_importances(reply, len(window)) if reply is not None else None
        if labels is None:
            failed += 1
            labels = [Importance.OKAY] * len(window)
        importances += labels
    return importances, failed


@dataclass
class DraftResult:
    model: str
    topics: int = 0
    drafted: int = 0
    failed: int = 0  # prompts whose reply could not be read (or never came)
    skipped: list[str] = field(default_factory=list)  # topics without answers

    def as_json(self) -> dict:
        return {"model": self.model, "topics": self.topics, "drafted": self.drafted, "failed": self.failed,
                "skipped": self.skipped}


def draft_summary(r: dict) -> str:
    skipped = f"; {len(r.get('skipped', [])):,} topics without answers skipped" if r.get("skipped") else ""
    failed = f"; {r.get('failed', 0):,} replies could not be read" if r.get("failed") else ""
    return (f"Drafted {r.get('drafted', 0):,} nuggets for {r.get('topics', 0):,} topics with "
            f"{r.get('model', 'the LLM')}{failed}{skipped}.")


def topics_of(*, campaign: Campaign, topic_ids: Sequence[str]) -> list[Topic]:
    """The campaign's topics named (all when none is); an unknown id is refused."""
    if not topic_ids:
        return list(Topic.objects.filter(campaign=campaign).order_by("position", "pk"))
    known = campaign_topics(campaign=campaign, topic_ids=[t[:64] for t in topic_ids])  # judging's check
    return [known[t[:64]] for t in dict.fromkeys(topic_ids)]


def nuggets_draft(*, campaign: Campaign, settings: EndpointSettings, topic_ids: Sequence[str] = (), user=None,
                  progress: Callable[..., None] | None = None) -> DraftResult:
    """Drafts for each topic named (all when none is) from its pooled answers, with the endpoint `settings`; a
    topic's drafts are stored when its replies are in, so that a later failure keeps the earlier topics'."""
    topics = topics_of(campaign=campaign, topic_ids=topic_ids)
    one = EndpointSettings(**{**settings.__dict__, "samples": 1})  # a list, not a grade: one reply is read
    result = DraftResult(model=one.model)
    with Judge(one) as judge:
        def ask(prompt: str) -> str | None:
            verdict = judge.submit(prompt).result()
            # A reply with text is read whatever the judge made of it as a grade; an empty one is a failure.
            text = verdict.replies[0] if verdict.replies else ""
            return text if text.strip() else None

        for done, topic in enumerate(topics):
            answers = [answer.text for answer in pooled_answers(topic=topic) if answer.text.strip()]
            if not answers:
                result.skipped.append(topic.topic_id)
                continue
            query = topic_query(topic)
            bank = [n.text for n in bank_nuggets(topic=topic)]
            created, failed = nuggets_create(ask=ask, query=query, answers=answers, initial=bank)
            known = {" ".join(text.split()).casefold() for text in bank}
            new = [text for text in dict.fromkeys(created) if " ".join(text.split()).casefold() not in known]
            importances, scored_failed = nuggets_score(ask=ask, query=query, nuggets=new) if new else ([], 0)
            made = drafts_add(topic=topic, nuggets=list(zip(new, importances, strict=True)), model=one.model,
                              user=user)
            result.topics += 1
            result.drafted += len(made)
            result.failed += failed + scored_failed
            if progress is not None:
                progress((done + 1) / len(topics), f"topic {topic.topic_id}: {len(made)} drafts")
    return result

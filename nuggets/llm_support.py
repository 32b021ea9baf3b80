"""Support labels given by the LLM co-assessor with nuggetizer's assigner prompt, credited (nuggets/prompts/README.md,
docs/nuggets.md, "The LLM co-assessor on support"): every answer of a topic against the nuggets of its frozen bank,
ten nuggets a prompt, each labelled support, partial_support or not_support; the labels are the model's, kept apart
from people's (nuggets.services.support.support_llm_store). The prompt, the windows and the reading of a reply are
nuggetizer's (src/nuggetizer/models/nuggetizer.py, `assign`)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from django.db import transaction

from llm.client import EndpointSettings, Judge, Verdict
from nuggets.drafting import WINDOW, prompt_fill, prompt_template, reply_list, topics_of
from nuggets.models import BankVersion, SupportLabel
from nuggets.selectors import bank_entries, latest_version, topic_query
from nuggets.services.bank import bank_freeze
from nuggets.services.support import answer_text, support_llm_store
from nuggets.support_selectors import topic_answers
from pooling.models import Campaign, Topic


def assigner_prompt(*, query: str, context: str, nuggets: Sequence[str]) -> str:
    """nuggetizer's create_assign_messages: the answer as the passage, the window's nugget texts as Python writes a
    list of strings."""
    return prompt_fill(prompt_template("assigner"), {"query": query, "context": context,
                                                     "nuggets": str(list(nuggets)),
                                                     "num_nuggets": str(len(nuggets))})


def reply_labels(reply: str, count: int) -> list[str] | None:
    """The assigner's labels, one per nugget in order (nuggetizer lowers their case), or None when the reply is not a
    list of `count` of support, partial_support and not_support: such a reply gives no label at all."""
    labels = reply_list(reply)
    if labels is None or len(labels) != count:
        return None
    lowered = [label.strip().lower() for label in labels]
    return lowered if all(label in SupportLabel.values for label in lowered) else None


def topic_bank(*, topic: Topic, user=None) -> BankVersion | None:
    """The frozen bank the model labels against: the topic's latest version, or (none yet, or an empty one) the
    bank frozen now; None when the bank has no nuggets."""
    version = latest_version(topic=topic)
    if (version is None or not version.nuggets) and bank_entries(topic=topic):
        with transaction.atomic():
            version = bank_freeze(topic=topic, user=user)
    return version if version is not None and version.nuggets else None


@dataclass
class AssignResult:
    model: str
    topics: int = 0
    answers: int = 0  # answers with at least one label from this run
    created: int = 0
    revised: int = 0
    unchanged: int = 0
    failed: int = 0  # prompts whose reply could not be read (or never came): no label stored from them
    unlabelled: int = 0  # the (answer, nugget) pairs of those prompts
    skipped: list[list[str]] = field(default_factory=list)  # [topic id, why]

    def as_json(self) -> dict:
        return {"model": self.model, "topics": self.topics, "answers": self.answers, "created": self.created,
                "revised": self.revised, "unchanged": self.unchanged, "failed": self.failed,
                "unlabelled": self.unlabelled, "skipped": self.skipped}


def assign_summary(r: dict) -> str:
    failed = (f"; {r.get('failed', 0):,} replies could not be read ({r.get('unlabelled', 0):,} labels not given)"
              if r.get("failed") else "")
    skipped = f"; {len(r.get('skipped', [])):,} topics skipped" if r.get("skipped") else ""
    return (f"Labelled {r.get('answers', 0):,} answers of {r.get('topics', 0):,} topics with "
            f"{r.get('model', 'the LLM')}: {r.get('created', 0):,} labels new, {r.get('revised', 0):,} revised, "
            f"{r.get('unchanged', 0):,} unchanged{failed}{skipped}.")


def _reply(future: Future[Verdict]) -> str | None:
    verdict = future.result()
    # A reply with text is read whatever the judge made of it as a grade; an empty one is a failure.
    text = verdict.replies[0] if verdict.replies else ""
    return text if text.strip() else None


def nuggets_assign_llm(*, campaign: Campaign, settings: EndpointSettings, topic_ids: Sequence[str] = (), user=None,
                       progress: Callable[..., None] | None = None) -> AssignResult:
    """The model's support labels of every answer of each topic named (all when none is) against its frozen bank,
    with the endpoint `settings`; a topic's labels are stored when its replies are in, so that a later failure keeps
    the earlier topics'. A topic without answers or nuggets is skipped."""
    topics = topics_of(campaign=campaign, topic_ids=topic_ids)
    one = EndpointSettings(**{**settings.__dict__, "samples": 1})  # a list of labels, not a grade: one reply is read
    result = AssignResult(model=one.model)
    with Judge(one) as judge:
        for done, topic in enumerate(topics):
            everyone = topic_answers(topic=topic)
            texts = {a.pk: answer_text(a) for a in everyone}
            answers = [a for a in everyone if texts[a.pk].strip()]
            bank = topic_bank(topic=topic, user=user) if answers else None
            if not answers or bank is None:
                result.skipped.append([topic.topic_id, "no answers" if not answers else "no nuggets in its bank"])
                continue
            query = topic_query(topic)
            windows = [bank.nuggets[start:start + WINDOW] for start in range(0, len(bank.nuggets), WINDOW)]
            asked = [(answer, window, judge.submit(assigner_prompt(
                query=query, context=texts[answer.pk], nuggets=[entry["text"] for entry in window])))
                for answer in answers for window in windows]  # all at once: the judge keeps `concurrency` in flight
            labels: dict[int, dict[int, str]] = {}
            for answer, window, future in asked:
                reply = _reply(future)
                given = reply_labels(reply, len(window)) if reply is not None else None
                if given is None:
                    result.failed += 1
                    result.unlabelled += len(window)
                    continue
                labels.setdefault(answer.pk, {}).update(
                    {entry["id"]: label for entry, label in zip(window, given, strict=True)})
            for answer in answers:
                if answer.pk not in labels:
                    continue
                stored = support_llm_store(answer=answer, bank=bank, model=one.model, labels=labels[answer.pk])
                result.answers += 1
                result.created += stored.created
                result.revised += stored.revised
                result.unchanged += stored.unchanged
            result.topics += 1
            if progress is not None:
                progress((done + 1) / len(topics), f"topic {topic.topic_id}: {len(labels)} answers labelled")
    return result

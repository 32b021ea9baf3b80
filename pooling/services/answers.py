"""ARQMath-3 Task 3 runs in an answers campaign (docs/pooling.md, "ARQMath-3 Task 3 answers"): each run's answers
stored, each distinct answer of a topic given its stable answer id (`d_N`), and the run's entries written so that
pooling pools every answer beside the Task 1 posts.

A Task 3 run has one entry per topic it answers: the answer's id at rank 1. Pooling, the planner and the pool
statistics read those entries as they read a Task 1 run's (every run is pooled at least to depth 1, so every answer
is pooled); `RunAnswer` keeps what else the line says (text, sources, the file's rank and line).
"""
from __future__ import annotations

import hashlib
import os

from django.db.models import Max

from ir.formats.runs import ARQMATH_TASK3, uncovered_warning
from ir.formats.task3_answers import AnswerRow, read_answers_file
from ir.problems import Problems
from pooling.bulk import bulk_insert
from pooling.models import AnswerText, Campaign, Run, RunAnswer, RunEntry
from pooling.services.pools import campaign_lock

ANSWER_ID_PREFIX = "d_"  # the organizers' synthetic answer ids: d_1, d_2, ...


def normalised(text: str) -> str:
    """An answer with its white space normalised (runs of it one space, none at the ends): answers to a topic that
    are the same text so are one answer."""
    return " ".join(text.split())


def answer_digest(text: str) -> str:
    return hashlib.sha256(normalised(text).encode()).hexdigest()


def answer_run_store(*, run: Run, path: str | os.PathLike, filename: str, topics: dict[str, int]) -> None:
    """Reads a Task 3 run file into `run`, a new run of an answers campaign (run_ingest made it, in the transaction
    this runs in): its answers, a distinct answer with the next answer id for each text the topic did not have, and
    its entries. Fills in the run's format, counts and warnings (the caller saves them). A file with any problem
    raises InputError with every problem and its line; the caller's transaction then keeps nothing of it.
    `topics` maps the campaign's topic ids, in campaign order, to their pks."""
    answers = read_answers_file(path, topics=topics, filename=filename)
    rows, warnings = answers.rows, answers.warnings
    order = {topic_id: n for n, topic_id in enumerate(topics)}
    rows.sort(key=lambda row: order[row.topic_id])
    distinct = distinct_answers(campaign=run.campaign, answers=[(topics[row.topic_id], row.answer) for row in rows])
    RunAnswer.objects.bulk_create(
        RunAnswer(run=run, topic_id=topics[row.topic_id], answer=answer, line=row.line, rank=row.rank,
                  score=row.score, run_tag=row.run_id, sources=row.sources, text=row.answer)
        for row, answer in zip(rows, distinct, strict=True))
    bulk_insert(RunEntry, ["run", "topic", "item_id", "post_id", "rank", "score"],
                ((run.pk, topics[row.topic_id], answer.answer_id, "", 1, row.score)
                 for row, answer in zip(rows, distinct, strict=True)))
    uncovered_warning(topics, {row.topic_id for row in rows}, warnings)
    _describe(run, rows, warnings)


def _describe(run: Run, rows: list[AnswerRow], warnings: Problems) -> None:
    run.format = ARQMATH_TASK3
    run.tag = ", ".join(sorted({row.run_id for row in rows}))[:200]
    run.row_count = run.topic_count = len(rows)
    run.ranks_are_positions = True  # its entries: one per topic, at rank 1
    run.warnings = warnings.messages()


def distinct_answers(*, campaign: Campaign, answers: list[tuple[int, str]]) -> list[AnswerText]:
    """The campaign's distinct answer of each (topic pk, text), in order: the one it has for the text (white space
    normalised), else a new one under the next answer id. Ids are numbered one ingest at a time (the campaign's
    lock, held until the caller's transaction ends) and never reused."""
    campaign_lock(campaign=campaign)
    keys = [(topic_pk, answer_digest(text)) for topic_pk, text in answers]
    found = {(a.topic_id, a.digest): a for a in
             AnswerText.objects.filter(campaign=campaign, digest__in={digest for _topic, digest in keys})}
    number = AnswerText.objects.filter(campaign=campaign).aggregate(last=Max("number"))["last"] or 0
    new: list[AnswerText] = []
    for (topic_pk, digest), (_topic, text) in zip(keys, answers, strict=True):
        if (topic_pk, digest) not in found:
            number += 1
            found[(topic_pk, digest)] = AnswerText(campaign=campaign, topic_id=topic_pk, number=number, digest=digest,
                                                   answer_id=f"{ANSWER_ID_PREFIX}{number}", text=text)
            new.append(found[(topic_pk, digest)])
    AnswerText.objects.bulk_create(new)
    return [found[key] for key in keys]

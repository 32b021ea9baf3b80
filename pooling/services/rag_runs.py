"""TREC RAG answer runs in an answers campaign (docs/pooling.md, "Generated answers with citations"): each topic's
answer stored with its sentences and their citations, and the run's entries written as the ids its answer cites, so
that pooling pools every cited id beside the retrieval runs' posts.

A RAG run's entries for a topic are its answer's cited ids, once each, in the order first cited (rank 1..n): pooling
takes all of them whatever the pool depth (pooling/ranking.py `pooled_whole`). `RunAnswer` keeps the answer (its text
the sentences joined by a space, as nuggetizer joins them), `AnswerSentence` each sentence with its citations, and
`AnswerText` the topic's distinct answers, as for ARQMath-3 Task 3 (pooling/services/answers.py).
"""
from __future__ import annotations

import os
from collections import Counter

from ir.formats.rag_answers import RagAnswer, read_rag_answers_file
from ir.formats.runs import TREC_RAG, uncovered_warning
from ir.formats.textio import ID_MAX, shown
from ir.problems import Problems
from pooling.bulk import bulk_insert
from pooling.models import AnswerSentence, Campaign, Post, Run, RunAnswer, RunEntry
from pooling.ranking import LOOKUP_CHUNK
from pooling.services.answers import distinct_answers


def rag_run_store(*, run: Run, path: str | os.PathLike, filename: str, topics: dict[str, int]) -> None:
    """Reads a TREC RAG answer file (2024 or 2025 shape) into `run`, a new run of an answers campaign (run_ingest
    made it, in the transaction this runs in): its answers with their sentences, a distinct answer for each, and its
    entries (the cited ids). Fills in the run's format, counts, facts the file states and warnings (the caller saves
    them). A file with any problem raises InputError with every problem and its line; the caller's transaction then
    keeps nothing of it. `topics` maps the campaign's topic ids, in campaign order, to their pks."""
    answers = read_rag_answers_file(path, topics=topics, filename=filename)
    _check(answers, filename)
    order = {topic_id: n for n, topic_id in enumerate(topics)}
    answers.sort(key=lambda answer: order[answer.topic_id])
    distinct = distinct_answers(campaign=run.campaign, answers=[(topics[a.topic_id], a.text) for a in answers])
    stored = RunAnswer.objects.bulk_create(
        RunAnswer(run=run, topic_id=topics[a.topic_id], answer=answer, line=a.line, rank=1, score=0.0,
                  run_tag=a.run_id, sources=" ".join(a.references), text=a.text)
        for a, answer in zip(answers, distinct, strict=True))
    AnswerSentence.objects.bulk_create(
        AnswerSentence(answer=row, position=n, text=sentence.text, citations=list(sentence.citations))
        for a, row in zip(answers, stored, strict=True) for n, sentence in enumerate(a.sentences))
    entries = [(run.pk, topics[a.topic_id], segment, "", rank, float(len(a.cited) - rank + 1))
               for a in answers for rank, segment in enumerate(a.cited, start=1)]
    bulk_insert(RunEntry, ["run", "topic", "item_id", "post_id", "rank", "score"], entries)
    warnings = Problems(file=filename)
    uncovered_warning(topics, {a.topic_id for a in answers}, warnings)
    run_ids = Counter(a.run_id for a in answers)
    if len(run_ids) > 1:
        listed = ", ".join(f"{name} ({n} answers)" for name, n in run_ids.most_common())
        warnings.add(None, f"several run ids in one file: {listed}")
    run.format = TREC_RAG
    run.tag = ", ".join(sorted(run_ids))[:200]
    run.row_count = len(entries)
    run.topic_count = len(answers)
    run.ranks_are_positions = True  # its entries: 1..n per topic, in the order first cited
    run.warnings = warnings.messages()
    _facts(run, answers)


def _check(answers: list[RagAnswer], filename: str) -> None:
    """What the reader leaves to its caller, refused with the line: a second answer to a topic (a file may hold
    several runs; a run here answers a topic once) and a cited id longer than the database keeps."""
    problems = Problems(file=filename)
    first: dict[str, int] = {}
    for answer in answers:
        if answer.topic_id in first:
            problems.add(answer.line, f"a second answer to topic {shown(answer.topic_id)} (the first is on line "
                                      f"{first[answer.topic_id]}); a run gives one answer per topic")
        first.setdefault(answer.topic_id, answer.line)
        long = next((segment for segment in answer.cited if len(segment) > ID_MAX), None)
        if long is not None:
            problems.add(answer.line, f"cited id '{shown(long, 20)}' is longer than {ID_MAX} characters")
    problems.raise_if_any()


def _facts(run: Run, answers: list[RagAnswer]) -> None:
    """The 2025 metadata's team and type, where the run has none of its own: its team when every answer names the
    same one; manual when every answer says `manual`."""
    teams = {a.team_id for a in answers}
    if not run.team and len(teams) == 1 and "" not in teams:
        run.team = teams.pop()[:100]
    if not run.manual and answers and all(a.run_type.strip().lower() == "manual" for a in answers):
        run.manual = True


def rag_citation_warnings(*, run: Run, campaign: Campaign) -> list[str]:
    """The warning for the citations of a RAG run to ids the campaign's collection lacks (counted, with the first
    line that has one): a warning, never a refusal, however many (docs/pooling.md). None for a collection that has no
    posts yet, or a pool-only one (the pool build tells what its corpus lacks)."""
    collection = campaign.collection
    if collection is None or collection.corpus_path:
        return []
    if not collection.posts.exists():
        return [f"the collection '{collection}' has no posts yet: the run's citations were not checked against it"]
    cited: list[tuple[int, str]] = [
        (line, segment) for line, citations in AnswerSentence.objects.filter(answer__run=run)
        .order_by("answer__line", "position").values_list("answer__line", "citations")
        for segment in citations]
    wanted = sorted({segment for _line, segment in cited})
    known: set[str] = set()
    for start in range(0, len(wanted), LOOKUP_CHUNK):
        known.update(Post.objects.filter(collection=collection, post_id__in=wanted[start:start + LOOKUP_CHUNK])
                     .values_list("post_id", flat=True))
    missing = [(line, segment) for line, segment in cited if segment not in known]
    if not missing:
        return []
    ids = {segment for _line, segment in missing}
    citations = "1 citation" if len(missing) == 1 else f"{len(missing):,} citations"
    to = "1 id" if len(ids) == 1 else f"{len(ids):,} ids"
    example = ", ".join(sorted(ids)[:3])
    return [f"{citations} to {to} not in the collection '{collection}', first line {missing[0][0]} "
            f"(for example {example})"]

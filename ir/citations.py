"""Candidates from citations (docs/pooling.md, "Candidates beside the runs"): for each topic whose source question is in
a Stack Exchange dump, the documents its accepted answer links to, with the asker's comments under that answer as the
note (the post-answer evidence of the ARQMath paper). Plain data in, candidates out: no Django."""
from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ir.formats.candidates import Candidate
from ir.problems import InputError

SOURCE = "cited-in-accepted-answer"
_HREF = re.compile(r"""href\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


@dataclass(frozen=True)
class Question:
    """What a topic's source question gives: its accepted answer's body (HTML) and the asker's comments on it."""

    accepted_body: str
    asker_comments: tuple[str, ...]


def link_pattern(text: str) -> re.Pattern[str]:
    """The organizer's pattern from a link to a document id: its group `id`, or else its first group."""
    try:
        pattern = re.compile(text)
    except re.error as error:
        raise InputError(f"the link pattern '{text}' is not a regular expression: {error}") from None
    if "id" not in pattern.groupindex and pattern.groups < 1:
        raise InputError(f"the link pattern '{text}' has no group: give the document id as (?P<id>...) or (...)")
    return pattern


def cited_documents(body: str, pattern: re.Pattern[str]) -> list[str]:
    """The document ids the links of an HTML body map to, in order of first link, each once."""
    found: dict[str, None] = {}
    for match in _HREF.finditer(body):
        link = html.unescape(match.group(1) if match.group(1) is not None else match.group(2))
        cited = pattern.search(link)
        if cited is None:
            continue
        document = cited.group("id") if "id" in pattern.groupindex else cited.group(1)
        if document:
            found.setdefault(document, None)
    return list(found)


def citation_candidates(topics: Iterable[tuple[str, str]], questions: Mapping[str, Question],
                        pattern: re.Pattern[str]) -> list[Candidate]:
    """Per (topic, source question id), in the order given, the candidates its accepted answer cites; a topic whose
    question is not in the dump, or has no accepted answer, gives none."""
    found: list[Candidate] = []
    for topic, question_id in topics:
        question = questions.get(question_id)
        if question is None:
            continue
        note = " ".join(" ".join(comment.split()) for comment in question.asker_comments)
        found += [Candidate(topic, document, SOURCE, note) for document in cited_documents(question.accepted_body,
                                                                                           pattern)]
    return found

"""TREC RAG answer runs (2024 and 2025): one JSON object a line, a topic's answer broken into sentences that cite
segments, read whole or refused whole (docs/nuggets.md, "Answer runs").

Two shapes, as the track's guidelines give them. 2024: `run_id`, `topic_id`, `topic`, `references` (the ranked
segment ids the answer drew on), `response_length` (its words) and `answer`, a list of `{text, citations}` whose
citations are zero-based indexes into `references`. 2025: the same with the run and topic under `metadata` (`team_id`,
`run_id`, `type`, `narrative_id`, `narrative`, `prompt`), the citations either indexes into `references` or the
segment ids themselves. Every answer's citations come out as segment ids. A field neither shape has is refused, so a
file of another format is not read as an empty one.
"""
from __future__ import annotations

import json
import os
from collections.abc import Container, Iterable
from dataclasses import dataclass
from typing import Any, BinaryIO

from ir.formats.jsonl import json_objects, text_field
from ir.formats.textio import ID_MAX, TextSink, no_rows, open_binary, shown, text_problem
from ir.problems import Problems

FLAT_KEYS = frozenset({"run_id", "topic_id", "topic", "references", "response_length", "answer"})
NESTED_KEYS = frozenset({"metadata", "references", "response_length", "answer"})
METADATA_KEYS = frozenset({"team_id", "run_id", "type", "narrative_id", "narrative", "prompt"})
SENTENCE_KEYS = frozenset({"text", "citations"})
RUN_ID_MAX = 200  # Run.tag's length


@dataclass(frozen=True)
class AnswerSentence:
    text: str
    citations: tuple[str, ...]  # segment ids, in the order the run gives them


@dataclass(frozen=True)
class RagAnswer:
    line: int
    run_id: str
    topic_id: str
    topic: str  # the topic's text as the run repeats it ("" when it does not)
    references: tuple[str, ...]
    response_length: int | None
    sentences: tuple[AnswerSentence, ...]
    team_id: str = ""
    run_type: str = ""
    prompt: str = ""

    @property
    def text(self) -> str:
        """The answer as one text, its sentences joined by a space (as nuggetizer joins them to assign nuggets)."""
        return " ".join(sentence.text for sentence in self.sentences)

    @property
    def cited(self) -> tuple[str, ...]:
        """Every segment the answer cites, once each, in the order first cited."""
        return tuple(dict.fromkeys(c for sentence in self.sentences for c in sentence.citations))


def read_rag_answers(stream: BinaryIO, problems: Problems, *,
                     topics: Container[str] | None = None) -> list[RagAnswer]:
    """Every answer of the file in file order, or [] when there is any problem (`problems` says which, with their
    lines). `topics`, when given, are the campaign's topic ids; a second answer of one run to one topic is refused."""
    answers: list[RagAnswer] = []
    first_line: dict[tuple[str, str], int] = {}
    rows = 0
    for line, obj in json_objects(stream, problems):
        rows += 1
        errors: list[str] = []
        answer = _answer(line, obj, errors)
        if answer is not None and topics is not None and answer.topic_id not in topics:
            errors.append(f"topic '{shown(answer.topic_id)}' is not a topic of this campaign")
        if answer is not None and not errors:
            key = (answer.run_id, answer.topic_id)
            if key in first_line:
                errors.append(f"a second answer of run '{shown(answer.run_id)}' to topic '{shown(answer.topic_id)}' "
                              f"(the first is on line {first_line[key]})")
            else:
                first_line[key] = line
        problems.add_all(line, errors)
        if answer is not None and not errors:
            answers.append(answer)
    no_rows(rows, problems)
    return [] if problems else answers


def read_rag_answers_file(path: str | os.PathLike, *, topics: Container[str] | None = None,
                          filename: str | None = None) -> list[RagAnswer]:
    """The answers of a file; InputError with every problem (and its line) if it has any. The messages name the file
    `filename` (an upload's own name), else the path's."""
    problems = Problems(file=filename or os.path.basename(path))
    with open_binary(path) as stream:
        answers = read_rag_answers(stream, problems, topics=topics)
    problems.raise_if_any()
    return answers


def write_rag_answers(answers: Iterable[RagAnswer], sink: TextSink) -> None:
    """The answers in the 2024 shape, citations as indexes into `references` (a cited segment missing from them is
    added at the end), and `response_length` the answer's words when the answer has none: the lines nuggetizer's
    `assign --input-kind answers` reads (it needs `topic_id`, `answer` and `response_length`)."""
    for answer in answers:
        references = list(answer.references)
        index = {segment: n for n, segment in reversed(list(enumerate(references)))}
        for segment in answer.cited:
            if segment not in index:
                index[segment] = len(references)
                references.append(segment)
        length = answer.response_length
        if length is None:
            length = len(answer.text.split())
        record = {
            "run_id": answer.run_id,
            "topic_id": answer.topic_id,
            "topic": answer.topic,
            "references": references,
            "response_length": length,
            "answer": [{"text": s.text, "citations": [index[c] for c in s.citations]} for s in answer.sentences],
        }
        sink.write(json.dumps(record) + "\n")


def _answer(line: int, obj: dict[str, Any], errors: list[str]) -> RagAnswer | None:
    nested = "metadata" in obj
    keys = NESTED_KEYS if nested else FLAT_KEYS
    unknown = sorted(set(obj) - keys)
    if unknown:
        errors.append(f"unknown field '{shown(unknown[0])}' (a TREC RAG answer has "
                      f"{', '.join(sorted(keys))})")
        return None
    head: dict[str, Any]
    if nested:
        head = obj["metadata"]
        if not isinstance(head, dict):
            errors.append("metadata is not an object")
            return None
        unknown = sorted(set(head) - METADATA_KEYS)
        if unknown:
            errors.append(f"unknown field 'metadata.{shown(unknown[0])}' (the metadata has "
                          f"{', '.join(sorted(METADATA_KEYS))})")
            return None
        topic_key, text_key = "narrative_id", "narrative"
    else:
        head = obj
        topic_key, text_key = "topic_id", "topic"
    run_id = id_field(head, "run_id", errors, RUN_ID_MAX)
    topic_id = id_field(head, topic_key, errors, ID_MAX)
    topic = text_field(head, text_key, errors)
    team_id = text_field(head, "team_id", errors) if nested else ""
    run_type = text_field(head, "type", errors) if nested else ""
    prompt = text_field(head, "prompt", errors) if nested else ""
    references = _references(obj.get("references"), errors)
    response_length = _length(obj.get("response_length"), errors)
    sentences = _sentences(obj.get("answer"), references, errors)
    if errors:
        return None
    return RagAnswer(line=line, run_id=run_id, topic_id=topic_id, topic=topic, references=references or (),
                     response_length=response_length, sentences=sentences, team_id=team_id, run_type=run_type,
                     prompt=prompt)


def id_field(obj: dict[str, Any], key: str, errors: list[str], limit: int) -> str:
    """A JSON line's id as a string, a problem in `errors` when missing, empty or too long; a JSON integer (2025's
    narrative_id, a qid) is taken as its digits."""
    value = obj.get(key)
    if value is None:
        errors.append(f"missing {key}")
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        errors.append(f"{key} must be a string or an integer")
        return ""
    text = str(value).strip()
    if not text:
        errors.append(f"empty {key}")
    elif problem := text_problem(key, text):
        errors.append(problem)
    elif len(text) > limit:
        errors.append(f"{key} '{shown(text, 20)}' is longer than {limit} characters")
    return text


def _references(value: Any, errors: list[str]) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        errors.append("references is not a list")
        return None
    for n, segment in enumerate(value):
        if not isinstance(segment, str) or not segment.strip():
            errors.append(f"references[{n}] is not a segment id (a non-empty string)")
            return None
        if problem := text_problem(f"references[{n}]", segment):
            errors.append(problem)
            return None
    return tuple(value)


def _length(value: Any, errors: list[str]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        errors.append(f"response_length {json.dumps(value)[:40]} is not a whole number of words")
        return None
    return value


def _sentences(value: Any, references: tuple[str, ...] | None, errors: list[str]) -> tuple[AnswerSentence, ...]:
    if value is None:
        errors.append("missing answer")
        return ()
    if not isinstance(value, list):
        errors.append("answer is not a list of sentences")
        return ()
    if not value:
        errors.append("the answer has no sentences (leave a topic without an answer out)")
        return ()
    sentences = []
    for n, item in enumerate(value):
        where = f"answer[{n}]"
        if not isinstance(item, dict):
            errors.append(f"{where} is not an object with text and citations")
            return ()
        unknown = sorted(set(item) - SENTENCE_KEYS)
        if unknown:
            errors.append(f"unknown field '{shown(unknown[0])}' in {where} (a sentence has text and citations)")
            return ()
        text = item.get("text")
        if not isinstance(text, str):
            errors.append(f"{where} has no text" if text is None else f"{where}.text is not a string")
            return ()
        if problem := text_problem(f"{where}.text", text):
            errors.append(problem)
            return ()
        citations = _citations(item.get("citations", []), references, where, errors)
        if citations is None:
            return ()
        sentences.append(AnswerSentence(text, citations))
    return tuple(sentences)


def _citations(value: Any, references: tuple[str, ...] | None, where: str, errors: list[str]
               ) -> tuple[str, ...] | None:
    """A sentence's citations as segment ids: indexes into `references` (both years) or segment ids (2025)."""
    if not isinstance(value, list):
        errors.append(f"{where}.citations is not a list")
        return None
    if all(isinstance(c, int) and not isinstance(c, bool) for c in value):
        if value and references is None:
            errors.append(f"{where} cites by index but the answer has no references")
            return None
        cited = []
        for c in value:
            assert references is not None
            if not 0 <= c < len(references):
                errors.append(f"{where} cites index {c}, but the references have {len(references)} "
                              f"(indexes 0 to {len(references) - 1})")
                return None
            cited.append(references[c])
        return tuple(cited)
    if all(isinstance(c, str) for c in value):
        for c in value:
            if not c.strip():
                errors.append(f"{where} cites an empty segment id")
                return None
            if problem := text_problem(f"{where}.citations", c):
                errors.append(problem)
                return None
            if references is not None and c not in references:
                errors.append(f"{where} cites segment '{shown(c)}', which is not in the answer's references")
                return None
        return tuple(value)
    errors.append(f"{where}.citations must be all indexes into references or all segment ids")
    return None

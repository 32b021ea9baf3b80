"""Candidates files (docs/formats.md): `topic<TAB>item_id<TAB>source<TAB>note`, items a campaign pools beside its runs
(for instance the posts an accepted answer cites: `extract_citations`). The note may be empty or missing."""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ir.formats.textio import ID_MAX, TextSink, iter_lines, no_rows, open_binary, shown, text_problem
from ir.problems import Problems

SOURCE_MAX = 100  # a source is a short label (`cited-in-accepted-answer`); it names the candidate in provenance


@dataclass(frozen=True)
class Candidate:
    topic: str
    item_id: str
    source: str
    note: str = ""


def read_candidates(path: str | os.PathLike) -> list[Candidate]:
    """The candidates of a file, in its order, a repeated (topic, item, source) once (its first line); InputError
    with every line's problem, or when the file has no rows (ingesting it would wipe the campaign's candidates)."""
    problems = Problems(os.path.basename(path))
    found: dict[tuple[str, str, str], Candidate] = {}
    with open_binary(path) as stream:
        for lineno, text in iter_lines(stream, problems):
            if not text.strip():
                continue
            fields = text.split("\t")
            if not 3 <= len(fields) <= 4:
                problems.add(lineno, f"{len(fields)} fields: a candidate is topic, item id, source and a note")
                continue
            topic, item_id, source = (field.strip() for field in fields[:3])
            note = fields[3] if len(fields) == 4 else ""
            messages = [f"the {name} is empty" for name, value in (("topic", topic), ("item id", item_id),
                                                                    ("source", source)) if not value]
            messages += [f"the {name} '{shown(value)}' is longer than {limit} characters"
                         for name, value, limit in (("topic", topic, ID_MAX), ("item id", item_id, ID_MAX),
                                                    ("source", source, SOURCE_MAX)) if len(value) > limit]
            messages += [m for m in (text_problem("the note", note),) if m]
            if messages:
                problems.add_all(lineno, messages)
                continue
            found.setdefault((topic, item_id, source), Candidate(topic, item_id, source, note))
    no_rows(len(found), problems)
    problems.raise_if_any()
    return list(found.values())


def candidate_lines(candidates: Iterable[Candidate]) -> Iterator[str]:
    """The file's lines; tabs and line ends in a note become spaces, so that each candidate stays one line."""
    for c in candidates:
        note = " ".join(c.note.replace("\t", " ").split())
        yield f"{c.topic}\t{c.item_id}\t{c.source}\t{note}\n"


def write_candidates(candidates: Iterable[Candidate], out: TextSink) -> None:
    for line in candidate_lines(candidates):
        out.write(line)


def read_topic_questions(path: str | os.PathLike) -> list[tuple[str, str]]:
    """`topic<TAB>question_post_id` lines (`extract_citations --topics`): each topic's source question in the dump,
    in the file's order; InputError with every line's problem."""
    problems = Problems(os.path.basename(path))
    found: dict[str, str] = {}
    with open_binary(path) as stream:
        for lineno, text in iter_lines(stream, problems):
            if not text.strip():
                continue
            fields = [field.strip() for field in text.split("\t")]
            if len(fields) != 2 or not all(fields):
                problems.add(lineno, "a line is a topic id and its source question's post id, tab-separated")
            elif any(len(field) > ID_MAX for field in fields):
                problems.add(lineno, f"an id is longer than {ID_MAX} characters")
            elif fields[0] in found:
                problems.add(lineno, f"topic {fields[0]} is given twice")
            else:
                found[fields[0]] = fields[1]
    no_rows(len(found), problems)
    problems.raise_if_any()
    return list(found.items())

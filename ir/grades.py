"""Relevance grades in one place: ARQMath's (docs/judging.md: the grades 3 to 0 with their labels, the marks SF and DK
with the numbers a complete qrels file gives them, which grades count as relevant at a relevance level), and a
campaign's judging scheme (docs/judging.md, "Judging schemes"): its grades with labels, keys and definitions, the marks
it offers, its relevance level, and its facets with the table from each combination of their options to a grade. The
judging page, the rules of the API and of import_judgments, the qrels export and kappa read a campaign's Scheme."""
from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ir.problems import InputError

HIGH, MEDIUM, LOW, NOT_RELEVANT = 3, 2, 1, 0
LABELS: dict[int, str] = {HIGH: "High", MEDIUM: "Medium", LOW: "Low", NOT_RELEVANT: "Not relevant"}
GRADE_VALUES: tuple[int, ...] = tuple(sorted(LABELS))  # 0, 1, 2, 3

# The marks an assessor gives an item they cannot grade; its item counts as unjudged, never as 0.
SYSTEM_FAILURE, DO_NOT_KNOW = "SF", "DK"
MARK_LABELS: dict[str, str] = {SYSTEM_FAILURE: "System failure", DO_NOT_KNOW: "Do not know"}
MARK_KEYS: dict[str, str] = {SYSTEM_FAILURE: "f", DO_NOT_KNOW: "d"}
MARK_DEFINITIONS: dict[str, str] = {
    SYSTEM_FAILURE: "The item cannot be judged because of the system (unreadable formula rendering, broken thread "
                    "link)",
    DO_NOT_KNOW: "You cannot decide even after reading the threads",
}
# A mark's number in the organizers' complete qrels (ARQMath-3 Task 3), and back.
MARK_NUMBERS: dict[str, int] = {SYSTEM_FAILURE: 5, DO_NOT_KNOW: 6}
MARKS: dict[int, str] = {number: mark for mark, number in MARK_NUMBERS.items()}

# The lowest relevant grade unless a campaign (or a command) says otherwise: ARQMath's H+M.
RELEVANCE_LEVEL = MEDIUM

# Keys the judging page keeps for itself (submit, back, next, skip, instances, definitions) or gives the marks.
RESERVED_KEYS = frozenset({"b", "n", "s", "j", "k", "?", *MARK_KEYS.values()})
MAX_GRADE = HIGH  # grade values are 0 to MAX_GRADE (a campaign's relevance level is 1 to 3)
DEFINITION_MAX = 500  # characters of a grade's definition


def is_relevant(grade: int, level: int) -> bool:
    """Whether a grade counts as relevant at relevance level `level` (the lowest relevant grade); a mark's number
    (5 or 6) never does."""
    return grade >= level and grade not in MARKS


@dataclass(frozen=True)
class Grade:
    value: int
    label: str
    key: str
    definition: str


@dataclass(frozen=True)
class Option:
    value: str
    label: str
    key: str


@dataclass(frozen=True)
class Facet:
    """A named question an assessor answers with one of its options; the scheme's table maps the answers to a grade."""
    name: str
    question: str
    options: tuple[Option, ...]


@dataclass(frozen=True)
class Scheme:
    name: str
    grades: tuple[Grade, ...]              # highest first, as the buttons show them
    marks: tuple[str, ...] = (SYSTEM_FAILURE, DO_NOT_KNOW)
    relevance_level: int = RELEVANCE_LEVEL
    facets: tuple[Facet, ...] = ()
    # Facets: each combination of options (in the order of `facets`) -> the grade the qrels take.
    table: Mapping[tuple[str, ...], int] = field(default_factory=dict)

    @property
    def values(self) -> frozenset[str]:
        """Every grade text a judgment of this scheme may hold: its grades' values and its marks."""
        return frozenset({*(str(g.value) for g in self.grades), *self.marks})

    @property
    def grade_values(self) -> dict[str, int]:
        """The stored grade texts that are grades (not marks), with their numbers."""
        return {str(g.value): g.value for g in self.grades}

    @property
    def scale(self) -> str:
        """The grades as a prompt and a page name them: "0 to 2", or "0, 1 or 3" when some value is skipped."""
        values = sorted(g.value for g in self.grades)
        if values == list(range(values[0], values[-1] + 1)) and len(values) > 2:
            return f"{values[0]} to {values[-1]}"
        return ", ".join(map(str, values[:-1])) + f" or {values[-1]}" if len(values) > 1 else str(values[0])

    def relevant_grades(self, level: int) -> list[str]:
        """The stored grade texts that count as relevant at relevance level `level` (`is_relevant`), highest first;
        a mark never does."""
        return [text for text, value in self.grade_values.items() if is_relevant(value, level)]

    def label(self, value: str) -> str:
        return next((g.label for g in self.grades if str(g.value) == value), MARK_LABELS.get(value, value))

    def grade_of(self, answers: Mapping[str, str]) -> int:
        """The grade that a facet answer per facet maps to; InputError naming a facet unanswered or answered with an
        option it lacks."""
        problems = []
        for facet in self.facets:
            answer = answers.get(facet.name, "")
            if answer not in {o.value for o in facet.options}:
                problems.append(f"{facet.name}: answer {', '.join(o.value for o in facet.options)}, "
                                f"not '{str(answer)[:20]}'")
        problems += [f"'{str(name)[:40]}' is not a facet of this scheme" for name in answers
                     if name not in {f.name for f in self.facets}]
        if problems:
            raise InputError(problems)
        return self.table[tuple(answers[f.name] for f in self.facets)]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "grades": [{"value": g.value, "label": g.label, "key": g.key, "definition": g.definition}
                       for g in self.grades],
            "marks": list(self.marks), "relevance_level": self.relevance_level,
            "facets": [{"name": f.name, "question": f.question,
                        "options": [{"value": o.value, "label": o.label, "key": o.key} for o in f.options]}
                       for f in self.facets],
            "table": [{"answers": list(answers), "grade": grade} for answers, grade in self.table.items()],
        }


def _grades(*rows: tuple[int, str, str]) -> tuple[Grade, ...]:
    return tuple(Grade(value, label, str(value), definition) for value, label, definition in rows)


ARQMATH_DEFINITIONS: dict[str, dict[int, str]] = {
    "answers": {
        HIGH: "Sufficient to answer the complete question on its own",
        MEDIUM: "Provides some path towards the solution",
        LOW: "Provides information that could be useful for finding or interpreting an answer, or interpreting the "
             "question",
        NOT_RELEVANT: "Provides no information pertinent to the question or its answers; restating the question is "
                      "not relevant",
    },
    "formulas": {
        HIGH: "Just as good as finding an exact match to the query formula would be",
        MEDIUM: "Useful but not as good as the original formula would be",
        LOW: "There is some chance of finding something useful",
        NOT_RELEVANT: "Not expected to be useful",
    },
}
MO_FACETS = (
    Facet("totality", "Does it answer the whole question?",
          (Option("total", "Total", "t"), Option("partial", "Partial", "p"), Option("none", "None", "o"))),
    Facet("directness", "Does it answer directly?",
          (Option("direct", "Direct", "r"), Option("indirect", "Indirect", "i"))),
)
PRESETS = ("arqmath", "trec-binary", "trec-3", "trec-4", "mo-facets")


def preset(name: str, task: str = "answers") -> Scheme:
    """A preset scheme by name (PRESETS); ARQMath's definitions are those of the campaign's task."""
    if name == "arqmath":
        meanings = ARQMATH_DEFINITIONS.get(task, ARQMATH_DEFINITIONS["answers"])
        return Scheme("arqmath", tuple(Grade(v, LABELS[v], str(v), meanings[v]) for v in reversed(GRADE_VALUES)))
    if name == "trec-binary":
        return Scheme(name, _grades((1, "Relevant", "Relevant to the topic"),
                                    (0, "Not relevant", "Not relevant to the topic")), marks=(), relevance_level=1)
    if name == "trec-3":
        return Scheme(name, _grades((2, "Highly relevant", "Highly relevant to the topic"),
                                    (1, "Relevant", "Relevant to the topic"),
                                    (0, "Not relevant", "Not relevant to the topic")), marks=(), relevance_level=1)
    if name == "trec-4":
        return Scheme(name, _grades(
            (3, "Perfectly relevant", "Dedicated to the query and contains the exact answer"),
            (2, "Highly relevant", "Has some answer for the query, but it may be a bit unclear or hidden among "
                                   "extraneous information"),
            (1, "Related", "Seems related to the query but does not answer it"),
            (0, "Irrelevant", "Has nothing to do with the query")), marks=(), relevance_level=2)
    if name == "mo-facets":
        table: dict[tuple[str, ...], int] = {
            ("total", "direct"): 3, ("total", "indirect"): 2, ("partial", "direct"): 2,
            ("partial", "indirect"): 1, ("none", "direct"): 0, ("none", "indirect"): 0}
        return Scheme(name, _grades((3, "High", "Answers the whole question, directly"),
                                    (2, "Medium", "Answers the whole question indirectly, or part of it directly"),
                                    (1, "Low", "Answers part of the question, indirectly"),
                                    (0, "Not relevant", "Answers none of the question")),
                      relevance_level=2, facets=MO_FACETS, table=table)
    raise InputError(f"unknown scheme '{str(name)[:40]}': use {', '.join(PRESETS)}, or a scheme file for custom")


def _whole(value: Any, low: int, high: int) -> bool:
    """Whether a scheme file's value is a whole number from low to high (JSON's true and 1.0 are not)."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _shown(value: Any) -> str:
    return str(value)[:20]


def scheme_from_json(data: Any) -> Scheme:
    """A scheme as a scheme file (or a campaign's `scheme` column) writes it; InputError with every problem. Every
    value is checked (a whole number in its range) before anything compares or counts it."""
    if not isinstance(data, dict):
        raise InputError("a scheme is a JSON object with grades (and marks, relevance_level, facets, table)")
    problems: list[str] = []
    grades, keys = [], set()
    rows = data.get("grades") or []
    if not isinstance(rows, list):
        problems.append("grades: a list of grades, each with value and label (and key, definition)")
        rows = []
    for n, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or "value" not in row or "label" not in row:
            problems.append(f"grade {n}: give value and label (and key, definition)")
            continue
        value, label = row["value"], str(row["label"]).strip()
        key, definition = str(row.get("key", value)).strip().lower(), str(row.get("definition", "")).strip()
        if not _whole(value, 0, MAX_GRADE):
            problems.append(f"grade {n}: a value is a whole number from 0 to {MAX_GRADE}, not {_shown(value)}")
        if not label or len(label) > 40:
            problems.append(f"grade {n}: a label is 1 to 40 characters")
        if len(key) != 1 or key in RESERVED_KEYS or key in keys:
            problems.append(f"grade {n}: key '{key[:10]}' must be one character, not taken by another grade nor one "
                            f"of {' '.join(sorted(RESERVED_KEYS))}")
        keys.add(key)
        if _whole(value, 0, MAX_GRADE):
            grades.append(Grade(value, label, key, definition[:DEFINITION_MAX]))
    values = [g.value for g in grades]
    if len(rows) < 2:
        problems.append("a scheme has at least two grades")
    if len(set(values)) != len(values):
        problems.append("two grades have the same value")
    marks = data.get("marks", [SYSTEM_FAILURE, DO_NOT_KNOW])
    if (not isinstance(marks, list) or any(not isinstance(m, str) or m not in MARK_LABELS for m in marks)
            or len(set(marks)) != len(marks)):
        problems.append("marks: a list of SF and DK, either or none")
        marks = []
    given = "relevance_level" in data  # else the lowest grade above 0, unnamed when a grade's value is refused
    level = data["relevance_level"] if given else min((v for v in values if v > 0), default=1)
    if (given or len(values) == len(rows)) and (not _whole(level, 1, MAX_GRADE) or level not in values):
        problems.append(f"the relevance level must be one of the grades above 0, not {_shown(level)}")
    facets, table = _facets(data, values, keys, problems)
    if problems:
        raise InputError(problems)
    return Scheme(str(data.get("name") or "custom")[:40], tuple(sorted(grades, key=lambda g: -g.value)),
                  tuple(marks), level, facets, table)


def _facets(data: dict, values: list[int], keys: set[str],
            problems: list[str]) -> tuple[tuple[Facet, ...], dict[tuple[str, ...], int]]:
    facets = []
    rows, lines = data.get("facets") or [], data.get("table") or []
    if not isinstance(rows, list):
        problems.append("facets: a list of facets, each with name and options")
        rows = []
    if not isinstance(lines, list):
        problems.append("table: a list of rows, each {\"answers\": [an option per facet], \"grade\": a grade's value}")
        lines = []
    for n, row in enumerate(rows, start=1):
        try:
            options = tuple(Option(str(o["value"]), str(o.get("label", o["value"])), str(o["key"]).lower())
                            for o in row["options"])
            facet = Facet(str(row["name"]), str(row.get("question", row["name"])), options)
        except (TypeError, KeyError):
            problems.append(f"facet {n}: give name and options (each with value and key)")
            continue
        if len(options) < 2 or len({o.value for o in options}) != len(options):
            problems.append(f"facet {facet.name}: at least two options, each its own value")
        for o in options:
            if o.value.isdigit() or o.value in MARK_LABELS:
                problems.append(f"facet {facet.name}: option {o.value} cannot be named as a grade or a mark")
            if len(o.key) != 1 or o.key in RESERVED_KEYS or o.key in keys:
                problems.append(f"facet {facet.name}: key '{o.key[:10]}' of {o.value} is taken or not one character")
            keys.add(o.key)
        facets.append(facet)
    table: dict[tuple[str, ...], int] = {}
    for row in lines:
        try:
            answers, grade = tuple(str(a) for a in row["answers"]), row["grade"]
        except (TypeError, KeyError):
            problems.append("table: each row is {\"answers\": [an option per facet], \"grade\": a grade's value}")
            continue
        table[answers] = grade if _whole(grade, 0, MAX_GRADE) else -1  # -1: no grade, named below as missing
    if facets:
        for combination in itertools.product(*({o.value for o in f.options} for f in facets)):
            if table.get(combination) not in values:
                problems.append(f"table: {' + '.join(combination)} needs one of the grades "
                                f"({', '.join(map(str, values))})")
        extra = set(table) - set(itertools.product(*({o.value for o in f.options} for f in facets)))
        problems += [f"table: {' + '.join(c)} is no combination of the facets' options" for c in sorted(extra)]
    elif table:
        problems.append("table: a scheme without facets has no table")
    return tuple(facets), table


def scheme_chosen(name: str | None, task: str) -> Scheme:
    """The scheme a command names (create_campaign --scheme, docs/judging.md): a preset's name, else a custom scheme's
    file (JSON); None: ARQMath's."""
    if name is None or name in PRESETS:
        return preset(name or "arqmath", task)
    if not name.lower().endswith(".json"):
        raise InputError(f"unknown scheme '{name[:40]}': use {', '.join(PRESETS)}, or a scheme file FILE.json")
    try:
        with open(name, encoding="utf-8") as stream:
            data = json.load(stream)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"scheme file {name}: {exc}") from None
    return scheme_from_json({"name": "custom", **data} if isinstance(data, dict) else data)


def scheme_given(value: Any, task: str) -> Scheme:
    """The scheme an API request gives: a preset's name, a custom scheme's object, or nothing (ARQMath's)."""
    if value is None or isinstance(value, str) and value in PRESETS:
        return preset(value or "arqmath", task)
    if isinstance(value, dict):
        return scheme_from_json({"name": "custom", **value})
    raise InputError(f"scheme: a preset's name ({', '.join(PRESETS)}) or a custom scheme's object")


def scheme_of(data: Mapping[str, Any] | None, task: str = "answers") -> Scheme:
    """A campaign's scheme from its `scheme` column: empty is ARQMath's, for the campaign's task."""
    return scheme_from_json(data) if data else preset("arqmath", task)

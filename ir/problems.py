"""The one error type for expected failures: rejected input with every problem and its line number.

No Django import: readers and algorithms raise it too. The API maps it to HTTP 400 (core.api.exception_handler),
the web UI to a form error (InputError.add_to_form) and the management commands to exit status 2
(core.commands.ServiceCommand).

Problems of one kind are reported grouped, here and only here (`InputError.messages`, `as_dicts`,
`Problems.messages`), for every surface: a kind seen at most GROUP_AFTER times in a file is listed problem by
problem, exactly as each reads alone; a kind seen more often is one line, its first problem followed by the count
and the line numbers, e.g. `run.tsv:line 1: topic 'A.1' is not a topic of this campaign (98,000 like this one, on
lines 1, 2, 3, 4, 5, ..., 98000)`. A problem's kind is its message with the variable parts left out (`kind_of`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

# Beyond this many, problems are counted but not kept (a 4M-row file that is wrong everywhere).
MAX_KEPT = 1000
# A kind seen more often than this in one file is reported as one line.
GROUP_AFTER = 3
# How many line numbers a grouped line names before the last one.
SHOWN_LINES = 5
# How many distinct messages a collector remembers the kind of.
KINDS_CACHED = 1024

# The variable parts of a message: quoted values and numbers.
_VARIABLE = re.compile(r"'[^'\n]*'|\d+")


def kind_of(message: str) -> str:
    """The message with its quoted values and numbers left out: "topic 'A.7' is not a topic of this campaign"
    and "topic 'B.9' is not a topic of this campaign" are one kind, "topic '…' is not a topic of this campaign"."""
    return _VARIABLE.sub("…", message)


@dataclass(frozen=True)
class Problem:
    line: int | None
    message: str
    file: str = ""

    @property
    def kind(self) -> str:
        return kind_of(self.message)

    def __str__(self) -> str:
        return _located(self.file, self.line, self.message)

    def as_dict(self) -> dict:
        return asdict(self)


def _located(file: str, line: int | None, message: str) -> str:
    where = f"{file}:" if file else ""
    if line is not None:
        where += f"line {line}: "
    elif where:
        where += " "
    return f"{where}{message}"


@dataclass
class ProblemGroup:
    """The problems of one kind in one file: the first GROUP_AFTER of them, their count, the first SHOWN_LINES line
    numbers and the last one."""

    kind: str
    file: str
    examples: list[Problem] = field(default_factory=list)
    count: int = 0
    lines: list[int] = field(default_factory=list)
    last_line: int | None = None

    def add(self, problem: Problem) -> None:
        if len(self.examples) < GROUP_AFTER:
            self.examples.append(problem)
        self.count_line(problem.line)

    def count_line(self, line: int | None) -> None:
        """Counts one more problem of the group (its example, if kept, is added by `add`)."""
        self.count += 1
        if line is not None:
            if len(self.lines) < SHOWN_LINES:
                self.lines.append(line)
            if self.last_line is None or line > self.last_line:
                self.last_line = line

    @property
    def grouped(self) -> bool:
        return self.count > GROUP_AFTER

    @property
    def first(self) -> Problem:
        return self.examples[0]

    def message(self) -> str:
        """The first problem's message and, for a group, how many like it and on which lines."""
        first = self.first.message
        if not self.grouped:
            return first
        lines = sorted(self.lines)
        if not lines:
            return f"{first} ({self.count:,} like this one)"
        shown = ", ".join(str(n) for n in lines)
        if self.count > len(lines) and self.last_line is not None and self.last_line > lines[-1]:
            shown += f", ..., {self.last_line}"
        return f"{first} ({self.count:,} like this one, on lines {shown})"

    def entries(self) -> list[tuple[int | None, str, dict]]:
        """(line, text, structured) of each reported line: the group as one, or each of its few problems."""
        if not self.grouped:
            return [(p.line, str(p), {**p.as_dict(), "kind": self.kind, "count": 1,
                                      "lines": [] if p.line is None else [p.line], "last_line": p.line})
                    for p in self.examples]
        first = self.first
        message = self.message()
        return [(first.line, _located(first.file, first.line, message),
                 {"line": first.line, "message": message, "file": first.file, "kind": self.kind,
                  "count": self.count, "lines": sorted(self.lines), "last_line": self.last_line})]


def _grouped(groups: Iterable[ProblemGroup]) -> list[tuple[str, dict]]:
    """Every group's lines, in line order (lines without a number last), ties in the order the kinds came."""
    entries = [entry for group in groups for entry in group.entries()]
    entries.sort(key=lambda e: (e[0] is None, e[0] or 0))
    return [(text, structured) for _line, text, structured in entries]


def _groups_of(problems: Iterable[Problem]) -> list[ProblemGroup]:
    groups: dict[tuple[str, str], ProblemGroup] = {}
    for problem in problems:
        kind = problem.kind
        group = groups.get((problem.file, kind))
        if group is None:
            group = groups[(problem.file, kind)] = ProblemGroup(kind, problem.file)
        group.add(problem)
    return list(groups.values())


def _more(total: int, reported: int) -> list[str]:
    rest = total - reported
    return [f"... and {rest:,} more problems"] if rest > 0 else []


class Problems:
    """Collects problems (or warnings) of one file; keeps the first MAX_KEPT and counts the rest, and groups every
    one it is given by kind (so a file wrong on every line is reported in a few lines whatever its size)."""

    def __init__(self, file: str = "", limit: int = MAX_KEPT) -> None:
        self.file = file
        self.limit = limit
        self.items: list[Problem] = []
        self.count = 0
        self._groups: dict[str, ProblemGroup] = {}
        self._kinds: dict[str, str] = {}  # message -> kind, for messages that repeat (a file wrong on every row)

    def add(self, line: int | None, message: str, kind: str | None = None) -> None:
        """One problem; `kind`, the message's template with its variable parts left out, is worked out from the
        message when not given (`kind_of`): a reader that reports many problems gives it and saves the work."""
        self.count += 1
        if kind is None:
            kind = self._kinds.get(message)
        if kind is None:
            kind = kind_of(message)
            if len(self._kinds) < KINDS_CACHED:
                self._kinds[message] = kind
        group = self._groups.get(kind)
        if group is None:
            group = self._groups[kind] = ProblemGroup(kind, self.file)
        keep = len(self.items) < self.limit
        if keep or len(group.examples) < GROUP_AFTER:  # past that, a Problem is only counted: no object made
            problem = Problem(line, message, self.file)
            if keep:
                self.items.append(problem)
            group.add(problem)
        else:
            group.count_line(line)

    def add_all(self, line: int | None, messages: list[str]) -> None:
        for message in messages:
            self.add(line, message)

    def __bool__(self) -> bool:
        return self.count > 0

    def __len__(self) -> int:
        return self.count

    @property
    def groups(self) -> list[ProblemGroup]:
        return list(self._groups.values())

    def messages(self) -> list[str]:
        """One line per problem, or per kind where a kind is frequent, in line order; then what was only counted."""
        grouped = _grouped(self._groups.values())
        return [text for text, _ in grouped] + _more(self.count, sum(g.count for g in self._groups.values()))

    def add_uncounted(self, n: int) -> None:
        """Counts n more problems that are not kept (a query found more than it listed)."""
        self.count += n

    def in_line_order(self) -> list[Problem]:
        return sorted(self.items, key=lambda p: (p.line is None, p.line or 0))

    def raise_if_any(self) -> None:
        if self.count:
            raise InputError.of(self)


class InputError(Exception):
    """Input rejected as a whole; nothing of it was written.

    `problems` are the kept problems, one by one, in line order; `total` counts every problem; `groups` hold every
    counted problem by kind (`messages` and `as_dicts` report them)."""

    def __init__(self, problems: list[Problem] | Problem | str | list[str], total: int | None = None,
                 groups: list[ProblemGroup] | None = None) -> None:
        if isinstance(problems, str):
            problems = [Problem(None, problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems = [Problem(None, p) if isinstance(p, str) else p for p in problems]
        self.total = total if total is not None else len(self.problems)
        self.groups = groups if groups is not None else _groups_of(self.problems)
        super().__init__("; ".join(str(p) for p in self.problems[:5]))

    @classmethod
    def of(cls, *collectors: Problems) -> InputError:
        """The problems of one or more files' collectors, with their groups."""
        kept = [problem for c in collectors for problem in c.in_line_order()]
        return cls(kept, total=sum(c.count for c in collectors), groups=[g for c in collectors for g in c.groups])

    def _grouped(self) -> list[tuple[str, dict]]:
        return _grouped(self.groups)

    def messages(self) -> list[str]:
        """The lines every surface shows (command standard error, page, API): one per problem, or one per kind
        where a kind is frequent, then how many were counted but not kept."""
        return [text for text, _ in self._grouped()] + _more(self.total, sum(g.count for g in self.groups))

    def add_to_form(self, form, field: str | None = None) -> None:
        """The web UI's mapping: every line of `messages` as an error of a Django form (of `field`, else the form's
        own), so the page shows what the command and the API would say."""
        for message in self.messages():
            form.add_error(field, message)

    def as_dicts(self) -> list[dict]:
        """The same lines, structured: `line`, `message` and `file` of the line's (first) problem, the message
        followed, for a group, by its count and lines; `kind`, `count`, `lines` (the first few) and `last_line`."""
        dicts = [structured for _, structured in self._grouped()]
        rest = self.total - sum(g.count for g in self.groups)
        if rest > 0:
            dicts.append({"line": None, "message": f"... and {rest:,} more problems", "file": "", "kind": "",
                          "count": rest, "lines": [], "last_line": None})
        return dicts

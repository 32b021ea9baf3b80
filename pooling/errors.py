"""The one error type for expected failures: rejected input with every problem and its line number.

No Django import: readers and algorithms raise it too. The API maps it to HTTP 400, the web UI to a
form error and the management commands to exit status 2.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

# Beyond this many, problems are counted but not kept (a 4M-row file that is wrong everywhere).
MAX_KEPT = 1000


@dataclass(frozen=True)
class Problem:
    line: int | None
    message: str
    file: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:" if self.file else ""
        if self.line is not None:
            where += f"line {self.line}: "
        elif where:
            where += " "
        return f"{where}{self.message}"

    def as_dict(self) -> dict:
        return asdict(self)


class Problems:
    """Collects problems (or warnings) of one file; keeps the first MAX_KEPT and counts the rest."""

    def __init__(self, file: str = "", limit: int = MAX_KEPT) -> None:
        self.file = file
        self.limit = limit
        self.items: list[Problem] = []
        self.count = 0

    def add(self, line: int | None, message: str) -> None:
        self.count += 1
        if len(self.items) < self.limit:
            self.items.append(Problem(line, message, self.file))

    def add_all(self, line: int | None, messages: list[str]) -> None:
        for message in messages:
            self.add(line, message)

    def __bool__(self) -> bool:
        return self.count > 0

    def __len__(self) -> int:
        return self.count

    def messages(self) -> list[str]:
        lines = [str(p) for p in self.items]
        if self.count > len(self.items):
            lines.append(f"... and {self.count - len(self.items)} more problems")
        return lines

    def add_uncounted(self, n: int) -> None:
        """Counts n more problems that are not kept (a query found more than it listed)."""
        self.count += n

    def in_line_order(self) -> list[Problem]:
        return sorted(self.items, key=lambda p: (p.line is None, p.line or 0))

    def raise_if_any(self) -> None:
        if self.count:
            raise InputError(self.in_line_order(), total=self.count)


class InputError(Exception):
    """Input rejected as a whole; nothing of it was written."""

    def __init__(self, problems: list[Problem] | Problem | str, total: int | None = None) -> None:
        if isinstance(problems, str):
            problems = [Problem(None, problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems = list(problems)
        self.total = total if total is not None else len(self.problems)
        super().__init__("; ".join(str(p) for p in self.problems[:5]))

    def messages(self) -> list[str]:
        lines = [str(p) for p in self.problems]
        if self.total > len(self.problems):
            lines.append(f"... and {self.total - len(self.problems)} more problems")
        return lines

    def as_dicts(self) -> list[dict]:
        return [p.as_dict() for p in self.problems]

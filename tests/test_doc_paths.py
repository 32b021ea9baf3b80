"""Every file, folder and module the documentation names exists: README.md, docs/*.md, pyproject.toml and the
requirements files point at the repository as it is, so that a newcomer who follows a path finds it.

What counts: in Markdown, a word inside backticks (inline or in a fenced block) or a link's target (resolved from
its document's folder); in the TOML and requirements files, any word. It must look like a repository path (contain a
"/" and start with a top-level name of the repository, or be the name of a file at the root), or be a dotted module
(`evaluation.fusion`, `ir.rankings.tau_b`) whose first part is a top-level package. A `:line`, `::name` or
`#anchor` after a path is left off. Names outside the repository (`../shared/...`, `/usr/bin/chromium`, `.venv/...`,
URLs, globs, `<placeholders>`, what a run generates) are not paths.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The apps of docs/architecture.md, whether or not their folder exists at the moment: a path into one of them is
# checked, so that a folder which went away in a move leaves no reference to it unseen.
APPS = frozenset({"ir", "core", "pooling", "people", "jobs", "llm", "judging", "agreement", "characterisation",
                  "evaluation", "workflow", "config", "assessor"})
SUFFIXES = (".py", ".md", ".txt", ".toml", ".yml", ".yaml", ".js", ".css", ".html", ".cfg", ".png", ".json",
            ".tsv", ".xml")
GENERATED = ("bench/out",)  # a benchmark's inputs and results, never in the repository
# Named on purpose as gone: what an upgrade from an older version meets (docs/decisions.md, docs/judging.md).
REMOVED = frozenset({"assessor.auth.UserBackend"})
# Made by running the service, by a tool or by git, never in the repository (what `make clean` removes, and more).
UNTRACKED = frozenset({".git", ".venv", ".data", ".mypy_cache", ".pytest_cache", ".ruff_cache", "staticfiles"})
NOT_A_PATH = re.compile(r"://|[*<>{}$|~]|\.\.\.|^\.{0,2}/|^[=-]|^\w+=")
BACKTICKS = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
TEXT_WORD = re.compile(r"[^\s\"'(),\[\]=]+")
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
TAIL = re.compile(r"(?:::[\w\[\]-]+|:\d+(?:-\d+)?|:|#[\w-]*)$")


@dataclass(frozen=True)
class Named:
    doc: str  # relative to the repository's root
    line: int
    path: str  # relative to the repository's root

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {self.path}"


def documents(root: Path = ROOT) -> list[Path]:
    found = [root / "README.md", root / "pyproject.toml", *sorted((root / "docs").glob("*.md")),
             *sorted(root.glob("requirements*.txt"))]
    return [path for path in found if path.exists()]


def clean(word: str) -> str:
    """The word without the sentence's punctuation around it and without a `:line`, `::name` or `#anchor`."""
    while True:
        stripped = TAIL.sub("", word.lstrip("\"'([").rstrip("\"')],;.!?"))
        if stripped == word:
            return word
        word = stripped


def is_module(word: str, tops: frozenset[str], root: Path) -> bool:
    first = word.split(".")[0]
    return (DOTTED.fullmatch(word) is not None and not word.endswith(SUFFIXES) and first in tops
            and (first in APPS or (root / first / "__init__.py").exists()))


def is_path(word: str, tops: frozenset[str], root: Path) -> bool:
    if not word or NOT_A_PATH.search(word) or any(word == made or word.startswith(made + "/") for made in GENERATED):
        return False
    if "/" in word:
        return word.split("/")[0] in tops
    return word in tops and (word.endswith(SUFFIXES) or (root / word).is_file())


def candidates(doc: Path, root: Path = ROOT) -> list[Named]:
    """Every path and dotted module the document names, with its line."""
    tops = APPS | {entry.name for entry in root.iterdir() if entry.name not in UNTRACKED}
    where = doc.relative_to(root).as_posix()
    folder = os.path.dirname(where)
    named: list[Named] = []

    def consider(line: int, word: str) -> None:
        word = clean(word)
        if is_path(word, tops, root) or is_module(word, tops, root):
            named.append(Named(where, line, word))

    fenced = False
    for line, text in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
        if doc.suffix != ".md":
            for word in TEXT_WORD.findall(text):
                consider(line, word)
        elif text.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced:
            for word in text.split():
                consider(line, word)
        else:
            for span in BACKTICKS.findall(text):
                for word in span.split():
                    consider(line, word)
            for target in LINK.findall(text):
                target = target.split("#")[0]
                if not target or NOT_A_PATH.search(target.removeprefix("../").removeprefix("./")):
                    continue
                resolved = os.path.normpath(os.path.join(folder, target))
                if not resolved.startswith(".."):  # a link out of the repository is not checked
                    consider(line, resolved + ("/" if target.endswith("/") else ""))
    return named


def defines(source: Path, name: str) -> bool:
    """Whether the module defines or imports `name` at its top level."""
    names: set[str] = set()
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(target.id for target in targets if isinstance(target, ast.Name))
    return name in names


def module_exists(dotted: str, root: Path) -> bool:
    """`a.b.c`: a module a/b/c.py or a package a/b/c/, or a name c (what follows it unchecked) defined in a/b."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        folder = root.joinpath(*parts[:cut])
        module = folder.with_suffix(".py")
        source = module if module.exists() else folder / "__init__.py"
        if source.exists():
            return cut == len(parts) or defines(source, parts[cut])
    return False


def exists(path: str, root: Path = ROOT) -> bool:
    if DOTTED.fullmatch(path) and not path.endswith(SUFFIXES):
        return module_exists(path, root)
    return (root / path).exists()


def missing_paths(root: Path = ROOT) -> list[Named]:
    return [named for doc in documents(root) for named in candidates(doc, root)
            if named.path not in REMOVED and not exists(named.path, root)]


def anchors(doc: Path) -> set[str]:
    """The anchors of the document's headings, as GitHub makes them (lower case, punctuation gone, a space a dash)."""
    found, fenced = set(), False
    for text in doc.read_text(encoding="utf-8").splitlines():
        if text.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"#+\s+(.*)", text)):
            found.add(re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-"))
    return found


def missing_anchors(root: Path = ROOT) -> list[Named]:
    """Links to a heading of a Markdown document (`pooling.md#when-to-stop`) whose heading is not there."""
    missing = []
    for doc in documents(root):
        if doc.suffix != ".md":
            continue
        where = doc.relative_to(root).as_posix()
        for line, text in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
            for target in LINK.findall(text):
                page, _, anchor = target.partition("#")
                linked = root / os.path.normpath(os.path.join(os.path.dirname(where), page)) if page else doc
                if anchor and "://" not in page and linked.suffix == ".md" and linked.exists() \
                        and anchor not in anchors(linked):
                    missing.append(Named(where, line, target))
    return missing


def test_every_path_the_docs_name_exists():
    missing = missing_paths()
    assert not missing, "paths named in the docs that do not exist:\n" + "\n".join(map(str, missing))


def test_every_heading_the_docs_link_to_exists():
    missing = missing_anchors()
    assert not missing, "links to headings that do not exist:\n" + "\n".join(map(str, missing))


def test_a_planted_missing_path_is_found(tmp_path):
    (tmp_path / "pyproject.toml").write_text('files = ["ir"]  # see ir/real.py, ir/gone.py, not bench/out/x.json\n')
    (tmp_path / "ir").mkdir()
    (tmp_path / "ir" / "__init__.py").write_text("")
    (tmp_path / "ir" / "real.py").write_text("def kept():\n    pass\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(
        "Read `ir/real.py:2`, `ir.real.kept` and [the guide](guide.md#top), [real](../ir/real.py).\n"
        "```\nDATABASE_URL=x .venv/bin/python ir/missing.py --flag\n```\n"
        "Not paths: `../shared/data/`, `/usr/bin/chromium`, `ir/*.py`, `ir/<name>.py`, [x](https://e.org/ir/x.py).\n"
        "Gone: `ir.real.dropped`, [old](../ir/old.md), `ir/pools/posts.py::test_x`, `ir.gone`.\n")
    assert [str(named) for named in missing_paths(tmp_path)] == [
        "pyproject.toml:1: ir/gone.py",
        "docs/guide.md:3: ir/missing.py",
        "docs/guide.md:6: ir.real.dropped",
        "docs/guide.md:6: ir/pools/posts.py",
        "docs/guide.md:6: ir.gone",
        "docs/guide.md:6: ir/old.md",
    ]
    found = {named.path for doc in documents(tmp_path) for named in candidates(doc, tmp_path)}
    assert found >= {"ir/real.py", "ir.real.kept", "docs/guide.md"}
    assert not {path for path in found if "shared" in path or "chromium" in path or "*" in path or "<" in path}


def test_a_link_to_a_missing_heading_is_found(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(
        "# The guide\n\n## Pages at full scale (issue 24)\n\n```\n# not a heading\n```\n")
    (tmp_path / "README.md").write_text(
        "[a](docs/guide.md#pages-at-full-scale-issue-24) [b](docs/guide.md#not-a-heading) [c](#the-readme)\n")
    assert [str(named) for named in missing_anchors(tmp_path)] == ["README.md:1: docs/guide.md#not-a-heading",
                                                                   "README.md:1: #the-readme"]

"""What the demo collection, its runs and the bulk writers share: source files, formats, dates, real LaTeX."""
from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from xml.sax.saxutils import escape

DATA_DIR = Path(__file__).resolve().parent / "data"
TASK1_TOPICS = "topics.arqmath-2022-task1-or-task3-origin.xml"
TASK2_TOPICS = "topics.arqmath-2022-task2-origin.xml"
INDEX_SAMPLE = "formula_index_v2_sample.tsv"
TOPIC_FORMULAS = "task1_formulas_2022_formulas_latex.tsv"

# Post ids count up from 1; formula ids start far above them so the two never collide.
FORMULA_ID_START = 10_000_001
INDEX_HEADER = "id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n"
XML_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n'
START = datetime(2010, 7, 20)
SPAN_SECONDS = (datetime(2019, 1, 1) - START).total_seconds()

# Answers per question (0..8, mean 3.25), shaped like the real site: many with 1-4, few with 8.
ANSWER_WEIGHTS = (6, 14, 20, 20, 15, 10, 7, 5, 3)
# An alternate run is mostly its team's primary system: the share of noise the two have in common.
ALTERNATE_CORRELATION = 0.75

GENERIC_WORDS = (
    "integral", "series", "limit", "matrix", "group", "ring", "field", "polynomial",
    "sequence", "function", "derivative", "eigenvalue", "prime", "graph", "probability",
    "vector space", "topology", "inequality", "convergence", "identity", "equation", "set",
    "measure", "norm", "determinant", "permutation", "subgroup", "manifold", "recurrence",
    "binomial coefficient",
)
TITLE_TEMPLATES = (
    "How to prove {a} for {b}?", "Question about {a} and {b}", "Is every {a} a {b}?",
    "Understanding the {a} in a {b} problem", "Why does {a} imply {b}?",
    "Computing the {a} of a {b}", "{a} of {b}: is there a counterexample?",
    "Help with a {a} {b} exercise", "Alternative proof for {a} and {b}",
    "Bound on the {a} of a {b}",
)
SENTENCES = (
    "Let {f} be given and consider the {w}.", "We want to show that {f} for every {w}.",
    "By induction on {f}, the claim follows.", "Note that {f}, so the {w} is well defined.",
    "Applying the triangle inequality gives {f}.", "Hence {f}.",
    "I tried substituting {f} but got stuck.", "This is a standard result about the {w}.",
    "Consider the case {f} separately.",
    "Since {f} is continuous, the {w} attains its maximum.", "It suffices to check that {f}.",
    "My textbook states {f} without proof.", "Using the definition of the {w}, we get {f}.",
    "Therefore {f} and we are done.", "Is there a simpler way to see that {f}?",
    "The key observation is that {f} whenever {f}.", "One can also argue via the {w}.",
    "Compare this with {f}.", "In particular, the {w} is determined by {f}.",
    "A similar argument works for the {w}.",
)

_ATTR_ENTITIES = {'"': "&quot;", "\n": "&#xA;", "\r": "&#xD;", "\t": "&#x9;"}
_BAD_LATEX = re.compile(r'[$"\x00-\x1f\x7f]')


def attr(value: str) -> str:
    """An XML attribute value; line ends and tabs as character references so parsers keep them."""
    return escape(value, _ATTR_ENTITIES)


def iso_date(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds")


def clean_latex(latex: str) -> str | None:
    """One line of LaTeX that survives `$...$` markup and a TSV cell, or None."""
    latex = " ".join(latex.split())
    if not latex or _BAD_LATEX.search(latex):
        return None
    return latex


def latex_key(latex: str) -> str:
    """LaTeX without white space: instances with equal keys share a visual id (docs/pooling.md)."""
    return "".join(latex.split())


def read_tsv(path: Path) -> Iterator[dict[str, str]]:
    # QUOTE_NONE: a LaTeX cell may start with a quote character that is not CSV quoting.
    with open(path, encoding="utf-8-sig", newline="") as stream:
        yield from csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE)


def load_latex_pool() -> list[str]:
    """Distinct real LaTeX strings of the v2 index sample and the ARQMath-3 topic questions.

    In file order, so the pool is the same on every machine.
    """
    pool: dict[str, None] = {}
    for name in (INDEX_SAMPLE, TOPIC_FORMULAS):
        for row in read_tsv(DATA_DIR / name):
            latex = clean_latex(row["formula"])
            if latex:
                pool.setdefault(latex)
    return list(pool)

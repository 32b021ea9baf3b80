"""Synthetic Math-Stack-Exchange-like collection and runs in the real ARQMath file formats.

Feeds `make demo` (generate_demo) and the benchmarks (write_posts_bulk, write_task1_runs_bulk).
Standard library only, no Django. The same arguments give byte-identical files.

What is real and what is made up:
- Topics are the real ARQMath-3 topic files in data/, copied as they are or cut to the first N.
- Posts, comments and users are synthetic, but their LaTeX is real: the v2 formula index sample and
  the formulas of the ARQMath-3 topic questions (white space runs collapsed to one space, formulas
  with `$`, `"` or control characters left out so they survive the TSV and the `$...$` markup).
- About 70% of the questions are "about" one A topic: their titles borrow its words and tags, their
  posts reuse its formulas, and 4-8 answers per topic hold its Task 2 query formula, sometimes with
  extra spaces. The collection does not depend on topics_per_task nor on run_depth.
- visual_id in formula_index.tsv: instances whose LaTeX is equal once all white space is removed
  share a visual id, the smallest formula id of that cluster (the rule of SPEC 4.2, so the index
  agrees with what the clustering computes). The real sample's visual ids are not reused.
- Runs rank candidates by a hidden relevance plus per-system noise; an alternate run shares most
  of its noise with its team's primary, so runs overlap the way real systems do.
- Post ids count up from 1 in creation order with small gaps (deleted posts); formula ids start at
  10,000,001 so they never collide with post ids. Every id is written as a string.
"""
from __future__ import annotations

import csv
import html
import math
import random
import re
import shutil
from array import array
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TextIO, overload
from xml.etree import ElementTree
from xml.sax.saxutils import escape

DATA_DIR = Path(__file__).resolve().parent / "data"
TASK1_TOPICS = "topics.arqmath-2022-task1-or-task3-origin.xml"
TASK2_TOPICS = "topics.arqmath-2022-task2-origin.xml"
INDEX_SAMPLE = "formula_index_v2_sample.tsv"
TOPIC_FORMULAS = "task1_formulas_2022_formulas_latex.tsv"

FORMULA_ID_START = 10_000_001
INDEX_HEADER = "id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n"
XML_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n'
START = datetime(2010, 7, 20)
SPAN_SECONDS = (datetime(2019, 1, 1) - START).total_seconds()
DAY = 86_400.0

# Answers per question (0..8, mean 3.25), shaped like the real site: many with 1-4, few with 8.
ANSWER_WEIGHTS = (6, 14, 20, 20, 15, 10, 7, 5, 3)
SUBJECT_SHARE = 0.7
CANDIDATES = 300
ALTERNATE_CORRELATION = 0.75

GENERIC_WORDS = (
    "integral", "series", "limit", "matrix", "group", "ring", "field", "polynomial",
    "sequence", "function", "derivative", "eigenvalue", "prime", "graph", "probability",
    "vector space", "topology", "inequality", "convergence", "identity", "equation", "set",
    "measure", "norm", "determinant", "permutation", "subgroup", "manifold", "recurrence",
    "binomial coefficient",
)
STOP_WORDS = frozenset(
    "a an and are as at be by can do does for from how i if in is it its of on or prove "
    "show that the then this to what when where which why with without".split()
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
COMMENTS = (
    "Hint: consider ${f}$.", "What is ${f}$ here?", "Have you tried induction?",
    "@user{u} thanks, that fixed it.", "This is a duplicate of https://math.stackexchange.com/q/{q}",
    "Welcome to MSE! Please show what you tried.", "Nice answer, +1.",
    "Shouldn't it be ${f}$ instead?",
)
# Comments are plain text on the site: their math is raw `$...$`, never a formula-index span.
SHORT_LATEX = ("x^2", "n+1", "f(x)=0", r"\epsilon>0", r"a_n\to 0", r"\det A", r"\sqrt{2}")
CODE_SNIPPETS = (
    "from sympy import symbols, integrate\nx = symbols('x')\nprint(integrate(x**2, (x, 0, 1)))",
    "for n in range(1, 10):\n    print(n, n**2 % 7)",
    "f[x_] := x^2 + 1\nPlot[f[x], {x, -2, 2}]",
    "if a < b && b > 0:\n    a, b = b, a",
)
WIKI_PAGES = (
    "Cauchy%E2%80%93Schwarz_inequality", "H%C3%B6lder%27s_inequality",
    "Fundamental_theorem_of_calculus", "Jordan_normal_form", "Chinese_remainder_theorem",
    "Lebesgue_integration", "Pigeonhole_principle", "Taylor_series", "Sylow_theorems",
    "Stirling%27s_approximation", "Inclusion%E2%80%93exclusion_principle",
)
# (team, method, noise of its scores, run format of its Task 1 runs)
TEAMS = (
    ("alpha", "tangent", 0.55, "arqmath"),
    ("beta", "bm25", 0.8, "arqmath"),
    ("gamma", "dense", 1.05, "trec"),
)
# Each team reports scores on its own scale, as real systems do: score = a * value + b.
SCORE_SCALE = {"alpha": (0.25, 0.0), "beta": (2.0, 8.0), "gamma": (4.0, 15.0)}

_ATTR_ENTITIES = {'"': "&quot;", "\n": "&#xA;", "\r": "&#xD;", "\t": "&#x9;"}
_BAD_LATEX = re.compile(r'[$"\x00-\x1f\x7f]')
_SLOT = re.compile(r"\{([fw])\}")


@dataclass
class DemoFiles:
    posts: Path
    comments: Path
    formulas: Path
    task1_topics: Path
    task2_topics: Path
    task1_runs: list[tuple[Path, bool]] = field(default_factory=list)  # (path, alternate)
    task2_runs: list[tuple[Path, bool]] = field(default_factory=list)


@dataclass
class _Subject:
    """An ARQMath-3 topic question that synthetic threads are about (A.301 and B.301 -> "301")."""

    number: str
    words: list[str]
    tags: list[str]
    formulas: list[str]
    query: str | None = None


@dataclass
class _Post:
    id: int
    parent: int  # 0 for a question
    created: datetime
    subject: _Subject | None
    owner: int
    score: int
    views: int = 0
    title: str = ""
    words: frozenset[str] = frozenset()
    tags: list[str] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    accepted: int = 0
    comments: int = 0
    planted: list[str] = field(default_factory=list)
    body: str = ""

    @property
    def thread(self) -> int:
        return self.parent or self.id


@dataclass(frozen=True)
class _Formula:
    id: int
    post: int
    thread: int
    kind: str
    visual: int
    key: str
    latex: str


@dataclass(frozen=True)
class _System:
    team: str
    method: str
    noise: float
    fmt: str
    alternate: bool

    @property
    def letter(self) -> str:
        return "A" if self.alternate else "P"

    def tag(self) -> str:
        return f"{self.team}-{self.method}-{self.letter}"

    def filename(self, task: int) -> str:
        ext = "txt" if self.fmt == "trec" and task == 1 else "tsv"
        return f"{self.team}-task{task}-{self.method}-auto-both-{self.letter}.{ext}"


def _systems() -> list[_System]:
    return [
        _System(team, method, noise, fmt, alternate)
        for team, method, noise, fmt in TEAMS
        for alternate in (False, True)
    ]


# ---------------------------------------------------------------------------------------------
# Public API


def generate_demo(
    out_dir: Path,
    *,
    seed: int = 2022,
    topics_per_task: int | None = None,
    questions: int = 3000,
    run_depth: int = 100,
) -> DemoFiles:
    """Writes the demo collection, both topic files and 6 runs per task under out_dir."""
    if topics_per_task is not None and topics_per_task < 1:
        raise ValueError("topics_per_task must be at least 1")
    if questions < 1 or run_depth < 1:
        raise ValueError("questions and run_depth must be at least 1")
    out_dir = Path(out_dir)
    for sub in ("topics", "runs/task1", "runs/task2"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
    files = DemoFiles(
        posts=out_dir / "Posts.xml",
        comments=out_dir / "Comments.xml",
        formulas=out_dir / "formula_index.tsv",
        task1_topics=out_dir / "topics" / TASK1_TOPICS,
        task2_topics=out_dir / "topics" / TASK2_TOPICS,
    )
    subjects = _load_subjects()
    rng = random.Random(f"{seed}/collection")
    posts = _plan_posts(rng, questions, list(subjects.values()))
    _plant_queries(rng, posts, subjects)
    comments = _plan_comments(rng, posts)
    formulas = _BodyWriter(rng, _load_latex_pool(), posts).render_all()
    _write_posts(files.posts, posts)
    _write_comments(files.comments, comments)
    _write_formula_index(files.formulas, formulas)

    task1 = _write_topics(DATA_DIR / TASK1_TOPICS, files.task1_topics, topics_per_task)
    task2 = _write_topics(DATA_DIR / TASK2_TOPICS, files.task2_topics, topics_per_task)
    files.task1_runs = _write_task1_runs(
        out_dir / "runs" / "task1", seed=seed, topics=task1, subjects=subjects, posts=posts,
        depth=run_depth,
    )
    files.task2_runs = _write_task2_runs(
        out_dir / "runs" / "task2", seed=seed, topics=task2, subjects=subjects, posts=posts,
        formulas=formulas, depth=run_depth,
    )
    return files


# ---------------------------------------------------------------------------------------------
# Source data


def _clean_latex(latex: str) -> str | None:
    """One line of LaTeX that survives `$...$` markup and a TSV cell, or None."""
    latex = " ".join(latex.split())
    if not latex or _BAD_LATEX.search(latex):
        return None
    return latex


def _key(latex: str) -> str:
    return "".join(latex.split())


def _read_tsv(path: Path) -> Iterator[dict[str, str]]:
    # QUOTE_NONE: a LaTeX cell may start with a quote character that is not CSV quoting.
    with open(path, encoding="utf-8-sig", newline="") as stream:
        yield from csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE)


def _load_latex_pool() -> list[str]:
    """Distinct real LaTeX strings, in file order (so the pool is the same on every machine)."""
    pool: dict[str, None] = {}
    for name in (INDEX_SAMPLE, TOPIC_FORMULAS):
        for row in _read_tsv(DATA_DIR / name):
            latex = _clean_latex(row["formula"])
            if latex:
                pool.setdefault(latex)
    return list(pool)


def _title_words(title_html: str) -> list[str]:
    text = html.unescape(re.sub(r"<span[^>]*>.*?</span>|<[^>]+>", " ", title_html))
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]+", text)]
    return list(dict.fromkeys(w for w in words if len(w) > 2 and w not in STOP_WORDS))


def _load_subjects() -> dict[str, _Subject]:
    formulas: dict[str, list[str]] = defaultdict(list)
    for row in _read_tsv(DATA_DIR / TOPIC_FORMULAS):
        latex = _clean_latex(row["formula"])
        if latex:
            formulas[row["topic_id"].split(".")[-1]].append(latex)
    subjects: dict[str, _Subject] = {}
    for topic in ElementTree.parse(DATA_DIR / TASK1_TOPICS).getroot():
        number = topic.get("number", "").split(".")[-1]
        tags = [t for t in (topic.findtext("Tags") or "").split(",") if t]
        words = _title_words(topic.findtext("Title") or "") or list(GENERIC_WORDS[:3])
        subjects[number] = _Subject(number, words, tags, formulas[number])
    for topic in ElementTree.parse(DATA_DIR / TASK2_TOPICS).getroot():
        subject = subjects.get(topic.get("number", "").split(".")[-1])
        if subject is not None:
            subject.query = _clean_latex(topic.findtext("Latex") or "")
    return subjects


# ---------------------------------------------------------------------------------------------
# Collection layout


def _plan_posts(rng: random.Random, questions: int, subjects: list[_Subject]) -> list[_Post]:
    """Lays threads out in time and numbers posts in creation order, as the real dump does."""
    events: list[tuple[float, int, int]] = []  # (seconds since START, order, thread)
    thread_subjects: list[_Subject | None] = []
    for thread in range(questions):
        asked = rng.random() * SPAN_SECONDS
        subject = rng.choice(subjects) if rng.random() < SUBJECT_SHARE else None
        thread_subjects.append(subject)
        events.append((asked, len(events), thread))
        for _ in range(rng.choices(range(len(ANSWER_WEIGHTS)), ANSWER_WEIGHTS)[0]):
            events.append((asked + rng.expovariate(1 / DAY), len(events), thread))
    events.sort()

    users = max(50, questions)
    posts: list[_Post] = []
    question_of: dict[int, _Post] = {}
    next_id = 0
    for when, _, thread in events:
        next_id += 1 + (rng.randrange(1, 4) if rng.random() < 0.2 else 0)  # deleted posts
        question = question_of.get(thread)
        post = _Post(
            id=next_id,
            parent=question.id if question else 0,
            created=START + timedelta(seconds=when),
            subject=thread_subjects[thread],
            owner=int(users ** rng.random()),  # a few users write most posts
            score=max(-3, int(rng.gauss(2, 4))),
        )
        if question is None:
            question_of[thread] = post
            _describe_question(rng, post)
        else:
            question.answers.append(post.id)
        posts.append(post)
    for question in question_of.values():
        if question.answers and rng.random() < 0.55:
            question.accepted = rng.choice(question.answers)
    return posts


def _describe_question(rng: random.Random, post: _Post) -> None:
    subject = post.subject
    words = subject.words if subject else GENERIC_WORDS
    a, b = (rng.sample(words, 2) if len(words) > 1 else [words[0], rng.choice(GENERIC_WORDS)])
    title = rng.choice(TITLE_TEMPLATES).format(a=a, b=b)
    post.title = title[0].upper() + title[1:]
    post.words = frozenset(_title_words(post.title))
    tag_pool = subject.tags if subject and subject.tags else ["algebra-precalculus", "calculus"]
    post.tags = rng.sample(tag_pool, min(len(tag_pool), rng.randint(1, 3)))
    post.views = int(10 ** (1.3 + 2.5 * rng.random()))


def _plant_queries(rng: random.Random, posts: list[_Post], subjects: dict[str, _Subject]) -> None:
    """Puts each Task 2 query formula into a few answers, so there are instances to find."""
    answers = [p for p in posts if p.parent]
    by_subject: dict[str, list[_Post]] = defaultdict(list)
    for post in answers:
        if post.subject:
            by_subject[post.subject.number].append(post)
    for number, subject in subjects.items():
        if not subject.query or not answers:
            continue
        related = by_subject[number]
        chosen = rng.sample(related, min(len(related), rng.randint(4, 8)))
        while len(chosen) < 3:  # a subject nobody asked about still gets a few instances
            chosen.append(rng.choice(answers))
        for post in chosen:
            # Extra spaces give a different LaTeX string with the same visual id.
            spaced = rng.random() < 0.4
            post.planted.append(_respace(subject.query) if spaced else subject.query)


def _respace(latex: str) -> str:
    return re.sub(r"(?<!\\)([=+,])", r" \1 ", latex)


def _plan_comments(rng: random.Random, posts: list[_Post]) -> list[tuple[int, int, int, str, int, datetime]]:
    """Roughly one comment per two posts: (Id, PostId, Score, Text, UserId, CreationDate)."""
    drafts = []
    questions = [p.id for p in posts if not p.parent]
    for order in range(len(posts) // 2):
        post = rng.choice(posts)
        post.comments += 1
        when = post.created + timedelta(seconds=60 + rng.expovariate(1 / DAY))
        text = rng.choice(COMMENTS).format(
            f=rng.choice(SHORT_LATEX), u=post.owner, q=rng.choice(questions))
        score = int(rng.expovariate(1.0)) if rng.random() < 0.4 else 0
        drafts.append((when, order, post.id, score, text, int(len(posts) ** rng.random())))
    drafts.sort()
    return [(i, pid, score, text, user, when) for i, (when, _, pid, score, text, user) in
            enumerate(drafts, 1)]


# ---------------------------------------------------------------------------------------------
# Bodies


class _BodyWriter:
    """Renders post bodies as HTML and numbers their formulas in post order, as ARQMath does."""

    def __init__(self, rng: random.Random, pool: list[str], posts: list[_Post]):
        self.rng = rng
        self.pool = pool
        self.posts = posts
        self.formulas: list[_Formula] = []
        self._visual: dict[str, int] = {}
        self._questions = [p for p in posts if not p.parent]
        self._answers = [p.id for p in posts if p.parent]
        self._by_subject: dict[str, list[_Post]] = defaultdict(list)
        for post in self._questions:
            if post.subject:
                self._by_subject[post.subject.number].append(post)
        self._post: _Post | None = None

    def render_all(self) -> list[_Formula]:
        for post in self.posts:
            self._post = post
            post.body = self._answer_body() if post.parent else self._question_body()
        return self.formulas

    # -- pieces

    def _math(self, latex: str, display: bool = False) -> str:
        post = self._post
        assert post is not None
        fid = FORMULA_ID_START + len(self.formulas)
        key = _key(latex)
        visual = self._visual.setdefault(key, fid)
        kind = "answer" if post.parent else "question"
        self.formulas.append(_Formula(fid, post.id, post.thread, kind, visual, key, latex))
        dollars = "$$" if display else "$"
        return (f'<span class="math-container" id="{fid}">'
                f"{dollars}{html.escape(latex, quote=False)}{dollars}</span>")

    def _latex(self) -> str:
        subject = self._post.subject if self._post else None
        if subject and subject.formulas and self.rng.random() < 0.5:
            return self.rng.choice(subject.formulas)
        return self.rng.choice(self.pool)

    def _word(self) -> str:
        subject = self._post.subject if self._post else None
        words = subject.words if subject and self.rng.random() < 0.6 else GENERIC_WORDS
        return self.rng.choice(words)

    def _sentence(self) -> str:
        def fill(slot: re.Match[str]) -> str:
            return self._math(self._latex()) if slot.group(1) == "f" else self._word()

        return _SLOT.sub(fill, self.rng.choice(SENTENCES))

    def _paragraph(self, sentences: int) -> str:
        return "<p>" + " ".join(self._sentence() for _ in range(sentences)) + "</p>"

    def _display(self, latex: str | None = None) -> str:
        return f"<p>{self._math(latex or self._latex(), display=True)}</p>"

    # -- bodies

    def _question_body(self) -> str:
        rng = self.rng
        blocks = [self._paragraph(rng.randint(1, 2)) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.3:
            blocks.insert(1, self._display())
        if rng.random() < 0.02:
            blocks.append(self._image())
        return "\n\n".join(blocks) + "\n"

    def _answer_body(self) -> str:
        rng = self.rng
        post = self._post
        assert post is not None
        blocks = [self._paragraph(rng.randint(1, 2))]
        blocks += [self._display(latex) for latex in post.planted]
        if rng.random() < 0.25:
            blocks.append(self._display())
        extras = ((0.12, self._list), (0.06, self._quote), (0.04, self._code),
                  (0.15, self._internal_link), (0.1, self._external_link), (0.03, self._image))
        blocks += [make() for chance, make in extras if rng.random() < chance]
        if rng.random() < 0.3:
            blocks.append(self._paragraph(1))
        return "\n\n".join(blocks) + "\n"

    def _list(self) -> str:
        tag = self.rng.choice(("ul", "ol"))
        items = "".join(f"<li>{self._sentence()}</li>\n" for _ in range(self.rng.randint(2, 4)))
        return f"<{tag}>\n{items}</{tag}>"

    def _quote(self) -> str:
        return f"<blockquote>\n  <p>{self._sentence()}</p>\n</blockquote>"

    def _code(self) -> str:
        return f"<pre><code>{html.escape(self.rng.choice(CODE_SNIPPETS), quote=False)}\n</code></pre>"

    def _image(self) -> str:
        name = "".join(self.rng.choices("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", k=7))
        return f'<p><img src="https://i.sstatic.net/{name}.png" alt="diagram"></p>'

    def _internal_link(self) -> str:
        rng = self.rng
        post = self._post
        assert post is not None
        related = self._by_subject.get(post.subject.number, []) if post.subject else []
        question = rng.choice(related if related and rng.random() < 0.7 else self._questions)
        slug = re.sub(r"[^a-z0-9]+", "-", question.title.lower()).strip("-")
        url, text = rng.choice((
            (f"https://math.stackexchange.com/questions/{question.id}", "this question"),
            (f"https://math.stackexchange.com/questions/{question.id}/{slug}", question.title),
            (f"https://math.stackexchange.com/q/{question.id}", "a related question"),
            (f"https://math.stackexchange.com/a/{rng.choice(self._answers)}", "this answer"),
        ))
        return f'<p>See also <a href="{html.escape(url)}">{html.escape(text, quote=False)}</a>.</p>'

    def _external_link(self) -> str:
        rng = self.rng
        if rng.random() < 0.15:
            url = "https://www.wolframalpha.com/input?i=sum+1%2Fn%5E2&assumption=real"
            text = "WolframAlpha"
        else:
            page = rng.choice(WIKI_PAGES)
            url, text = f"https://en.wikipedia.org/wiki/{page}", page.replace("_", " ")
        return (f'<p>This is explained on <a href="{html.escape(url)}" rel="nofollow noreferrer">'
                f"{html.escape(text, quote=False)}</a>.</p>")


# ---------------------------------------------------------------------------------------------
# Writers


def _attr(value: str) -> str:
    return escape(value, _ATTR_ENTITIES)


def _date(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds")


def _row(attrs: list[tuple[str, object]]) -> str:
    return "  <row " + " ".join(f'{name}="{_attr(str(value))}"' for name, value in attrs) + " />\n"


def _post_attrs(post: _Post) -> list[tuple[str, object]]:
    if post.parent:
        return [("Id", post.id), ("PostTypeId", 2), ("ParentId", post.parent),
                ("CreationDate", _date(post.created)), ("Score", post.score), ("Body", post.body),
                ("OwnerUserId", post.owner), ("CommentCount", post.comments)]
    attrs: list[tuple[str, object]] = [("Id", post.id), ("PostTypeId", 1)]
    if post.accepted:
        attrs.append(("AcceptedAnswerId", post.accepted))
    tags = "".join(f"<{tag}>" for tag in post.tags)
    return attrs + [("CreationDate", _date(post.created)), ("Score", post.score),
                    ("ViewCount", post.views), ("Body", post.body), ("OwnerUserId", post.owner),
                    ("Title", post.title), ("Tags", tags), ("AnswerCount", len(post.answers)),
                    ("CommentCount", post.comments)]


def _write_posts(path: Path, posts: list[_Post]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(XML_HEAD + "<posts>\n")
        for post in posts:
            out.write(_row(_post_attrs(post)))
        out.write("</posts>\n")


def _write_comments(path: Path, comments: list[tuple[int, int, int, str, int, datetime]]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(XML_HEAD + "<comments>\n")
        for cid, pid, score, text, user, when in comments:
            out.write(_row([("Id", cid), ("PostId", pid), ("Score", score), ("Text", text),
                            ("CreationDate", _date(when)), ("UserId", user)]))
        out.write("</comments>\n")


def _write_formula_index(path: Path, formulas: list[_Formula]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(INDEX_HEADER)
        for f in formulas:
            out.write(f"{f.id}\t{f.post}\t{f.thread}\t{f.kind}\t{f.visual}\t{f.latex}\n")


def _write_topics(source: Path, target: Path, limit: int | None) -> list[str]:
    """Copies a topic file, cut after the first `limit` topics; returns the topic ids kept."""
    text = source.read_text(encoding="utf-8")
    numbers = re.findall(r'<Topic number="([^"]+)">', text)
    if limit is None or limit >= len(numbers):
        shutil.copyfile(source, target)
        return numbers
    cut = text.index(f'<Topic number="{numbers[limit]}">')
    cut = text.rindex("\n", 0, cut) + 1  # drop the next topic's indentation too
    target.write_bytes((text[:cut] + "</Topics>\n").encode("utf-8"))
    return numbers[:limit]


# ---------------------------------------------------------------------------------------------
# Runs


def _rank(items: Sequence[str], scores: Sequence[float], depth: int) -> list[tuple[int, int]]:
    """(rank, index into items) of the `depth` best; ties broken by item id so runs are stable."""
    order = sorted(range(len(items)), key=lambda i: (-scores[i], items[i]))[:depth]
    return list(enumerate(order, 1))


def _noise_pair(rng: random.Random, n: int, sigma: float) -> tuple[list[float], list[float]]:
    """Noise of a team's primary and alternate runs: the alternate is mostly the same system."""
    primary = [rng.gauss(0.0, sigma) for _ in range(n)]
    fresh = math.sqrt(1.0 - ALTERNATE_CORRELATION**2)
    alternate = [ALTERNATE_CORRELATION * e + fresh * rng.gauss(0.0, sigma) for e in primary]
    return primary, alternate


def _scaled(team: str, value: float) -> float:
    a, b = SCORE_SCALE[team]
    return a * value + b


def _candidate_size(depth: int, available: int) -> int:
    # Half of what exists at most, so random filling always finds new items quickly.
    return min(max(CANDIDATES, depth * 3 // 2), available // 2)


def _task1_candidates(
    rng: random.Random, subject: _Subject | None, posts: list[_Post], size: int,
) -> tuple[list[str], list[float]]:
    """Answers a topic's runs choose from, with their hidden relevance (0..3)."""
    answers = [p for p in posts if p.parent]
    questions = {p.id: p for p in posts if not p.parent}
    relevance: dict[int, float] = {}
    if subject:
        for a in answers:
            if a.subject is subject:
                accepted = questions[a.parent].accepted == a.id
                relevance[a.id] = 1.2 + 1.8 * rng.random() + (0.3 if accepted else 0.0)
        # Questions that only share title words are weakly related, like real lexical matches.
        words = set(subject.words)
        overlapping = [q for q in questions.values() if q.subject is not subject and words & q.words]
        for q in rng.sample(overlapping, min(len(overlapping), size // 6)):
            for aid in q.answers:
                relevance.setdefault(aid, 0.3 * len(words & q.words) + 0.6 * rng.random())
    relevance = dict(list(relevance.items())[: size * 2 // 3])
    while len(relevance) < size:
        relevance.setdefault(rng.choice(answers).id, 0.9 * rng.random() ** 2)
    return [str(pid) for pid in relevance], list(relevance.values())


def _open_runs(run_dir: Path, task: int) -> list[tuple[_System, Path, TextIO]]:
    return [
        (system, run_dir / system.filename(task),
         open(run_dir / system.filename(task), "w", encoding="utf-8", newline="\n"))
        for system in _systems()
    ]


def _close_runs(runs: list[tuple[_System, Path, TextIO]]) -> list[tuple[Path, bool]]:
    for _, _, out in runs:
        out.close()
    return [(path, system.alternate) for system, path, _ in runs]


def _write_task1_runs(
    run_dir: Path, *, seed: int, topics: list[str], subjects: dict[str, _Subject],
    posts: list[_Post], depth: int,
) -> list[tuple[Path, bool]]:
    size = _candidate_size(depth, sum(1 for p in posts if p.parent))
    runs = _open_runs(run_dir, 1)
    try:
        for topic in topics:
            subject = subjects.get(topic.split(".")[-1])
            items, relevance = _task1_candidates(
                random.Random(f"{seed}/task1/{topic}"), subject, posts, size)
            noise = {}
            for team, _, sigma, _ in TEAMS:
                noise[team] = _noise_pair(random.Random(f"{seed}/task1/{topic}/{team}"),
                                          len(items), sigma)
            for system, _, out in runs:
                errors = noise[system.team][system.alternate]
                scores = [_scaled(system.team, r + e) for r, e in zip(relevance, errors, strict=True)]
                out.writelines(_task1_line(system, topic, items[i], rank, scores[i])
                               for rank, i in _rank(items, scores, depth))
    finally:
        files = _close_runs(runs)
    return files


def _task1_line(system: _System, topic: str, pid: str, rank: int, score: float) -> str:
    if system.fmt == "trec":
        return f"{topic} Q0 {pid} {rank} {score:.6f} {system.tag()}\n"
    return f"{topic}\t{pid}\t{rank}\t{score:.4f}\t{system.tag()}\n"


def _task2_candidates(
    rng: random.Random, subject: _Subject | None, formulas: list[_Formula],
    by_key: dict[str, list[_Formula]], by_subject: dict[str, list[_Formula]], size: int,
) -> tuple[list[_Formula], list[float]]:
    """Formula instances a topic's runs choose from; relevance is mostly a visual id's property."""
    chosen: dict[int, _Formula] = {}
    base: dict[str, float] = {}  # hidden relevance of each visually distinct formula

    def add(formula: _Formula, relevance: float) -> None:
        if formula.id not in chosen and len(chosen) < size:
            chosen[formula.id] = formula
            base.setdefault(formula.key, relevance)

    if subject:
        for f in by_key.get(_key(subject.query or ""), []):
            add(f, 2.6 + 0.4 * rng.random())
        for latex in subject.formulas:
            for f in by_key.get(_key(latex), [])[:6]:
                add(f, 1.0 + 1.2 * rng.random())
        near = by_subject.get(subject.number, [])
        for f in rng.sample(near, min(len(near), size // 3)):
            add(f, 0.3 + 0.9 * rng.random())
    while len(chosen) < size:
        # Random fill takes a formula with up to two look-alikes, so clusters show up in pools.
        f = rng.choice(formulas)
        siblings = by_key[f.key]
        for g in [f, *rng.sample(siblings, min(2, len(siblings)))]:
            add(g, 0.8 * rng.random() ** 2)
    items = list(chosen.values())
    return items, [base[f.key] + rng.uniform(-0.1, 0.1) for f in items]


def _write_task2_runs(
    run_dir: Path, *, seed: int, topics: list[str], subjects: dict[str, _Subject],
    posts: list[_Post], formulas: list[_Formula], depth: int,
) -> list[tuple[Path, bool]]:
    by_key: dict[str, list[_Formula]] = defaultdict(list)
    for f in formulas:
        by_key[f.key].append(f)
    subject_of = {p.id: p.subject.number for p in posts if p.subject}
    by_subject: dict[str, list[_Formula]] = defaultdict(list)
    for f in formulas:
        if f.post in subject_of:
            by_subject[subject_of[f.post]].append(f)
    size = _candidate_size(depth, len(formulas))
    runs = _open_runs(run_dir, 2)
    try:
        for topic in topics:
            subject = subjects.get(topic.split(".")[-1])
            items, relevance = _task2_candidates(
                random.Random(f"{seed}/task2/{topic}"), subject, formulas, by_key, by_subject, size)
            keys = list(dict.fromkeys(f.key for f in items))
            for system, _, out in runs:
                rng = random.Random(f"{seed}/task2/{topic}/{system.team}")
                # A system sees look-alike formulas alike: its noise is per visual id, and the
                # alternate's noise stays close to its primary's (same stream, same draws).
                pair = _noise_pair(rng, len(keys), system.noise)
                seen = dict(zip(keys, pair[system.alternate], strict=True))
                jitter = random.Random(f"{seed}/task2/{topic}/{system.tag()}")
                scores = [_scaled(system.team, r + seen[f.key] + jitter.gauss(0.0, 0.1))
                          for r, f in zip(relevance, items, strict=True)]
                ids = [str(f.id) for f in items]
                out.writelines(
                    f"{topic}\t{items[i].id}\t{items[i].post}\t{rank}\t{scores[i]:.4f}\t{system.tag()}\n"
                    for rank, i in _rank(ids, scores, depth))
    finally:
        files = _close_runs(runs)
    return files


# ---------------------------------------------------------------------------------------------
# Bulk writers for benchmarks: streamed, no per-row objects.


class IdList(Sequence[str]):
    """Post ids kept in a compact array and handed out as strings, like every id outside."""

    def __init__(self, ids: array):
        self._ids = ids

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> IdList: ...
    def __getitem__(self, index: int | slice) -> str | IdList:
        if isinstance(index, slice):
            return IdList(self._ids[index])
        return str(self._ids[index])


@dataclass
class BulkPosts:
    posts: Path
    formulas: Path | None
    questions: int
    answers: int
    formula_count: int
    answer_ids: IdList


def write_posts_bulk(
    path: Path, *, posts: int, seed: int = 2022, formulas: Path | None = None,
) -> BulkPosts:
    """Streams a large Posts.xml (ids 1..posts, no gaps) and optionally its formula index."""
    rng = random.Random(f"{seed}/bulk-posts")
    parent, answer_count, accepted, answer_ids = _bulk_threads(rng, posts)
    pieces = _BulkPieces(rng)
    formula_out = open(formulas, "w", encoding="utf-8", newline="\n") if formulas else None
    step = SPAN_SECONDS / max(posts, 1)
    next_fid = FORMULA_ID_START
    try:
        with open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as out:
            out.write(XML_HEAD + "<posts>\n")
            if formula_out:
                formula_out.write(INDEX_HEADER)
            for pid in range(1, posts + 1):
                body, next_fid = pieces.body(pid, parent, next_fid, formula_out)
                created = _date(START + timedelta(seconds=(pid + rng.random()) * step))
                out.write(pieces.row(pid, parent[pid], created, body, answer_count[pid],
                                     accepted[pid]))
            out.write("</posts>\n")
    finally:
        if formula_out:
            formula_out.close()
    return BulkPosts(path, formulas, posts - len(answer_ids), len(answer_ids),
                     next_fid - FORMULA_ID_START, IdList(answer_ids))


def _bulk_threads(rng: random.Random, posts: int) -> tuple[array, array, array, array]:
    """Who answers what, decided before writing so questions know their counts and accepted id."""
    parent = array("l", [0]) * (posts + 1)
    answer_count = array("l", [0]) * (posts + 1)
    accepted = array("l", [0]) * (posts + 1)
    remaining = array("l", [0]) * (posts + 1)
    answer_ids = array("l")
    table = [n for n, weight in enumerate(ANSWER_WEIGHTS) for _ in range(weight)]
    open_questions: list[int] = []
    r = rng.random
    for pid in range(1, posts + 1):
        if not open_questions or r() < 0.25:
            remaining[pid] = table[int(r() * len(table))]
            if remaining[pid]:
                open_questions.append(pid)
            continue
        # Answers go to recent questions, as on the real site.
        i = len(open_questions) - 1 - int(r() * min(len(open_questions), 50))
        question = open_questions[i]
        parent[pid] = question
        answer_count[question] += 1
        answer_ids.append(pid)
        if not accepted[question] and r() < 0.3:
            accepted[question] = pid
        remaining[question] -= 1
        if not remaining[question]:
            open_questions[i] = open_questions[-1]
            open_questions.pop()
    return parent, answer_count, accepted, answer_ids


class _BulkPieces:
    """Body, title and tag fragments escaped once, so each row is only string joins."""

    SPAN_OPEN = _attr('<span class="math-container" id="')

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.latex = _load_latex_pool()
        self.keys = [_key(latex) for latex in self.latex]
        # What follows the span id in the body, and the index row's tail once its visual id is known.
        self.closings = [_attr(f'">${html.escape(latex, quote=False)}$</span>') + ". " for latex in self.latex]
        self.index_tails: list[str | None] = [None] * len(self.latex)
        self.visual: dict[str, int] = {}
        # Each sentence is cut before its first formula slot: "Let " + formula + ". ".
        self.leads = [_attr(s.split("{f}")[0].replace("{w}", w))
                      for s in SENTENCES for w in GENERIC_WORDS[:6]]
        self.titles = [_attr(t.format(a=a, b=b).capitalize()) for t in TITLE_TEMPLATES
                       for a in GENERIC_WORDS for b in GENERIC_WORDS[:8] if a != b]
        tags = ["calculus", "linear-algebra", "real-analysis", "probability", "group-theory",
                "number-theory", "combinatorics", "sequences-and-series", "integration"]
        self.tags = [_attr(f"<{a}><{b}>") for a in tags for b in tags if a < b]
        self.p_open, self.p_close = _attr("<p>"), _attr("</p>\n")

    def _index_tail(self, j: int, fid: int) -> str:
        tail = self.index_tails[j]
        if tail is None:
            visual = self.visual.setdefault(self.keys[j], fid)
            tail = self.index_tails[j] = f"\t{visual}\t{self.latex[j]}\n"
        return tail

    def body(self, pid: int, parent: array, fid: int, index: TextIO | None) -> tuple[str, int]:
        r = self.rng.random
        leads, closings, n_leads, n_latex = self.leads, self.closings, len(self.leads), len(self.latex)
        parts = [self.p_open]
        rows = []
        prefix = f"\t{pid}\t{parent[pid] or pid}\t{'answer' if parent[pid] else 'question'}"
        for _ in range(2 + int(r() * 3)):
            j = int(r() * n_latex)
            parts += (leads[int(r() * n_leads)], self.SPAN_OPEN, str(fid), closings[j])
            if index:
                rows.append(f"{fid}{prefix}{self._index_tail(j, fid)}")
            fid += 1
        if parent[pid] and r() < 0.1:
            # Link to an earlier question: a random earlier post or that post's thread.
            earlier = 1 + int(r() * (pid - 1))
            target = parent[earlier] or earlier
            parts.append(_attr(f'See <a href="https://math.stackexchange.com/questions/{target}">'
                               "this question</a>."))
        parts.append(self.p_close)
        if index:
            index.write("".join(rows))
        return "".join(parts), fid

    def row(self, pid: int, parent: int, created: str, body: str, answers: int,
            accepted: int) -> str:
        r = self.rng.random
        score = int(r() * 12) - 2
        if parent:
            return (f'  <row Id="{pid}" PostTypeId="2" ParentId="{parent}" CreationDate="{created}" '
                    f'Score="{score}" Body="{body}" OwnerUserId="{1 + int(r() * 50_000)}" />\n')
        accepted_attr = f' AcceptedAnswerId="{accepted}"' if accepted else ""
        return (f'  <row Id="{pid}" PostTypeId="1"{accepted_attr} CreationDate="{created}" '
                f'Score="{score}" ViewCount="{10 + int(r() * 5000)}" Body="{body}" '
                f'OwnerUserId="{1 + int(r() * 50_000)}" '
                f'Title="{self.titles[int(r() * len(self.titles))]}" '
                f'Tags="{self.tags[int(r() * len(self.tags))]}" AnswerCount="{answers}" />\n')


def write_task1_runs_bulk(
    out_dir: Path, *, topics: Sequence[str], post_ids: Sequence[str], runs: int = 40,
    depth: int = 1000, seed: int = 2022,
) -> list[tuple[Path, bool]]:
    """Streams `runs` Task 1 runs (ARQMath 5-column) over post_ids; returns (path, alternate).

    Runs come in pairs of one team (primary, alternate); candidates per topic are twice the depth.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    size = min(len(post_ids), 2 * depth)
    candidates = []
    for topic in topics:
        rng = random.Random(f"{seed}/bulk-task1/{topic}")
        picked = rng.sample(range(len(post_ids)), size)
        # Few relevant answers per topic, as in real qrels: relevance skewed towards 0.
        candidates.append(([post_ids[i] for i in picked], [3.0 * rng.random() ** 3 for _ in picked]))
    written: list[tuple[Path, bool]] = []
    for team in range((runs + 1) // 2):
        members = [False, True] if 2 * team + 1 < runs else [False]
        written += _write_bulk_team(out_dir, team, members, topics, candidates, depth, seed)
    return written


def _write_bulk_team(
    out_dir: Path, team: int, members: list[bool], topics: Sequence[str],
    candidates: list[tuple[list[str], list[float]]], depth: int, seed: int,
) -> list[tuple[Path, bool]]:
    paths = [out_dir / f"bulk{team:02d}-task1-{'A' if alt else 'P'}.tsv" for alt in members]
    tags = [f"bulk{team:02d}-{'A' if alt else 'P'}" for alt in members]
    outs = [open(p, "w", encoding="utf-8", newline="\n", buffering=1 << 20) for p in paths]
    rng = random.Random(f"{seed}/bulk-task1-team/{team}")
    r = rng.random
    width = 1.0 + 0.5 * (team % 5)  # teams differ in quality
    mix = ALTERNATE_CORRELATION
    try:
        for topic, (items, relevance) in zip(topics, candidates, strict=True):
            # Uniform noise: far cheaper than gauss, and the ranking only needs some spread.
            primary = [width * (r() - 0.5) for _ in items]
            noises = [primary, [mix * e + (1 - mix) * width * (r() - 0.5) for e in primary]]
            for out, tag, noise in zip(outs, tags, noises[: len(outs)], strict=True):
                scores = [a + b for a, b in zip(relevance, noise, strict=True)]
                order = sorted(range(len(items)), key=scores.__getitem__, reverse=True)[:depth]
                out.writelines(f"{topic}\t{items[i]}\t{rank}\t{scores[i]:.4f}\t{tag}\n"
                               for rank, i in enumerate(order, 1))
    finally:
        for out in outs:
            out.close()
    return list(zip(paths, members, strict=True))

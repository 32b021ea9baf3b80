"""The synthetic demo collection: subjects from the real topics, threads, comments, users and the files that hold
them (Posts.xml, Comments.xml, formula_index.tsv). Post bodies are rendered by bodies.py."""
from __future__ import annotations

import html
import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from xml.etree import ElementTree

from workflow.demo.common import (
    ANSWER_WEIGHTS,
    DATA_DIR,
    GENERIC_WORDS,
    INDEX_HEADER,
    SPAN_SECONDS,
    START,
    TASK1_TOPICS,
    TASK2_TOPICS,
    TITLE_TEMPLATES,
    TOPIC_FORMULAS,
    XML_HEAD,
    attr,
    clean_latex,
    iso_date,
    read_tsv,
)

DAY = 86_400.0
# Share of questions about one topic: their titles borrow its words and tags, their posts reuse its formulas.
SUBJECT_SHARE = 0.7
STOP_WORDS = frozenset(
    "a an and are as at be by can do does for from how i if in is it its of on or prove "
    "show that the then this to what when where which why with without".split()
)
COMMENTS = (
    "Hint: consider ${f}$.", "What is ${f}$ here?", "Have you tried induction?",
    "@user{u} thanks, that fixed it.", "This is a duplicate of https://math.stackexchange.com/q/{q}",
    "Welcome to MSE! Please show what you tried.", "Nice answer, +1.",
    "Shouldn't it be ${f}$ instead?",
)
# Comments are plain text on the site: their math is raw `$...$`, never a formula-index span.
SHORT_LATEX = ("x^2", "n+1", "f(x)=0", r"\epsilon>0", r"a_n\to 0", r"\det A", r"\sqrt{2}")


@dataclass
class Subject:
    """An ARQMath-3 topic question that synthetic threads are about (A.301 and B.301 -> "301")."""

    number: str
    words: list[str]
    tags: list[str]
    formulas: list[str]
    query: str | None = None


@dataclass
class Post:
    id: int
    parent: int  # 0 for a question
    created: datetime
    subject: Subject | None
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
class Formula:
    """One row of formula_index.tsv, numbered by bodies.BodyWriter; key is the LaTeX without white space."""

    id: int
    post: int
    thread: int
    kind: str
    visual: int
    key: str
    latex: str


def _title_words(title_html: str) -> list[str]:
    text = html.unescape(re.sub(r"<span[^>]*>.*?</span>|<[^>]+>", " ", title_html))
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]+", text)]
    return list(dict.fromkeys(w for w in words if len(w) > 2 and w not in STOP_WORDS))


def load_subjects() -> dict[str, Subject]:
    formulas: dict[str, list[str]] = defaultdict(list)
    for row in read_tsv(DATA_DIR / TOPIC_FORMULAS):
        latex = clean_latex(row["formula"])
        if latex:
            formulas[row["topic_id"].split(".")[-1]].append(latex)
    subjects: dict[str, Subject] = {}
    for topic in ElementTree.parse(DATA_DIR / TASK1_TOPICS).getroot():
        number = topic.get("number", "").split(".")[-1]
        tags = [t for t in (topic.findtext("Tags") or "").split(",") if t]
        words = _title_words(topic.findtext("Title") or "") or list(GENERIC_WORDS[:3])
        subjects[number] = Subject(number, words, tags, formulas[number])
    for topic in ElementTree.parse(DATA_DIR / TASK2_TOPICS).getroot():
        subject = subjects.get(topic.get("number", "").split(".")[-1])
        if subject is not None:
            subject.query = clean_latex(topic.findtext("Latex") or "")
    return subjects


def plan_posts(rng: random.Random, questions: int, subjects: list[Subject]) -> list[Post]:
    """Lays threads out in time and numbers posts in creation order, as the real dump does."""
    events: list[tuple[float, int, int]] = []  # (seconds since START, order, thread)
    thread_subjects: list[Subject | None] = []
    for thread in range(questions):
        asked = rng.random() * SPAN_SECONDS
        subject = rng.choice(subjects) if rng.random() < SUBJECT_SHARE else None
        thread_subjects.append(subject)
        events.append((asked, len(events), thread))
        for _ in range(rng.choices(range(len(ANSWER_WEIGHTS)), ANSWER_WEIGHTS)[0]):
            events.append((asked + rng.expovariate(1 / DAY), len(events), thread))
    events.sort()

    users = max(50, questions)
    posts: list[Post] = []
    question_of: dict[int, Post] = {}
    next_id = 0
    for when, _, thread in events:
        next_id += 1 + (rng.randrange(1, 4) if rng.random() < 0.2 else 0)  # deleted posts
        question = question_of.get(thread)
        post = Post(
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


def _describe_question(rng: random.Random, post: Post) -> None:
    subject = post.subject
    words = subject.words if subject else GENERIC_WORDS
    a, b = (rng.sample(words, 2) if len(words) > 1 else [words[0], rng.choice(GENERIC_WORDS)])
    title = rng.choice(TITLE_TEMPLATES).format(a=a, b=b)
    post.title = title[0].upper() + title[1:]
    post.words = frozenset(_title_words(post.title))
    tag_pool = subject.tags if subject and subject.tags else ["algebra-precalculus", "calculus"]
    post.tags = rng.sample(tag_pool, min(len(tag_pool), rng.randint(1, 3)))
    post.views = int(10 ** (1.3 + 2.5 * rng.random()))


def plant_queries(rng: random.Random, posts: list[Post], subjects: dict[str, Subject]) -> None:
    """Puts each Task 2 query formula into a few answers, so there are instances to find."""
    answers = [p for p in posts if p.parent]
    by_subject: dict[str, list[Post]] = defaultdict(list)
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


def plan_comments(rng: random.Random, posts: list[Post]) -> list[tuple[int, int, int, str, int, datetime]]:
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


def _row(attrs: list[tuple[str, object]]) -> str:
    return "  <row " + " ".join(f'{name}="{attr(str(value))}"' for name, value in attrs) + " />\n"


def _post_attrs(post: Post) -> list[tuple[str, object]]:
    if post.parent:
        return [("Id", post.id), ("PostTypeId", 2), ("ParentId", post.parent),
                ("CreationDate", iso_date(post.created)), ("Score", post.score), ("Body", post.body),
                ("OwnerUserId", post.owner), ("CommentCount", post.comments)]
    attrs: list[tuple[str, object]] = [("Id", post.id), ("PostTypeId", 1)]
    if post.accepted:
        attrs.append(("AcceptedAnswerId", post.accepted))
    tags = "".join(f"<{tag}>" for tag in post.tags)
    return attrs + [("CreationDate", iso_date(post.created)), ("Score", post.score),
                    ("ViewCount", post.views), ("Body", post.body), ("OwnerUserId", post.owner),
                    ("Title", post.title), ("Tags", tags), ("AnswerCount", len(post.answers)),
                    ("CommentCount", post.comments)]


def write_posts(path: Path, posts: list[Post]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(XML_HEAD + "<posts>\n")
        for post in posts:
            out.write(_row(_post_attrs(post)))
        out.write("</posts>\n")


def write_comments(path: Path, comments: list[tuple[int, int, int, str, int, datetime]]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(XML_HEAD + "<comments>\n")
        for cid, pid, score, text, user, when in comments:
            out.write(_row([("Id", cid), ("PostId", pid), ("Score", score), ("Text", text),
                            ("CreationDate", iso_date(when)), ("UserId", user)]))
        out.write("</comments>\n")


def write_formula_index(path: Path, formulas: list[Formula]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(INDEX_HEADER)
        for f in formulas:
            out.write(f"{f.id}\t{f.post}\t{f.thread}\t{f.kind}\t{f.visual}\t{f.latex}\n")

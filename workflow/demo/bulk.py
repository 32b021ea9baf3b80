"""Bulk writers for the benchmarks: a large Posts.xml, its formula index and many Task 1 runs, streamed without
per-row objects."""
from __future__ import annotations

import html
import random
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TextIO, overload

from workflow.demo.common import (
    ALTERNATE_CORRELATION,
    ANSWER_WEIGHTS,
    FORMULA_ID_START,
    GENERIC_WORDS,
    INDEX_HEADER,
    SENTENCES,
    SPAN_SECONDS,
    START,
    TITLE_TEMPLATES,
    XML_HEAD,
    attr,
    iso_date,
    latex_key,
    load_latex_pool,
)


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
                created = iso_date(START + timedelta(seconds=(pid + rng.random()) * step))
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

    SPAN_OPEN = attr('<span class="math-container" id="')

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.latex = load_latex_pool()
        self.keys = [latex_key(latex) for latex in self.latex]
        # What follows the span id in the body, and the index row's tail once its visual id is known.
        self.closings = [attr(f'">${html.escape(latex, quote=False)}$</span>') + ". " for latex in self.latex]
        self.index_tails: list[str | None] = [None] * len(self.latex)
        self.visual: dict[str, int] = {}
        # Each sentence is cut before its first formula slot: "Let " + formula + ". ".
        self.leads = [attr(s.split("{f}")[0].replace("{w}", w))
                      for s in SENTENCES for w in GENERIC_WORDS[:6]]
        self.titles = [attr(t.format(a=a, b=b).capitalize()) for t in TITLE_TEMPLATES
                       for a in GENERIC_WORDS for b in GENERIC_WORDS[:8] if a != b]
        tags = ["calculus", "linear-algebra", "real-analysis", "probability", "group-theory",
                "number-theory", "combinatorics", "sequences-and-series", "integration"]
        self.tags = [attr(f"<{a}><{b}>") for a in tags for b in tags if a < b]
        self.p_open, self.p_close = attr("<p>"), attr("</p>\n")

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
            parts.append(attr(f'See <a href="https://math.stackexchange.com/questions/{target}">'
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
    depth: int = 1000, seed: int = 2022, noise: float = 1.0,
) -> list[tuple[Path, bool]]:
    """Streams `runs` Task 1 runs (ARQMath 5-column) over post_ids; returns (path, alternate).

    Runs come in pairs of one team (primary, alternate); candidates per topic are twice the depth. `noise` scales
    how far the runs' scores stray from the candidates' relevance: the larger, the less the runs agree and the
    larger their pools (33 runs at depths 45/20: about 190 items a topic at 1, 450 at 8, ARQMath-3's size).
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
        written += _write_bulk_team(out_dir, team, members, topics, candidates, depth, seed, noise)
    return written


def _write_bulk_team(
    out_dir: Path, team: int, members: list[bool], topics: Sequence[str],
    candidates: list[tuple[list[str], list[float]]], depth: int, seed: int, noise: float = 1.0,
) -> list[tuple[Path, bool]]:
    paths = [out_dir / f"bulk{team:02d}-task1-{'A' if alt else 'P'}.tsv" for alt in members]
    tags = [f"bulk{team:02d}-{'A' if alt else 'P'}" for alt in members]
    outs = [open(p, "w", encoding="utf-8", newline="\n", buffering=1 << 20) for p in paths]
    rng = random.Random(f"{seed}/bulk-task1-team/{team}")
    r = rng.random
    width = (1.0 + 0.5 * (team % 5)) * noise  # teams differ in quality
    mix = ALTERNATE_CORRELATION
    try:
        for topic, (items, relevance) in zip(topics, candidates, strict=True):
            # Uniform noise: far cheaper than gauss, and the ranking only needs some spread.
            primary = [width * (r() - 0.5) for _ in items]
            noises = [primary, [mix * e + (1 - mix) * width * (r() - 0.5) for e in primary]]
            for out, tag, errors in zip(outs, tags, noises[: len(outs)], strict=True):
                scores = [a + b for a, b in zip(relevance, errors, strict=True)]
                order = sorted(range(len(items)), key=scores.__getitem__, reverse=True)[:depth]
                out.writelines(f"{topic}\t{items[i]}\t{rank}\t{scores[i]:.4f}\t{tag}\n"
                               for rank, i in enumerate(order, 1))
    finally:
        for out in outs:
            out.close()
    return list(zip(paths, members, strict=True))

"""The demo runs: three teams with a primary and an alternate run per task. Candidates are ranked by a hidden
relevance plus per-system noise; an alternate shares most of its noise with its primary, as real runs overlap."""
from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from workflow.demo.collection import Formula, Post, Subject
from workflow.demo.common import ALTERNATE_CORRELATION, latex_key

CANDIDATES = 300
# (team, method, noise of its scores, run format of its Task 1 runs)
TEAMS = (
    ("alpha", "tangent", 0.55, "arqmath"),
    ("beta", "bm25", 0.8, "arqmath"),
    ("gamma", "dense", 1.05, "trec"),
)
# Each team reports scores on its own scale, as real systems do: score = a * value + b.
SCORE_SCALE = {"alpha": (0.25, 0.0), "beta": (2.0, 8.0), "gamma": (4.0, 15.0)}


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
    rng: random.Random, subject: Subject | None, posts: list[Post], size: int,
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


def write_task1_runs(
    run_dir: Path, *, seed: int, topics: list[str], subjects: dict[str, Subject],
    posts: list[Post], depth: int,
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
    rng: random.Random, subject: Subject | None, formulas: list[Formula],
    by_key: dict[str, list[Formula]], by_subject: dict[str, list[Formula]], size: int,
) -> tuple[list[Formula], list[float]]:
    """Formula instances a topic's runs choose from; relevance is mostly a visual id's property."""
    chosen: dict[int, Formula] = {}
    base: dict[str, float] = {}  # hidden relevance of each visually distinct formula

    def add(formula: Formula, relevance: float) -> None:
        if formula.id not in chosen and len(chosen) < size:
            chosen[formula.id] = formula
            base.setdefault(formula.key, relevance)

    if subject:
        for f in by_key.get(latex_key(subject.query or ""), []):
            add(f, 2.6 + 0.4 * rng.random())
        for latex in subject.formulas:
            for f in by_key.get(latex_key(latex), [])[:6]:
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


def write_task2_runs(
    run_dir: Path, *, seed: int, topics: list[str], subjects: dict[str, Subject],
    posts: list[Post], formulas: list[Formula], depth: int,
) -> list[tuple[Path, bool]]:
    by_key: dict[str, list[Formula]] = defaultdict(list)
    for f in formulas:
        by_key[f.key].append(f)
    subject_of = {p.id: p.subject.number for p in posts if p.subject}
    by_subject: dict[str, list[Formula]] = defaultdict(list)
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

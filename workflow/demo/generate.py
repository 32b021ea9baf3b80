"""Entry point of the synthetic demo (`make demo`): a Math-Stack-Exchange-like collection, the real ARQMath-3
topics and runs of both tasks, in the real file formats. Standard library only; same arguments, same bytes."""
from __future__ import annotations

import json
import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from workflow.demo.bodies import BodyWriter
from workflow.demo.bulk import BulkPosts, IdList, write_posts_bulk, write_task1_runs_bulk
from workflow.demo.collection import (
    load_subjects,
    plan_comments,
    plan_posts,
    plant_queries,
    write_comments,
    write_formula_index,
    write_posts,
)
from workflow.demo.common import DATA_DIR, TASK1_TOPICS, TASK2_TOPICS, load_latex_pool
from workflow.demo.rag import write_rag
from workflow.demo.runs import write_task1_runs, write_task2_runs
from workflow.demo.task3 import write_task3_runs

# The bulk writers live in bulk.py; the benchmarks and tests import them from here.
__all__ = [
    "write_topics","BulkPosts", "DemoFiles", "IdList", "generate_demo", "write_posts_bulk", "write_task1_runs_bulk"]


@dataclass
class DemoFiles:
    posts: Path
    comments: Path
    formulas: Path
    task1_topics: Path
    task2_topics: Path
    mo_topics: Path  # the MathOverflow-style campaign's topics (JSONL, preludes and micro-topics)
    mo_candidates: Path  # and its candidates: answers of the collection its questions cite
    task1_runs: list[tuple[Path, bool]] = field(default_factory=list)  # (path, alternate)
    task2_runs: list[tuple[Path, bool]] = field(default_factory=list)
    task3_runs: list[tuple[Path, bool]] = field(default_factory=list)  # ARQMath-3 Task 3, for the Task 1 campaign
    rag_topics: Path | None = None  # the TREC RAG campaign's topics (workflow/demo/rag.py)
    rag_runs: list[Path] = field(default_factory=list)  # and its answer runs, TREC RAG 2024 answer lines


def generate_demo(
    out_dir: Path,
    *,
    seed: int = 2022,
    topics_per_task: int | None = None,
    questions: int = 3000,
    run_depth: int = 100,
) -> DemoFiles:
    """Writes the demo collection, both topic files, 6 runs per task, 2 Task 3 runs, the MathOverflow-style
    campaign's topics and candidates and the TREC RAG campaign's topics and 3 answer runs under out_dir."""
    if topics_per_task is not None and topics_per_task < 1:
        raise ValueError("topics_per_task must be at least 1")
    if questions < 1 or run_depth < 1:
        raise ValueError("questions and run_depth must be at least 1")
    out_dir = Path(out_dir)
    for sub in ("topics", "candidates", "runs/task1", "runs/task2", "runs/task3", "runs/rag"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
    files = DemoFiles(
        posts=out_dir / "Posts.xml",
        comments=out_dir / "Comments.xml",
        formulas=out_dir / "formula_index.tsv",
        task1_topics=out_dir / "topics" / TASK1_TOPICS,
        task2_topics=out_dir / "topics" / TASK2_TOPICS,
        mo_topics=out_dir / "topics" / "mathoverflow.jsonl",
        mo_candidates=out_dir / "candidates" / "mathoverflow.tsv",
    )
    subjects = load_subjects()
    # One stream for the whole collection and none of the run settings in it: the collection does not
    # depend on topics_per_task nor on run_depth.
    rng = random.Random(f"{seed}/collection")
    posts = plan_posts(rng, questions, list(subjects.values()))
    plant_queries(rng, posts, subjects)
    comments = plan_comments(rng, posts)
    formulas = BodyWriter(rng, load_latex_pool(), posts).render_all()
    write_posts(files.posts, posts)
    write_comments(files.comments, comments)
    write_formula_index(files.formulas, formulas)

    task1 = write_topics(DATA_DIR / TASK1_TOPICS, files.task1_topics, topics_per_task)
    task2 = write_topics(DATA_DIR / TASK2_TOPICS, files.task2_topics, topics_per_task)
    files.task1_runs = write_task1_runs(
        out_dir / "runs" / "task1", seed=seed, topics=task1, subjects=subjects, posts=posts,
        depth=run_depth,
    )
    files.task2_runs = write_task2_runs(
        out_dir / "runs" / "task2", seed=seed, topics=task2, subjects=subjects, posts=posts,
        formulas=formulas, depth=run_depth,
    )
    files.task3_runs = write_task3_runs(out_dir / "runs" / "task3", seed=seed, topics=task1, subjects=subjects,
                                        posts=posts)
    write_mathoverflow(files.mo_topics, files.mo_candidates, seed=seed, posts=posts)
    files.rag_topics = out_dir / "topics" / "rag-topics.jsonl"
    files.rag_runs = write_rag(files.rag_topics, out_dir / "runs" / "rag", seed=seed, posts=posts)
    return files


# The MathOverflow-style campaign: 5 synthetic questions, each a prelude and 1-3 micro-topics (docs/formats.md).
MO_TOPICS = (
    ("MO1", "Sums of reciprocals of primes", "Let p_n be the n-th prime and S(x) the sum of 1/p over p <= x.",
     ("Does S(x) - log log x converge?", "What is the best known error term?")),
    ("MO2", "Eigenvalues of a perturbed matrix", "A is a real symmetric matrix and E a small symmetric perturbation.",
     ("How far can the eigenvalues of A + E move?",)),
    ("MO3", "Integrals of Gaussian type", "Consider the integral of exp(-a x^2 + b x) over the real line.",
     ("What is its closed form?", "Does it hold for complex a?", "How does it extend to n dimensions?")),
    ("MO4", "Cardinality of a quotient group", "G is a finite group and H a normal subgroup of G.",
     ("Is |G/H| = |G|/|H| for every such H?", "What fails when H is not normal?")),
    ("MO5", "Convergence of power series on the boundary", "A power series has radius of convergence 1.",
     ("Can it converge at every point of the unit circle?", "Can it diverge at every point?")),
)
MO_SOURCE = "cited-in-question"


def write_mathoverflow(topics: Path, candidates: Path, *, seed: int, posts: list) -> None:
    """The MathOverflow-style topics (JSONL) and, for each micro-topic, 3-6 answers of the collection its question
    cites (a candidates file: topic, item, source, note); same seed, same bytes."""
    rng = random.Random(f"{seed}/mathoverflow")
    answers = [post.id for post in posts if post.parent]
    with topics.open("w", encoding="utf-8") as t, candidates.open("w", encoding="utf-8") as c:
        for number, title, prelude, micro in MO_TOPICS:
            micro_topics = [{"id": f"{number}.{n}", "text": text} for n, text in enumerate(micro, 1)]
            t.write(json.dumps({"id": number, "title": title, "prelude": prelude, "micro_topics": micro_topics})
                    + "\n")
            for topic in micro_topics:
                for item in rng.sample(answers, rng.randint(3, 6)):
                    c.write(f"{topic['id']}\t{item}\t{MO_SOURCE}\tcited in the question\n")


def write_topics(source: Path, target: Path, limit: int | None) -> list[str]:
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

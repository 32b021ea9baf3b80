"""The demo's ARQMath-3 Task 3 runs (docs/pooling.md): one answer per topic of the Task 1 campaign, in the organizers'
format (`topic rank score run_id sources answer`, Python's csv writer with a tab delimiter, as their tools wrote runs).

Two synthetic systems: a "generated" run writes an answer from the topic's words and formulas, as a language model
would (fluent, sometimes beside the point); an "extracted" run answers with the text of an answer post about the same
subject from the collection, its HTML taken off, cut to the 1,200 characters a Task 3 answer may have."""
from __future__ import annotations

import csv
import html
import random
import re
from pathlib import Path

from workflow.demo.collection import Post, Subject

ANSWER_MAX = 1200  # Unicode characters (ir.formats.task3_answers.ANSWER_MAX: the demo writes files only)
GENERATED = "delta-task3-gpt-auto-both-generate-P"
EXTRACTED = "alpha-task3-tangent-auto-both-extract-A"
_TAGS = re.compile(r"<[^>]+>")
_OPENINGS = ("This is a question about {words}.", "We need to look at {words} here.",
             "The key idea concerns {words}.")
_CLOSINGS = ("This completes the argument.", "Hence the claim follows.",
             "I hope this helps; the details are routine.", "One should double-check the edge cases.")


def write_task3_runs(run_dir: Path, *, seed: int, topics: list[str], subjects: dict[str, Subject],
                     posts: list[Post]) -> list[tuple[Path, bool]]:
    """The generated (primary) and the extracted (alternate) run, (path, alternate) each."""
    answers_about: dict[str, list[Post]] = {}
    for post in posts:
        if post.parent and post.subject is not None and post.body:
            answers_about.setdefault(post.subject.number, []).append(post)
    any_answer = [post for post in posts if post.parent and post.body]
    generated, extracted = [], []
    for topic in topics:
        rng = random.Random(f"{seed}/task3/{topic}")
        subject = subjects.get(topic.split(".")[-1])
        generated.append((topic, _generated(rng, subject)))
        found = answers_about.get(subject.number, []) if subject else []
        source = min(found, key=lambda p: (-p.score, p.id)) if found else rng.choice(any_answer)
        extracted.append((topic, _extracted(source), f"post {source.id}"))
    return [(_write(run_dir, GENERATED, [(t, text, "GPT-like model") for t, text in generated]), False),
            (_write(run_dir, EXTRACTED, extracted), True)]


def _generated(rng: random.Random, subject: Subject | None) -> str:
    if subject is None:
        return "I am not sure what is asked. In general, restate the problem in terms of known results."
    words = " and ".join(subject.words[:2])
    lines = [rng.choice(_OPENINGS).format(words=words)]
    formulas = [f for f in subject.formulas if "$" not in f][:2]
    if formulas:
        lines.append(f"Start from ${formulas[0]}$ and rewrite it step by step.")
    if len(formulas) > 1:
        lines.append(f"Then\n$${formulas[1]}$$\nfollows from the previous line.")
    lines.append(rng.choice(_CLOSINGS))
    return _cut("\n".join(lines))


def _extracted(post: Post) -> str:
    text = html.unescape(_TAGS.sub(" ", post.body))
    return _cut(" ".join(text.split()))


def _cut(text: str) -> str:
    """At most ANSWER_MAX characters, cut at a space, without leaving an odd `$` behind."""
    if len(text) <= ANSWER_MAX:
        return text
    cut = text[:ANSWER_MAX].rsplit(" ", 1)[0]
    return cut if cut.count("$") % 2 == 0 else cut[:cut.rindex("$")].rstrip()


def _write(run_dir: Path, run_id: str, rows: list[tuple[str, str, str]]) -> Path:
    path = run_dir / f"{run_id}.tsv"
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        for n, (topic, answer, sources) in enumerate(rows):
            writer.writerow([topic, 1, f"{1.0 - n / (2 * len(rows)):.4f}", run_id, sources, answer])
    return path

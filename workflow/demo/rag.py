"""The demo's TREC RAG campaign files (docs/nuggets.md): five topics in TREC RAG 2025's topic lines (`id`,
`narrative`), three answer runs in the 2024 answer lines, each sentence citing answer posts of the demo collection
about the topic's subject; and the plan of each topic's nugget bank, which the loader (rag_judging.py) curates and
judges. Standard library only; same seed, same bytes.

Each topic has claims: a claim is a sentence an answer may make in full (`strong`) or hedged (`weak`), and the
nugget an organizer keeps for it. An answer that makes a claim in full supports its nugget, hedged partly."""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Claim:
    nugget: str
    importance: str  # vital or okay
    source: str  # how the demo's bank got it: drafted (by the LLM, accepted) or written (by the organizer)
    strong: str
    weak: str


@dataclass(frozen=True)
class RagTopic:
    id: str
    subject: str  # the ARQMath-3 topic number whose threads the answers cite (workflow/demo/collection.py Subject)
    narrative: str
    claims: tuple[Claim, ...]
    rejected: str  # a draft of the LLM the organizer rejected


TOPICS = (
    RagTopic("rag-1", "301",
             "I'm comparing matrix norms and want to know how the 1-norm, the 2-norm and the infinity norm of a "
             "matrix bound one another.",
             (Claim("The 2-norm is at most the square root of the product of the 1-norm and the infinity norm",
                    "vital", "drafted",
                    "The 2-norm satisfies $\\|A\\|_2 \\le \\sqrt{\\|A\\|_1 \\|A\\|_\\infty}$.",
                    "The 2-norm is probably bounded by some mix of the 1-norm and the infinity norm."),
              Claim("The bound follows from Hölder's inequality", "vital", "written",
                    "The bound follows from Hölder's inequality applied to $A^T A$.",
                    "An inequality of Hölder's kind may give the bound."),
              Claim("The 1-norm is the largest absolute column sum", "okay", "drafted",
                    "The 1-norm is the largest absolute column sum of $A$.",
                    "The 1-norm has to do with the columns of $A$."),
              Claim("The infinity norm is the largest absolute row sum", "okay", "written",
                    "The infinity norm is the largest absolute row sum of $A$.",
                    "The infinity norm has to do with the rows of $A$.")),
             "Matrix norms were introduced by von Neumann"),
    RagTopic("rag-2", "303",
             "How many Lie algebras of dimension two are there that are not commutative, up to isomorphism?",
             (Claim("There is exactly one non-abelian two-dimensional Lie algebra up to isomorphism", "vital",
                    "drafted",
                    "Up to isomorphism there is exactly one non-abelian Lie algebra of dimension 2.",
                    "There seem to be very few non-abelian Lie algebras of dimension 2."),
              Claim("It has a basis with [x, y] = y", "vital", "written",
                    "It has a basis $x, y$ with $[x, y] = y$.",
                    "One can often pick a basis in which the bracket looks simple."),
              Claim("Its derived algebra is one-dimensional", "okay", "drafted",
                    "Its derived algebra $[L, L]$ is one-dimensional.",
                    "Its derived algebra is smaller than $L$.")),
             "Lie algebras are named after Sophus Lie"),
    RagTopic("rag-3", "306",
             "Is the Euler-Mascheroni constant known to be irrational, and what is known about it?",
             (Claim("It is not known whether the Euler-Mascheroni constant is irrational", "vital", "drafted",
                    "Whether $\\gamma$ is irrational is still an open problem.",
                    "The irrationality of $\\gamma$ may not be settled."),
              Claim("The constant is the limit of the harmonic numbers minus log n", "vital", "written",
                    "$\\gamma = \\lim_{n\\to\\infty} (H_n - \\ln n)$, about 0.5772.",
                    "$\\gamma$ is related to the harmonic numbers."),
              Claim("If it is rational its denominator is astronomically large", "okay", "drafted",
                    "If $\\gamma$ were rational, its denominator would have more than $10^{242080}$ digits.",
                    "If $\\gamma$ were rational, its denominator would be large.")),
             "Euler computed the constant to 16 digits"),
    RagTopic("rag-4", "308",
             "I'm trying to follow Riemann's definition of the zeta function by a contour integral and how it "
             "continues the function to the whole plane.",
             (Claim("Riemann wrote zeta as a contour integral around the positive real axis", "vital", "drafted",
                    "Riemann writes $\\zeta(s)$ as a contour integral of $(-x)^{s-1}/(e^x - 1)$ around the "
                    "positive real axis.",
                    "Riemann uses some contour integral for $\\zeta(s)$."),
              Claim("The integral gives the analytic continuation to all s except 1", "vital", "written",
                    "The integral continues $\\zeta$ to every $s \\ne 1$.",
                    "The integral extends $\\zeta$ beyond $\\Re s > 1$."),
              Claim("The functional equation follows from the same integral", "okay", "written",
                    "Deforming the contour gives the functional equation.",
                    "The functional equation is related to the contour.")),
             "The zeta function has infinitely many zeros"),
    RagTopic("rag-5", "310",
             "Find all positive integer solutions of 4/x + 10/y = 1 and explain the method.",
             (Claim("The equation is equivalent to (x - 4)(y - 10) = 40", "vital", "drafted",
                    "Clearing denominators gives $(x-4)(y-10) = 40$.",
                    "Clearing denominators gives a product equation."),
              Claim("Each positive divisor of 40 gives a solution", "vital", "written",
                    "Each positive divisor $d$ of 40 gives $x = 4 + d$, $y = 10 + 40/d$.",
                    "The divisors of 40 seem to matter."),
              Claim("There are eight solutions", "okay", "drafted",
                    "So there are exactly 8 solutions in positive integers.",
                    "So there are several solutions in positive integers.")),
             "Diophantus studied such equations"),
)

# Three systems of different care: the chance that an answer makes a claim in full, hedged, or not at all.
RUNS = (("rag-alpha-cite", (0.8, 0.15)), ("rag-beta-cite", (0.5, 0.3)), ("rag-gamma-cite", (0.25, 0.35)))


def write_rag(topics_path: Path, run_dir: Path, *, seed: int, posts: list) -> list[Path]:
    """The topics file and one answer run a system (the paths returned). Each sentence cites one or two answer
    posts about the topic's subject (any answer where the collection has none about it)."""
    about: dict[str, list[int]] = {}
    for post in posts:
        if post.parent and post.subject is not None:
            about.setdefault(post.subject.number, []).append(post.id)
    answers = [post.id for post in posts if post.parent]
    with topics_path.open("w", encoding="utf-8") as out:
        for topic in TOPICS:
            out.write(json.dumps({"id": topic.id, "narrative": topic.narrative}) + "\n")
    paths = []
    for run_id, (strong, weak) in RUNS:
        path = run_dir / f"{run_id}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for topic in TOPICS:
                rng = random.Random(f"{seed}/rag/{run_id}/{topic.id}")
                cited_from = sorted(about.get(topic.subject) or answers)
                sentences = []
                for claim in topic.claims:
                    roll = rng.random()
                    if roll < strong:
                        sentences.append(claim.strong)
                    elif roll < strong + weak:
                        sentences.append(claim.weak)
                if not sentences:
                    sentences.append(topic.claims[-1].weak)
                references: list[str] = []
                answer = []
                for text in sentences:
                    cited = [str(p) for p in rng.sample(cited_from, min(len(cited_from), rng.randint(1, 2)))]
                    for post_id in cited:
                        if post_id not in references:
                            references.append(post_id)
                    answer.append({"text": text, "citations": [references.index(c) for c in cited]})
                out.write(json.dumps({"run_id": run_id, "topic_id": topic.id, "topic": topic.narrative,
                                      "references": references,
                                      "response_length": sum(len(text.split()) for text in sentences),
                                      "answer": answer}) + "\n")
        paths.append(path)
    return paths

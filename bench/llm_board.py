"""The leaderboard's LLM part (issue 26): what it adds to the scores' background recompute, on the demo's Task 1
campaign (loaded once into a database of its own, as bench/judging.py does), every pool item judged (the demo's
judgments, and made-up ones for the topics it left unjudged) and graded by a made-up LLM.

Timed in this process, in the same run: `evaluate_campaign` (the people's scores, what the recompute computed
before), and `llm_board.llm_board` (the LLM's qrels read, every run scored with them on whole runs, six rank
correlations with 1,000 bootstrap resamples); the ratio is the second over the first. No request computes either.

    .venv/bin/python bench/llm_board.py    # DATABASE_URL: by default assess_bench_llm_board, the demo loaded once
"""
from __future__ import annotations

import random
import sys

import harness
from harness import note

import judging

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_llm_board"
MODEL = "bench-judge"


def judge_pool(campaign) -> None:
    """Official judgments for every pool item of the topics the demo left unjudged (made up, seeded), once: the
    people's qrels then hold every topic, as the LLM's do, and the two scorings do the same work."""
    from evaluation.selectors import campaign_qrels
    from judging.models import Assignment
    from judging.services import judgments_import

    judged = set(campaign_qrels(campaign=campaign))
    assessors = dict(Assignment.objects.filter(campaign=campaign, kind=Assignment.Kind.OFFICIAL, withdrawn_at=None)
                     .values_list("topic__topic_id", "assessor__username"))  # a topic's official assessor judges it
    rng = random.Random(27)
    lines = [f"{assessors.get(item.topic.topic_id, 'bench-assessor')}\t{item.topic.topic_id}\t{item.item_id}\t"
             f"{rng.choice('0001123')}\t"
             for item in campaign.pool_items.select_related("topic") if item.topic.topic_id not in judged]
    if lines:
        note(f"judging {len(lines)} pool items (once)")
        judgments_import(campaign=campaign, lines=lines)


def grade_pool(campaign) -> int:
    """An LLM grade for every pool item (made up: the official grade, one in five moved by one; unjudged items at
    random), written again each run."""
    from evaluation.selectors import campaign_qrels
    from llm.models import Endpoint, LlmGrade, Prompt

    Endpoint.objects.update_or_create(campaign=campaign, defaults={"base_url": "http://127.0.0.1:9/v1",
                                                                   "model": MODEL})
    LlmGrade.objects.filter(campaign=campaign, model=MODEL).delete()
    prompt, _ = Prompt.objects.get_or_create(name="bench", version=1, defaults={"task": "answers", "text": "x"})
    qrels, rng = campaign_qrels(campaign=campaign), random.Random(26)
    rows = []
    for item in campaign.pool_items.select_related("topic").iterator():
        official = qrels.get(item.topic.topic_id, {}).get(item.item_id)
        grade = rng.choice((0, 0, 1, 2, 3)) if official is None or official > 3 else official
        if rng.random() < 0.2:
            grade = min(3, max(0, grade + rng.choice((-1, 1))))
        rows.append(LlmGrade(campaign=campaign, topic=item.topic, item_id=item.item_id, model=MODEL, prompt=prompt,
                             grade=grade))
    LlmGrade.objects.bulk_create(rows, batch_size=5000)
    return len(rows)


def main(argv: list[str]) -> int:
    parser = harness.Parser(__doc__)
    parser.count("repeat", 3, "timed rounds of each")
    options = parser.parse(argv)
    harness.database_url(DEFAULT_DATABASE_URL, "bench/llm_board.py")
    harness.setup_django()
    harness.ensure_database()
    from evaluation import llm_board
    from evaluation.services import evaluate_campaign

    campaign = judging.demo_campaign()
    judge_pool(campaign)
    graded = grade_pool(campaign)
    runs = campaign.runs.count()
    note(f"{campaign.name}: {runs} runs, {campaign.topics.count()} topics, {graded} LLM grades")
    people_seconds, people = harness.rounds(options.repeat, lambda: evaluate_campaign(campaign=campaign), warmup=1)
    llm_seconds, found = harness.rounds(options.repeat, lambda: llm_board.llm_board(campaign=campaign, people=people),
                                        warmup=1)
    if found.problem:
        raise SystemExit(found.problem)
    ndcg = found.correlations[0]
    print(f"{campaign.name}: {runs} runs x {len(people.topics)} qrels topics, {graded:,} LLM grades; load average "
          f"{harness.load()}")
    print(harness.table(("", "median s", "best s"), [
        ("people's scores (evaluate_campaign)", f"{sorted(people_seconds)[len(people_seconds) // 2]:.3f}",
         f"{min(people_seconds):.3f}"),
        ("the LLM part (llm_board)", f"{sorted(llm_seconds)[len(llm_seconds) // 2]:.3f}", f"{min(llm_seconds):.3f}")]))
    print(f"ratio LLM part / people's scores: {min(llm_seconds) / min(people_seconds):.2f}; nDCG' tau "
          f"{ndcg.kendall_tau:.4f} [{ndcg.tau_low:.4f}, {ndcg.tau_high:.4f}], tau_ap {ndcg.tau_ap:.4f}")
    harness.save("llm_board", {"runs": runs, "grades": graded, "people_seconds": people_seconds,
                               "llm_seconds": llm_seconds, "machine": harness.machine_facts()})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

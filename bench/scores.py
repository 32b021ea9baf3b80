"""Scores that follow the judging: seconds from a judgment to the leaderboard showing it, at a tenth and at full.

Builds (or reuses) bench/pages.py's two ARQMath-3 Task 1 campaigns (its `build`: full is 33 runs x 78 topics x 1000
rows, 10 assessors, 85% of each pool judged; the tenth has a tenth of the topics and posts) in this script's
database. On each, in this process: the four leaderboard snapshots pages ask for (the prime measures, over every
topic or not, with nDCG@10 beside them or not), the reusability table and the sweep of RRF's k are computed once
from nothing (`snapshots._compute`, timed: what each recompute took before topics were rescored alone). Then
--judgments times, a topic after another: one judgment revised through the judging service (`judgment_submit`,
what the judging page's submit calls), and the campaign's recompute (`scores_refresh`, which the worker runs once a
page's read has queued it) until every leaderboard snapshot holds it: the seconds from the submit to then, and the
recompute's seconds per judged topic; then once more for one judgment on each of --batch topics. Reusability and
the sweep stay stale meanwhile (they follow the judgments every SCORES_ANALYSES_SECONDS): they do not delay it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_pages .venv/bin/python bench/scores.py
    DATABASE_URL=... .venv/bin/python bench/scores.py --scale 0.33     # a third as "full"
"""
from __future__ import annotations

import statistics
import sys
import time

import harness
import pages
from harness import note

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_pages"
# The leaderboards a campaign's pages ask for: the page (over the topics a run retrieved, or every topic), each
# with a measure typed in beside the prime ones.
BOARDS = [(False, []), (True, []), (False, ["nDCG@10"]), (True, ["nDCG@10"])]
GOAL_FULL, GOAL_TENTH = 10.0, 3.0


def parse_args(argv: list[str]):
    parser = harness.Parser(__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full size built as 'full' (the "
                                                                 "tenth is a tenth of it; default 1)")
    parser.add_argument("--judged", type=float, default=0.85, help="fraction of each pool judged (default 0.85)")
    parser.count("judgments", 5, "judgments timed one at a time, on as many topics")
    parser.count("batch", 5, "topics judged together before one recompute")
    return parser.parse(argv)


def ask_everything(campaign) -> None:
    """The snapshots the pages ask for, made (not computed: the broker is taken away first)."""
    from evaluation import snapshots

    for all_topics, measures in BOARDS:
        snapshots.leaderboard(campaign=campaign, all_topics=all_topics, measures=measures)
    snapshots.reusability_scores(campaign=campaign)
    snapshots.fusion_sweep(campaign=campaign)


def compute_from_nothing(campaign) -> dict[str, float]:
    """Each snapshot computed without its last scores, as every recompute was: seconds by snapshot."""
    from django.utils import timezone

    from evaluation import snapshots
    from evaluation.models import ScoreSnapshot

    versions = {snapshots.LEADERBOARD: snapshots.leaderboard_version(campaign),
                snapshots.REUSABILITY: snapshots.reusability_version(campaign),
                snapshots.FUSION: snapshots.fusion_version(campaign)}
    seconds = {}
    for snapshot in ScoreSnapshot.objects.filter(campaign=campaign).order_by("kind", "pk"):
        start = time.perf_counter()
        snapshot.payload = snapshots._compute(campaign, snapshot.kind, snapshot.asked)
        label = snapshot.kind if snapshot.kind != snapshots.LEADERBOARD else (
            "leaderboard" + (" all topics" if snapshot.asked["all_topics"] else "")
            + "".join(f" +{m}" for m in snapshot.asked["measures"]))
        seconds[label] = time.perf_counter() - start
        snapshot.version, snapshot.computed_at = versions[snapshot.kind], timezone.now()
        snapshot.save(update_fields=["payload", "version", "computed_at"])
        note(f"  {label}: {seconds[label]:.1f} s")
    return seconds


def revise(campaign, topic_ids: list[str], turn: int) -> None:
    """One judgment of each topic revised through the judging service, as the page submits it: its grade flipped
    between two relevance grades."""
    from judging.models import Assignment, Judgment
    from judging.services import GradeInput, judgment_submit

    for topic_id in topic_ids:
        assignment = Assignment.objects.select_related("assessor").get(
            campaign=campaign, kind="official", withdrawn_at=None, topic__topic_id=topic_id)
        judgment = Judgment.objects.filter(assignment=assignment).order_by("item_id")[turn % 7]
        grade = "1" if judgment.grade == "2" else "2"
        judgment_submit(assignment_pk=assignment.pk, item_id=judgment.item_id, grades=[GradeInput(grade)],
                        user=assignment.assessor)


def follow(campaign, topic_ids: list[str], turn: int) -> tuple[float, float]:
    """(seconds from the submit to every leaderboard snapshot holding it, the recompute's seconds)."""
    from evaluation import snapshots
    from evaluation.models import ScoreSnapshot

    start = time.perf_counter()
    revise(campaign, topic_ids, turn)
    version = snapshots.leaderboard_version(campaign)
    computing = time.perf_counter()
    snapshots.scores_refresh(campaign_pk=campaign.pk)
    done = time.perf_counter()
    boards = ScoreSnapshot.objects.filter(campaign=campaign, kind=snapshots.LEADERBOARD)
    if any(board.version != version for board in boards):
        raise SystemExit("a leaderboard snapshot does not hold the judgment: the timing would be of nothing")
    if ScoreSnapshot.objects.filter(campaign=campaign, kind=snapshots.REUSABILITY,
                                    version=snapshots.reusability_version(campaign)).exists():
        raise SystemExit("reusability was recomputed within its schedule: the timing would include it")
    return done - start, done - computing


def measure(campaign, args) -> dict:
    from evaluation import snapshots

    snapshots.scores_refresh_request = lambda **kwargs: False  # a broker, no worker: the pages' reads compute nothing
    ask_everything(campaign)
    note(f"{campaign.name}: every snapshot from nothing (load {harness.load()})")
    before = compute_from_nothing(campaign)
    topics = sorted(campaign.topics.values_list("topic_id", flat=True))
    single = [follow(campaign, [topics[(3 * n) % len(topics)]], n) for n in range(args.judgments)]
    batch = [topics[(5 * n + 1) % len(topics)] for n in range(min(args.batch, len(topics)))]
    together = follow(campaign, batch, args.judgments)
    return {"from_nothing_s": before, "single": single, "batch": {"topics": len(batch), "s": together},
            "load": harness.load()}


def report(figures: dict, shapes: dict, facts: dict) -> None:
    for label, found in figures.items():
        shape = shapes[label]
        print(f"\n{label}: {shape['runs']} runs x {shape['topics']} topics, {shape['run rows']:,} run rows, "
              f"{shape['judgments']:,} judgments; load {found['load']}")
        before = found["from_nothing_s"]
        boards = sum(s for name, s in before.items() if name.startswith("leaderboard"))
        rows = [[name, f"{s:.1f}"] for name, s in before.items()]
        rows.append(["before: the loop (every snapshot)", f"{sum(before.values()):.1f}"])
        rows.append(["before: the four leaderboards", f"{boards:.1f}"])
        print(harness.table(["From nothing", "s"], rows))
        single = found["single"]
        goal = GOAL_FULL if label == "full" else GOAL_TENTH
        latency = [s for s, _ in single]
        print(harness.table(["After a judgment", "median s", "max s"], [
            ["submit to every leaderboard holding it", f"{statistics.median(latency):.2f}", f"{max(latency):.2f}"],
            ["the recompute, per judged topic", f"{statistics.median(c for _, c in single):.2f}",
             f"{max(c for _, c in single):.2f}"],
            [f"{found['batch']['topics']} topics judged, one recompute: per topic",
             f"{found['batch']['s'][1] / found['batch']['topics']:.2f}", ""]]))
        print(f"goal: under {goal:.0f} s: {'met' if max(latency) < goal else 'missed'}")
    print(f"\ncode {facts.get('code', '')}")


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    harness.database_url(DEFAULT_DATABASE_URL, "bench/scores.py")
    harness.setup_django()
    harness.database_of_our_own("bench/scores.py", pages.only_ours, "builds campaigns bench-pages-*")
    full_topics, full_posts = max(round(pages.TOPICS * args.scale), 10), max(round(pages.POSTS * args.scale), 10_000)
    sizes = {"tenth": pages.Size("tenth", max(full_topics // 10, 4), full_posts // 10),
             "full": pages.Size("full", full_topics, full_posts)}
    organizer, assessors = pages.users()
    campaigns = {label: pages.build(size, args, organizer, assessors) for label, size in sizes.items()}
    facts = harness.machine_facts(code=("judging", "pooling", "evaluation", "ir", "config"))
    shapes = {label: pages.shape(campaign) for label, campaign in campaigns.items()}
    figures = {label: measure(campaign, args) for label, campaign in campaigns.items()}
    report(figures, shapes, facts)
    harness.save("scores", {"args": {k: str(v) for k, v in vars(args).items()}, "facts": facts, "shapes": shapes,
                            "figures": figures}, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

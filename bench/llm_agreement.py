"""The LLM rows' cost on the agreement pages (issue 26): the kappa dashboard, the disagreement review and
`agreement --kind llm` of bench/agreement.py's campaign (10 assessors x 7 topics x 60 items, a training round), first
without LLM grades (the reference, measured in the same run), then with one model's grade of every pool item and
two canaries per topic. Prints each page's median and its ratio to the reference; nothing is asserted on time.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_agreement .venv/bin/python bench/llm_agreement.py
"""
from __future__ import annotations

import os
import sys
from io import StringIO

import harness

import agreement as agreement_bench

MODEL = "bench-llm"


def llm_grades_add(campaign) -> int:
    """One model's grade of every pool item (near the assessors' truth, so that kappas are defined), and a stuffed
    and an instruction canary of each topic's first item, graded."""
    import random

    from llm.models import Canary, LlmGrade, Prompt
    from pooling.models import PoolItem

    rng = random.Random(26)
    prompt, _ = Prompt.objects.get_or_create(name="bench", version=1, defaults={"task": "answers", "text": "bench"})
    grades = []
    for topic_id, topic_pk, item_id, position in PoolItem.objects.filter(campaign=campaign).values_list(
            "topic__topic_id", "topic_id", "item_id", "position"):
        truth = (position * 7 + int(topic_id.split(".")[1])) % 4
        grade = truth if rng.random() < 0.6 else rng.choice([0, 1, 2, 3])
        grades.append(LlmGrade(campaign=campaign, topic_id=topic_pk, item_id=item_id, model=MODEL, prompt=prompt,
                               grade=grade))
    for topic in campaign.topics.all():
        first = PoolItem.objects.filter(topic=topic).order_by("position").first()
        if first is None:
            continue
        for kind in ("stuffed", "instruction"):
            canary = Canary.objects.create(campaign=campaign, topic=topic, source_item_id=first.item_id, kind=kind,
                                           text="bench")
            grades.append(LlmGrade(campaign=campaign, topic=topic, item_id=first.item_id, canary=canary, model=MODEL,
                                   prompt=prompt, grade=rng.choice([0, 3])))
    LlmGrade.objects.bulk_create(grades, batch_size=5000)
    return len(grades)


def llm_grades_drop(campaign) -> None:
    from llm.models import Canary, LlmGrade

    LlmGrade.objects.filter(campaign=campaign).delete()
    Canary.objects.filter(campaign=campaign).delete()


def command_ms(campaign, repeat: int) -> dict:
    from django.core.management import call_command

    seconds, _ = harness.rounds(repeat, lambda: call_command("agreement", "--campaign", campaign.name, "--kind",
                                                             "training", stdout=StringIO()), warmup=1)
    reference = harness.spread(seconds, 1000)
    seconds, _ = harness.rounds(repeat, lambda: call_command("agreement", "--campaign", campaign.name, "--kind",
                                                             "llm", stdout=StringIO()), warmup=1)
    return {"training": reference, "llm": harness.spread(seconds, 1000)}


def main(argv: list[str]) -> None:
    args = agreement_bench.parse_args(argv)
    harness.database_url(agreement_bench.DEFAULT_DATABASE_URL, "bench/llm_agreement.py")
    os.environ.update(harness.production_environment())
    harness.setup_django()
    harness.collect_static()
    harness.ensure_database()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    campaign = agreement_bench.build(args)
    llm_grades_drop(campaign)
    organizer, _ = get_user_model().objects.get_or_create(username="benchagree-organizer")
    organizer.groups.add(Group.objects.get_or_create(name="organizers")[0])
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(organizer)
    base = f"/campaigns/{campaign.pk}"
    pages = {"dashboard": f"{base}/agreement/?kind=training&round=1",
             "disagreements": f"{base}/disagreements/?kind=training&round=1"}
    repeat = max(5, args.repeat // 3)
    without = {name: agreement_bench.measure(client, url, repeat=repeat, warmup=args.warmup)
               for name, url in pages.items()}
    added = llm_grades_add(campaign)
    try:
        with_llm = {name: agreement_bench.measure(client, url, repeat=repeat, warmup=args.warmup)
                    for name, url in pages.items()}
        commands = command_ms(campaign, repeat)
    finally:
        llm_grades_drop(campaign)
    items = args.topics * args.items
    print(f"LLM rows on the agreement pages: {args.assessors} assessors x {args.topics} topics x {args.items} items, "
          f"one model's grade of each of the {items} pool items and {added - items} canaries; {repeat} requests after "
          f"{args.warmup} warm-up, load {harness.load()}")
    rows = [[name, f"{without[name]['median']:.1f}", f"{with_llm[name]['median']:.1f}",
             f"{with_llm[name]['median'] / without[name]['median']:.2f}", without[name]["queries"],
             with_llm[name]["queries"]] for name in pages]
    rows.append(["agreement --kind training / llm", f"{commands['training']['median']:.1f}",
                 f"{commands['llm']['median']:.1f}",
                 f"{commands['llm']['median'] / commands['training']['median']:.2f}", "-", "-"])
    print(harness.table(["page", "without LLM ms", "with LLM ms", "ratio", "queries", "queries with LLM"], rows))
    harness.save("llm_agreement", {"args": vars(args), "without": without, "with_llm": with_llm,
                                   "commands": commands}, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])

"""simulate_judging --qrels FILE --depth K [--relevance-level L] [--seed S] --policy P [--policy P...] [--warm-up N]
[--min-depth D] [--budget N] RUN...; with --llm FILE --budget-share S[,S...] [--measure M], a model's and people's
judgments under one budget: docs/pooling.md ("Judging order")."""
from core.commands import ServiceCommand
from evaluation import services
from ir.budget_simulation import POLICIES, budget_lines
from ir.hybrid import TOP_K
from ir.pools.adaptive import WARM_UP
from ir.pools.simulate import summary_lines
from ir.prime import MAP, MEASURES
from ir.problems import InputError
from simulation import services as simulation


class Command(ServiceCommand):
    help = ("Replays judging orders (random, move-to-front, bandit) on known qrels: for each policy, the share of the "
            "relevant items found at every 5%% of the pool judged, the share of the pool judged when 90%% were found, "
            "and with --budget, Kendall's tau between the runs' nDCG' ranking under the whole pool and under the "
            "budget. Needs no database.")
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="+", metavar="RUN", help="Task 1 run files (named by their file names)")
        parser.add_argument("--qrels", required=True, metavar="FILE", help="qrels file: topic 0 item grade")
        parser.add_argument("--depth", type=int, metavar="K", help="the pool depth of every run (with --llm: the "
                            "runs' top K the uncertain rule audits, default 20)")
        parser.add_argument("--relevance-level", type=int, default=services.RELEVANCE_LEVEL, metavar="L",
                            help="the lowest relevant grade (default 2; 1 for TREC's binary qrels)")
        parser.add_argument("--seed", type=int, default=0, metavar="S",
                            help="the seed of the random order, the warm-up and the ties (default 0)")
        parser.add_argument("--policy", action="append", required=True, metavar="P",
                            help=f"a judging order: {', '.join(POLICIES)} (repeat for several; uncertain with --llm)")
        parser.add_argument("--warm-up", type=int, default=WARM_UP, metavar="N",
                            help=f"judge the first N items of each topic in random order (default {WARM_UP}, a "
                                 "campaign's)")
        parser.add_argument("--min-depth", type=int, default=0, metavar="D",
                            help="judge every run's first D items before any other (default 0)")
        parser.add_argument("--budget", type=int, metavar="N",
                            help="items judged per topic: adds '# POLICY tau_at_budget T'")
        parser.add_argument("--llm", metavar="FILE", help="a model's grades (qrels, then one probability per grade): "
                            "print policy, share, judged, tau_b, tau_ap, kappa, coverage per --budget-share")
        parser.add_argument("--budget-share", action="append", default=[], metavar="S[,S...]",
                            help="with --llm: shares of the items people judge, in (0, 1] (repeat, or ',' between)")
        parser.add_argument("--measure", choices=MEASURES, default=MAP, help="with --llm (default %(default)s)")

    def handle(self, *args, **o):
        if o["llm"]:
            rows = simulation.budget_files(
                qrels_path=o["qrels"], run_paths=o["runs"], llm_path=o["llm"], policies=o["policy"],
                shares=[s for text in o["budget_share"] for s in text.split(",")], measure=o["measure"],
                relevance_level=o["relevance_level"], seed=o["seed"],
                top_k=o["depth"] or TOP_K, warm_up=o["warm_up"])
            return self.stdout.write("".join(budget_lines(rows)), ending="")
        if o["depth"] is None:
            raise InputError("--depth K is required (the pool depth of every run)")
        results = simulation.simulate_files(
            qrels_path=o["qrels"], run_paths=o["runs"], depth=o["depth"], policies=o["policy"], seed=o["seed"],
            relevance_level=o["relevance_level"], warm_up=o["warm_up"], min_depth=o["min_depth"], budget=o["budget"])
        for line in summary_lines(results):
            self.stdout.write(line, ending="")

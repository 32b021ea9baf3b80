"""simulate_judging --qrels FILE --depth K [--relevance-level L] [--seed S] --policy P [--policy P...] [--warm-up N]
[--min-depth D] [--budget N] RUN...: docs/pooling.md ("Judging order")."""
from core.commands import ServiceCommand
from evaluation import services, simulation
from ir.pools.adaptive import POLICIES, WARM_UP
from ir.pools.simulate import summary_lines


class Command(ServiceCommand):
    help = ("Replays judging orders (random, move-to-front, bandit) on known qrels: for each policy, the share of the "
            "relevant items found at every 5%% of the pool judged, the share of the pool judged when 90%% were found, "
            "and with --budget, Kendall's tau between the runs' nDCG' ranking under the whole pool and under the "
            "budget. Needs no database.")
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="+", metavar="RUN", help="Task 1 run files (named by their file names)")
        parser.add_argument("--qrels", required=True, metavar="FILE", help="qrels file: topic 0 item grade")
        parser.add_argument("--depth", type=int, required=True, metavar="K", help="the pool depth of every run")
        parser.add_argument("--relevance-level", type=int, default=services.RELEVANCE_LEVEL, metavar="L",
                            help="the lowest relevant grade (default 2; 1 for TREC's binary qrels)")
        parser.add_argument("--seed", type=int, default=0, metavar="S",
                            help="the seed of the random order, the warm-up and the ties (default 0)")
        parser.add_argument("--policy", action="append", required=True, choices=POLICIES, metavar="P",
                            help=f"a judging order: {', '.join(POLICIES)} (repeat for several)")
        parser.add_argument("--warm-up", type=int, default=WARM_UP, metavar="N",
                            help=f"judge the first N items of each topic in random order (default {WARM_UP}, a "
                                 "campaign's)")
        parser.add_argument("--min-depth", type=int, default=0, metavar="D",
                            help="judge every run's first D items before any other (default 0)")
        parser.add_argument("--budget", type=int, metavar="N",
                            help="items judged per topic: adds '# POLICY tau_at_budget T'")

    def handle(self, *args, **o):
        results = simulation.simulate_files(
            qrels_path=o["qrels"], run_paths=o["runs"], depth=o["depth"], policies=o["policy"], seed=o["seed"],
            relevance_level=o["relevance_level"], warm_up=o["warm_up"], min_depth=o["min_depth"], budget=o["budget"])
        for line in summary_lines(results):
            self.stdout.write(line, ending="")

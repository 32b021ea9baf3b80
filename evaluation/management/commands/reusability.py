"""reusability --qrels FILE --depth K [--relevance-level L] [--team-map FILE] RUN...
reusability --campaign NAME [--depth K]: docs/analysis.md."""
from core.commands import ServiceCommand
from evaluation import reusability, services
from evaluation.management.commands._arguments import runs_arguments
from ir.problems import InputError
from ir.statistics import reusability_lines
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Leave-one-team-out reusability: each run scored against the full qrels and against the qrels without the "
            "judged items only its team put in the top K, the relevant items only its team found, the ranks under "
            "both; then Kendall's tau, tau_ap and the largest rank change ('# ' lines).")

    def add_arguments(self, parser):
        runs_arguments(parser, campaign_help="the campaign's runs against its official judgments")
        parser.add_argument("--depth", type=int, metavar="K",
                            help="the pool depth (required with --qrels; a campaign's primary depth by default)")
        parser.add_argument("--relevance-level", type=int, metavar="L",
                            help="the lowest relevant grade (default 2; with --campaign, the campaign's)")
        parser.add_argument("--team-map", metavar="FILE", help="run<TAB>team lines (default: each run's run tag)")

    def handle(self, *args, **o):
        if bool(o["qrels"]) == bool(o["campaign"]):
            raise InputError("give either --qrels FILE --depth K with run files, or --campaign NAME")
        if o["campaign"]:
            if o["runs"] or o["team_map"] or o["task"] or o["relevance_level"] is not None:
                raise InputError("--campaign takes the campaign's runs, teams (their facts) and relevance level: "
                                 "no run files, --team-map, --task or --relevance-level")
            result = reusability.reusability_campaign(campaign=campaign_named(o["campaign"]), depth=o["depth"])
        else:
            if o["depth"] is None:
                raise InputError("--qrels needs --depth K: the depth the pool was (or would be) built to")
            level = services.RELEVANCE_LEVEL if o["relevance_level"] is None else o["relevance_level"]
            result = reusability.reusability_files(qrels_path=o["qrels"], run_paths=o["runs"], depth=o["depth"],
                                                   relevance_level=level, team_map=o["team_map"], task=o["task"])
        for line in reusability_lines(result.rows, result.agreements):
            self.stdout.write(line, ending="")

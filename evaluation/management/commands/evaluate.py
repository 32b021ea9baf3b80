"""evaluate --qrels FILE [--task answers|formulas] [--formula-index FILE...] [--all-topics] RUN...
evaluate --campaign NAME [--all-topics]: SPEC 9."""
from core.commands import ServiceCommand
from core.errors import InputError
from evaluation import services
from evaluation.prime import score_lines
from pooling.formats.formula_tsv import V2_HEADER, is_formula_index_header, tsv_header
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Scores runs with ARQMath's prime measures (nDCG', MAP', P'@10) and the unjudged fraction of their top "
            "10: run files against a qrels file, or every run of a campaign against its official judgments.")

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="*", metavar="RUN", help="run files (with --qrels)")
        parser.add_argument("--qrels", help="qrels file: topic 0 item grade")
        parser.add_argument("--campaign", help="score every run of this campaign against its judgments")
        parser.add_argument("--task", choices=[services.ANSWERS, services.FORMULAS],
                            help="with --qrels; default: formulas for 6-column ARQMath Task 2 runs, else answers")
        parser.add_argument("--formula-index", nargs="+", default=[], metavar="FILE",
                            help="formula index TSV files mapping formula ids to visual ids (formulas)")
        parser.add_argument("--all-topics", action="store_true",
                            help="average over every qrels topic, 0 where a run has nothing judged (ARQMath-1)")
        parser.add_argument("--per-topic", action="store_true", help="a row per topic before each mean")

    def handle(self, *args, **o):
        if bool(o["qrels"]) == bool(o["campaign"]):
            raise InputError("give either --qrels FILE with run files, or --campaign NAME")
        if o["campaign"]:
            if o["runs"] or o["formula_index"] or o["task"]:
                raise InputError("--campaign scores the campaign's own runs: no run files, --task or --formula-index")
            campaign = campaign_named(o["campaign"])
            result = services.evaluate_campaign(campaign=campaign, all_topics=o["all_topics"])
        else:
            # `--formula-index FILE... RUN...` (SPEC 9): the option takes every path after it, so the files
            # without a formula index header are the runs.
            indexes = [path for path in o["formula_index"] if is_formula_index_header(tsv_header(path))]
            runs = o["runs"] + [path for path in o["formula_index"] if path not in indexes]
            if o["formula_index"] and not indexes:
                raise InputError("--formula-index: none of the files after it has a formula index header "
                                 f"({' '.join(V2_HEADER)}, or the v3 one)")
            result = services.evaluate_files(qrels_path=o["qrels"], run_paths=runs, task=o["task"],
                                              formula_index_paths=indexes, all_topics=o["all_topics"])
        for line in score_lines(result.runs, per_topic=o["per_topic"]):
            self.stdout.write(line, ending="")

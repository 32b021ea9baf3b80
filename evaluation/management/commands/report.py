"""report --campaign NAME --format latex|csv [--table results|assessment|both] [--all-topics] [-o FILE]:
docs/analysis.md.
report --qrels Q1 --qrels Q2 ... [--label L1 --label L2 ...] --format latex|csv [--all-topics] [-o FILE] RUN...: the
results across editions, one row per run and a column group per edition (docs/evaluation.md)."""
from core.commands import ServiceCommand
from evaluation import editions, report
from evaluation.management.commands._files import write_whole
from ir.problems import InputError
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Writes a campaign's tables for the overview paper: the results in the ARQMath overviews' shape "
            "(baselines first, teams by their best primary run, best values in bold, significance marks) and the "
            "assessment per topic (assessor, pool size, H/M/L/N, seconds per judgment; totals). With --qrels files "
            "and run files: the runs' results across editions, a column group per qrels file.")

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="*", metavar="RUN", help="run files (with --qrels)")
        parser.add_argument("--campaign")
        parser.add_argument("--qrels", action="append", default=[], metavar="FILE",
                            help="an edition's qrels file (several: a column group each)")
        parser.add_argument("--label", action="append", default=[], metavar="L",
                            help="each --qrels file's label, in order (default: the file's name)")
        parser.add_argument("--format", required=True, choices=report.FORMATS)
        parser.add_argument("--table", choices=report.TABLES, default="both",
                            help="which table (default both; in CSV the two are separated by an empty line)")
        parser.add_argument("--all-topics", action="store_true",
                            help="means over every qrels topic (ARQMath-1), as evaluate --all-topics")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **o):
        if bool(o["campaign"]) == bool(o["qrels"]):
            raise InputError("give either --campaign NAME, or --qrels FILE (one per edition) with run files")
        if o["qrels"]:
            found = editions.evaluate_editions(qrels_paths=o["qrels"], labels=o["label"], run_paths=o["runs"],
                                               all_topics=o["all_topics"])
            text = (editions.editions_latex(found) if o["format"] == "latex" else editions.editions_csv(found))
        else:
            if o["runs"] or o["label"]:
                raise InputError("--campaign reports the campaign's own runs: no run files or --label")
            campaign = campaign_named(o["campaign"])
            # With earlier editions' qrels added to the campaign, the results are followed by its runs across
            # editions (report.report_parts, as the page's download writes them).
            text = report.report(campaign=campaign, fmt=o["format"], table=o["table"], all_topics=o["all_topics"],
                                 compute=True)
        if o["output"]:
            write_whole(o["output"], lambda stream: stream.write(text))
        else:
            self.stdout.write(text, ending="")

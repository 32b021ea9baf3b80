"""report --campaign NAME --format latex|csv [--table results|assessment|both] [--all-topics] [-o FILE]: SPEC 9."""
from core.commands import ServiceCommand
from evaluation import report
from pooling.selectors import campaign_named

from ._files import write_whole


class Command(ServiceCommand):
    help = ("Writes a campaign's tables for the overview paper: the results in the ARQMath overviews' shape "
            "(baselines first, teams by their best primary run, best values in bold, significance marks) and the "
            "assessment per topic (assessor, pool size, H/M/L/N, seconds per judgment; totals).")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--format", required=True, choices=report.FORMATS)
        parser.add_argument("--table", choices=report.TABLES, default="both",
                            help="which table (default both; in CSV the two are separated by an empty line)")
        parser.add_argument("--all-topics", action="store_true",
                            help="means over every qrels topic (ARQMath-1), as evaluate --all-topics")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **o):
        text = report.report(campaign=campaign_named(o["campaign"]), fmt=o["format"], table=o["table"],
                             all_topics=o["all_topics"], compute=True)
        if o["output"]:
            write_whole(o["output"], lambda stream: stream.write(text))
        else:
            self.stdout.write(text, ending="")

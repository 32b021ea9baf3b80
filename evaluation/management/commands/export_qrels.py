"""export_qrels --campaign NAME [--level visual|instance] [--min-relevant M] [--complete]
[--source official|adjudicated [--round N]] [-o FILE] [--facets FILE]: SPEC 9, the adjudicated grades
(docs/agreement.md) and the facets of a judging scheme (docs/judging.md)."""
from core.commands import ServiceCommand
from evaluation import selectors, services
from pooling.selectors import campaign_named

from ._files import write_whole

DEFAULT_MIN_RELEVANT = 2


class Command(ServiceCommand):
    help = ("Writes a campaign's qrels from its official judgments (SF and DK left out, or 5 and 6 with --complete): "
            "answers by post (Task 3 answers by answer id), formulas by visual id (the highest grade of its judged "
            "instances) or by instance.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--level", choices=selectors.LEVELS, default=selectors.VISUAL,
                            help="formulas: one row per visual id (default) or per judged instance")
        parser.add_argument("--min-relevant", type=int, nargs="?", const=DEFAULT_MIN_RELEVANT, default=None,
                            metavar="M", help="leave out topics with fewer than M items relevant at the campaign's "
                                              f"relevance level (M is {DEFAULT_MIN_RELEVANT} when the option has no "
                                              "number)")
        parser.add_argument("--complete", action="store_true",
                            help="write System failure and Do not know as grades 5 and 6 instead of leaving them out "
                                 "(the organizers' complete qrels of ARQMath-3 Task 3)")
        parser.add_argument("--source", choices=services.SOURCES, default=services.OFFICIAL,
                            help="official: the official judgments (default); adjudicated: the organizer's agreed "
                                 "grades of a training round (--round N) or, without --round, of the dual assessment")
        parser.add_argument("--round", type=int, default=None, metavar="N",
                            help="with --source adjudicated: the training round")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")
        parser.add_argument("--facets", metavar="FILE", help="a scheme with facets: also write every facet's answer "
                                                             "of the official judgments to FILE (TSV)")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        if o["facets"]:
            rows = write_whole(o["facets"], lambda stream: services.facets_export(campaign=campaign, out=stream))
            self.stderr.write(f"{o['facets']}: the facets of {rows} judgments")
        options = {"campaign": campaign, "level": o["level"], "min_relevant": o["min_relevant"],
                   "complete": o["complete"], "source": o["source"], "round": o["round"]}
        if o["output"]:  # a rejected export leaves no half-written file
            summary = write_whole(o["output"], lambda stream: services.qrels_export(out=stream, **options))
        else:
            summary = services.qrels_export(out=self.stdout, **options)
        for topic, relevant in summary.left_out:
            self.stderr.write(f"{topic}\tleft out: {relevant} relevant item{'s' if relevant != 1 else ''}, "
                              f"fewer than {o['min_relevant']}")
        what = "judgments" if o["source"] == services.OFFICIAL else "adjudicated grades"
        self.stderr.write(f"campaign '{campaign.name}': {summary.rows} {what} in {summary.topics} topics"
                          + (f", {len(summary.left_out)} topics left out" if summary.left_out else ""))

"""export_qrels --campaign NAME [--level visual|instance] [--min-relevant M] [--complete]
[--source people|adjudicated [--round N]|llm[:MODEL]|combined|hybrid[:MODEL]] [-o FILE] [--sources FILE]
[--facets FILE]:
docs/evaluation.md, the adjudicated grades (docs/agreement.md), an LLM's grades (docs/agreement.md, docs/formats.md) and
the facets of a judging scheme (docs/judging.md)."""
from core.commands import ServiceCommand
from evaluation import selectors, services
from evaluation.management.commands._files import write_whole
from ir.problems import InputError
from pooling.selectors import campaign_named

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
        parser.add_argument("--source", default=services.OFFICIAL, metavar="SOURCE",
                            help="official or people: the official judgments (default); adjudicated: the "
                                 "organizer's agreed grades of a training round (--round N) or, without --round, of "
                                 "the dual assessment; llm or llm:MODEL: an LLM's grades alone (default model: the "
                                 "campaign endpoint's); combined: people's grades and, for pool items no person "
                                 "judged officially, the LLM's (combined:MODEL names the model), each line's source "
                                 "in a side file (--sources); hybrid or hybrid:MODEL: the same with the calibrated "
                                 "LLM's most probable grade (docs/llm_calibration.md)")
        parser.add_argument("--round", type=int, default=None, metavar="N",
                            help="with --source adjudicated: the training round")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")
        parser.add_argument("--sources", metavar="FILE",
                            help="also write topic, item and source of every line to FILE (TSV); with --source "
                                 "combined or hybrid and -o the default is OUTPUT.sources")
        parser.add_argument("--facets", metavar="FILE", help="a scheme with facets: also write every facet's answer "
                                                             "of the official judgments to FILE (TSV)")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        if o["facets"]:
            rows = write_whole(o["facets"], lambda stream: services.facets_export(campaign=campaign, out=stream))
            self.stderr.write(f"{o['facets']}: the facets of {rows} judgments")
        options = {"campaign": campaign, "level": o["level"], "min_relevant": o["min_relevant"],
                   "complete": o["complete"], "source": o["source"], "round": o["round"]}
        sources = o["sources"]
        if services.qrels_source_parse(o["source"]).kind in (services.COMBINED, services.HYBRID) and not sources:
            if not o["output"]:
                raise InputError("the combined and hybrid sources write each line's source beside the qrels: give "
                                 "-o FILE (the sources go to FILE.sources) or --sources FILE")
            sources = f"{o['output']}.sources"

        def export(stream):
            if not sources:
                return services.qrels_export(out=stream, **options)
            return write_whole(sources, lambda side: services.qrels_export(out=stream, sources_out=side, **options))

        if o["output"]:  # a rejected export leaves no half-written file
            summary = write_whole(o["output"], export)
        else:
            summary = export(self.stdout)
        for topic, relevant in summary.left_out:
            self.stderr.write(f"{topic}\tleft out: {relevant} relevant item{'s' if relevant != 1 else ''}, "
                              f"fewer than {o['min_relevant']}")
        kind = services.qrels_source_parse(o["source"]).kind
        what = {services.OFFICIAL: "judgments", services.ADJUDICATED: "adjudicated grades", services.LLM: "LLM grades",
                services.COMBINED: "judgments and LLM grades",
                services.HYBRID: "judgments and calibrated LLM grades"}[kind]
        self.stderr.write(f"campaign '{campaign.name}': {summary.rows} {what} in {summary.topics} topics"
                          + (f", {len(summary.left_out)} topics left out" if summary.left_out else "")
                          + (f"; sources in {sources}" if sources else ""))

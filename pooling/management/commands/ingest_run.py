"""ingest_run --campaign NAME [--alternate] [--name RUN] PATH: docs/formats.md.

Also --kind, --allow-missing, --llm-model."""
from pathlib import Path

from core.commands import ServiceCommand
from pooling import services
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = "Checks a run file and stores it in a campaign; a file with any error is rejected whole."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--alternate", action="store_true", help="an alternate run: the same as --kind alternate")
        parser.add_argument("--kind", choices=list(services.RUN_KINDS),
                            help="primary, alternate, or name (the default): what an ARQMath name ends in, -P or -A, "
                                 "primary when it says neither")
        parser.add_argument("--manual", action="store_true", help="a manual run (default: automatic)")
        parser.add_argument("--baseline", action="store_true")
        parser.add_argument("--name", help="the run's name (default: the file name without extension)")
        parser.add_argument("--llm-model", default="", metavar="MODEL",
                            help="the LLM the run reranks or generates with, as its team declares it (a run fact)")
        parser.add_argument("--depth", type=int,
                            help="pool this run to this depth instead of the campaign's primary or alternate depth")
        parser.add_argument("--allow-missing", action="store_true",
                            help="keep the run even when most of its ids are not in the campaign's collection")
        parser.add_argument("path")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        run = services.run_ingest(campaign=campaign, path=o["path"], **services.run_options(o))
        self.report_warnings(run.warnings)
        _, why = services.run_kind(name=run.name, filename=o["path"], kind=o["kind"], alternate=o["alternate"])
        self.stdout.write(f"run '{run.name}' ({run.kind}: {why}; {run.get_format_display()}): {run.row_count} rows "
                          f"for {run.topic_count} topics")
        said = services.name_facts_said(run.name, Path(o["path"]).name)
        if said:
            self.stdout.write(f"facts {said} (editable on the run's Facts page)")

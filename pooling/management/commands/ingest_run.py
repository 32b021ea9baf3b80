"""ingest_run --campaign NAME [--alternate] [--name RUN] PATH: docs/formats.md.

Also --kind, --allow-missing, --llm-model."""
from pathlib import Path

from core.commands import ServiceCommand
from pooling import run_options, services
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = "Checks a run file and stores it in a campaign; a file with any error is rejected whole."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        run_options.arguments_add(parser)
        parser.add_argument("path")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        run = services.run_ingest(campaign=campaign, path=o["path"], **run_options.command_options(o))
        self.report_warnings(run.warnings)
        self.stdout.write(f"run '{run.name}' ({run.kind}: {run.kind_why}; {run.get_format_display()}): "
                          f"{run.row_count} rows for {run.topic_count} topics")
        said = services.name_facts_said(run.name, Path(o["path"]).name)
        if said:
            self.stdout.write(f"facts {said} (editable on the run's Facts page)")

"""replace_run --campaign NAME RUN PATH [--force]: a new file for a run, same name and options."""
from core.commands import ServiceCommand
from judging.services import run_replace
from pooling.selectors import campaign_named
from workflow.management.commands._undo import report_pools, run_named


class Command(ServiceCommand):
    help = ("Replaces a run's file, keeping its name and options (alternate, manual, baseline, depth); a rejected "
            "file changes nothing. Built pools are rebuilt. Once judging has started only with --force, which "
            "keeps every judgment.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("run", help="the run's name")
        parser.add_argument("path")
        parser.add_argument("--force", action="store_true",
                            help="replace even though judging has started: the pools are rebuilt, every judgment "
                                 "is kept, and the judged items the new pools leave out are listed")

    def handle(self, *args, **o):
        old = run_named(campaign_named(o["campaign"]), o["run"])
        run, after = run_replace(run=old, path=o["path"], force=o["force"])
        self.report_warnings(run.warnings)
        self.stdout.write(f"replaced run '{run.name}' ({run.kind}, {run.get_format_display()}): {run.row_count} rows "
                          f"for {run.topic_count} topics")
        report_pools(self, after)

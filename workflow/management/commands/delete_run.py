"""delete_run --campaign NAME RUN [--force]: deletes a wrongly uploaded run (docs/pooling.md, "Undoing a mistake")."""
from core.commands import ServiceCommand
from judging.services import run_delete
from pooling.selectors import campaign_named
from workflow.management.commands._undo import report_pools, run_named


class Command(ServiceCommand):
    help = ("Deletes a run and its rows; built pools are rebuilt from the runs left. Once judging has started "
            "only with --force, which keeps every judgment.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("run", help="the run's name")
        parser.add_argument("--force", action="store_true",
                            help="delete even though judging has started: the pools are rebuilt, every judgment is "
                                 "kept, and the judged items the new pools leave out are listed")

    def handle(self, *args, **o):
        run = run_named(campaign_named(o["campaign"]), o["run"])
        after = run_delete(run=run, force=o["force"])
        self.stdout.write(f"deleted run '{run.name}' ({run.row_count} rows)")
        report_pools(self, after)

"""export_nuggets --campaign NAME [--assignments] [-o FILE]: the campaign's banks, or its official support labels,
in nuggetizer's JSON lines (docs/nuggets.md, "Nugget banks")."""
from core.commands import ServiceCommand
from ir.formats.nuggets import write_nugget_assignments, write_nugget_banks
from nuggets import selectors
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Writes the campaign's nugget banks (their accepted nuggets) as nuggetizer's create output; with "
            "--assignments, the official support labels of each answer against its topic's frozen bank as "
            "nuggetizer's assign output (answers without official labels left out).")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--assignments", action="store_true",
                            help="the official support labels instead of the banks")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        rows = (selectors.assignments_export(campaign=campaign) if o["assignments"]
                else selectors.banks_export(campaign=campaign))  # read before any file is made

        def write(sink) -> None:
            if o["assignments"]:
                write_nugget_assignments(rows, sink)  # type: ignore[arg-type]
            else:
                write_nugget_banks(rows, sink)  # type: ignore[arg-type]

        if o["output"]:
            with open(o["output"], "w", encoding="utf-8", newline="\n") as stream:
                write(stream)
        else:
            write(self.stdout)

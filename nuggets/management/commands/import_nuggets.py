"""import_nuggets --campaign NAME FILE: nuggetizer's create output into the campaign's banks (docs/nuggets.md,
"Nugget banks")."""
from pathlib import Path

from core.commands import ServiceCommand
from nuggets.services.bank import nuggets_import
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Appends nuggetizer's create output (JSON lines: qid, query, nuggets [{text, importance}]) to the banks "
            "of the campaign's topics, each nugget accepted. A file with any problem (a topic the campaign lacks, a "
            "malformed line) changes nothing.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("path", metavar="FILE")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        path = Path(o["path"])
        with path.open("rb") as stream:
            result = nuggets_import(campaign=campaign, stream=stream, filename=path.name)
        self.stdout.write(result.summary())

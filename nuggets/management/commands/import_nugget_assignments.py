"""import_nugget_assignments --campaign C --assessor USER FILE: nuggetizer's assign output (answers mode) as an
official assignment's support labels (docs/nuggets.md, "Support judging")."""
from pathlib import Path

from core.commands import ServiceCommand
from nuggets.services import support
from people.selectors import accounts_named
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = "Imports nuggetizer's assign output as an assessor's official support labels (all or nothing)."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--assessor", required=True, help="an existing account: the labels are theirs")
        parser.add_argument("file", metavar="FILE")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        assessor = accounts_named([o["assessor"]])[0]
        path = Path(o["file"])
        with path.open("rb") as stream:
            result = support.support_import(campaign=campaign, assessor=assessor, stream=stream, filename=path.name)
        for a in result.assignments:
            bank = f"\tbank v{a.bank.number}" if a.bank else ""
            self.stdout.write(f"{a.topic.topic_id}\t{assessor.username}\tofficial{bank}")
        self.stdout.write(result.summary())

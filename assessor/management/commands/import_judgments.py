"""import_judgments --campaign NAME PATH: SPEC 9 (migrations from another tool, tests)."""
from pathlib import Path

from django.template.defaultfilters import pluralize

from assessor import services
from core.commands import ServiceCommand
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Loads judgments (assessor, topic, item_id, grade, comment[, kind[, round]] per line), creating the "
            "assignments and assessor accounts they need. A file with any problem changes nothing.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("path", metavar="PATH")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        path = Path(o["path"])
        with path.open("rb") as lines:
            result = services.judgments_import(campaign=campaign, lines=lines, filename=path.name)
        for name in result.new_accounts:
            self.stdout.write(f"created account {name} (no usable password: set one before they log in)")
        self.stdout.write(f"{result.judgments} judgment{pluralize(result.judgments)} read: {result.created} new, "
                          f"{result.revised} revised, {result.unchanged} unchanged; {result.new_assignments} "
                          f"assignment{pluralize(result.new_assignments)} created")

"""import_judgments --campaign NAME PATH (docs/formats.md, Judgments: migrations from another tool, tests), and TREC
qrels files with --assessor and --kind (docs/judging.md, "Importing judgments")."""
from pathlib import Path

from django.template.defaultfilters import pluralize

from core.commands import ServiceCommand
from judging import services
from judging.services.imports import ASSIGNED, OUTSIDE, REFUSE, import_notes
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Loads judgments (assessor, topic, item_id, grade, comment[, kind[, round]] per line, or a TREC qrels "
            "file: topic iteration item grade, with --assessor and --kind), creating the assignments and assessor "
            "accounts they need. A file with any problem changes nothing.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--assessor", default="", help="a qrels file: whose judgments (an account, or imported)")
        parser.add_argument("--kind", default="", choices=["", "official", "dual", "training"],
                            help="a qrels file: the assignments' kind (default official)")
        parser.add_argument("--round", type=int, default=None, help="a qrels file of kind training: its round")
        parser.add_argument("--outside", choices=OUTSIDE, default=REFUSE,
                            help="lines of items outside the pools: refuse the file (default), skip them, or add "
                                 "the items to the pools")
        parser.add_argument("--assigned", choices=ASSIGNED, default=REFUSE,
                            help="official lines of a topic another assessor holds officially: refuse the file "
                                 "(default), import them as dual judgments, or skip them")
        parser.add_argument("path", metavar="PATH")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        path = Path(o["path"])
        with path.open("rb") as lines:
            result = services.judgments_import(campaign=campaign, lines=lines, filename=path.name,
                                               assessor=o["assessor"], kind=o["kind"], round=o["round"],
                                               outside=o["outside"], assigned=o["assigned"])
        for name in result.new_accounts:
            self.stdout.write(f"created account {name} (no usable password: set one before they log in)")
        self.stdout.write(f"{result.judgments} judgment{pluralize(result.judgments)} read: {result.created} new, "
                          f"{result.revised} revised, {result.unchanged} unchanged; {result.new_assignments} "
                          f"assignment{pluralize(result.new_assignments)} created")
        for note in import_notes(result):
            self.stdout.write(note)

"""ingest_collection --collection NAME PATH...: SPEC 9."""
from core.commands import ServiceCommand
from pooling import services


class Command(ServiceCommand):
    help = "Loads Posts.xml, Comments.xml, formula index TSVs and JSONL files into a collection, all or nothing."

    def add_arguments(self, parser):
        parser.add_argument("--collection", required=True)
        parser.add_argument("paths", nargs="+")

    def handle(self, *args, **o):
        result = services.collection_ingest(collection_name=o["collection"], paths=o["paths"])
        self.report_warnings(result.warnings)
        counts = ", ".join(f"{n} {kind}" for kind, n in result.counts.items())
        self.stdout.write(f"collection '{o['collection']}': loaded {counts}")

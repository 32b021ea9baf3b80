"""ingest_collection --collection NAME PATH...: docs/formats.md; --corpus PATH declares a pool-only collection."""
from core.commands import ServiceCommand
from ir.problems import InputError
from pooling import services


class Command(ServiceCommand):
    help = ("Loads Posts.xml, Comments.xml, formula index TSVs and JSONL files into a collection, all or nothing; "
            "or, with --corpus, reads its documents from a corpus file or folder, storing only the pooled ones.")

    def add_arguments(self, parser):
        parser.add_argument("--collection", required=True)
        parser.add_argument("--corpus", metavar="PATH",
                            help="a corpus file or folder (JSONL or TREC, plain or gzip) that the web server and the "
                                 "workers can read: only the documents the pools hold are stored, at each pool build")
        parser.add_argument("paths", nargs="*")

    def handle(self, *args, **o):
        if not o["paths"] and not o["corpus"]:
            raise InputError("give the collection's files, or --corpus PATH")
        if o["corpus"]:
            collection = services.collection_corpus_set(name=o["collection"], corpus_path=o["corpus"])
            self.stdout.write(f"collection '{collection.name}': documents read from {collection.corpus_path} "
                              "at each pool build")
        if o["paths"]:
            result = services.collection_ingest(collection_name=o["collection"], paths=o["paths"])
            self.report_warnings(result.warnings)
            counts = ", ".join(f"{n} {kind}" for kind, n in result.counts.items())
            self.stdout.write(f"collection '{o['collection']}': loaded {counts}")

"""ingest_topics --campaign NAME PATH: docs/formats.md."""
from core.commands import ServiceCommand
from pooling import services
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Adds the topics of a topic file (ARQMath XML, TREC <top>, TSV id<TAB>text, JSONL or TREC RAG JSONL, "
            "micro-topics too) to a campaign (topics already there are updated).")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("path")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        result = services.topics_ingest(campaign=campaign, path=o["path"])
        self.stdout.write(f"campaign '{campaign.name}': {result.total} topics in the file, "
                          f"{result.created} added, {result.updated} updated")

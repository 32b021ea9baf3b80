"""ingest_candidates --campaign NAME FILE: a campaign's candidates (docs/formats.md), pooled by the next build."""
from core.commands import ServiceCommand
from pooling import services
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Replaces a campaign's candidates with a file's (topic<TAB>item_id<TAB>source<TAB>note): items the next "
            "pool build pools beside the runs, with their source as provenance.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("path")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        count = services.candidates_ingest(campaign=campaign, path=o["path"])
        self.stdout.write(f"campaign '{campaign.name}': {count} candidates; build the pools to pool them")

"""build_pools --campaign NAME: docs/pooling.md."""
from core.commands import ServiceCommand
from judging.services import pools_rebuild
from pooling import services
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = "Pools every topic of a campaign from its runs, replacing the campaign's pools."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--force", action="store_true",
                            help="rebuild even though judging has started; judgments are kept, and the judged "
                                 "items the new pools leave out are listed")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        result = pools_rebuild(campaign=campaign, force=o["force"])
        for topic_id, item_id in result.unpooled or []:
            self.stderr.write(f"{topic_id}\t{item_id}\tjudged, no longer in the pool (judgments kept)")
        self.report_warnings(services.missing_documents_warnings(result.documents_missing or []))
        overflow = result.overflow
        noun = "visual ids" if overflow is not None else "items"
        for topic_id, size in result.sizes.items():
            line = f"{topic_id}\t{size} {noun}"
            if overflow is not None:
                line += f", {overflow[topic_id]} with more than {campaign.instances} instances"
            self.stdout.write(line)
        summary = f"campaign '{campaign.name}': {result.items} {noun} in {len(result.sizes)} topics"
        if overflow is not None:
            summary += f", {result.selected} instances to judge"
        if result.documents_stored is not None:
            summary += f"; {result.documents_stored} documents read from the corpus"
        self.stdout.write(summary)

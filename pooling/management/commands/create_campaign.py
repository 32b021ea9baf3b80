"""create_campaign NAME --task answers|formulas [pooling settings]: docs/pooling.md."""
from core.commands import ServiceCommand
from ir.grades import PRESETS, scheme_chosen
from pooling import services
from pooling.campaign_options import add_order_arguments, order_summary
from pooling.models import Campaign


class Command(ServiceCommand):
    help = "Creates a campaign; unset pooling settings take the ARQMath-3 defaults of its task."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--task", required=True, choices=Campaign.Task.values)
        parser.add_argument("--primary-depth", type=int)
        parser.add_argument("--alternate-depth", type=int)
        parser.add_argument("--instances", type=int)
        parser.add_argument("--selection", choices=Campaign.Selection.values)
        parser.add_argument("--seed", type=int)
        parser.add_argument("--max-depth", type=int, help="most rows a run may have per topic (default 1000)")
        parser.add_argument("--relevance-level", type=int, help="evaluation: the lowest grade MAP', P'@10 and binary "
                                                               "measures count relevant (1-3, default 2)")
        add_order_arguments(parser)
        parser.add_argument("--collection")
        parser.add_argument("--scheme", help=f"the judging scheme: {', '.join(PRESETS)} (default arqmath), or a "
                                             "custom scheme's file FILE.json (docs/judging.md, Judging schemes)")

    def handle(self, *args, **o):
        campaign = services.campaign_create(name=o["name"], task=o["task"], collection_name=o["collection"],
                                            scheme=scheme_chosen(o["scheme"], o["task"]),
                                            **services.campaign_settings(o))
        self.stdout.write(
            f"created campaign '{campaign.name}' ({campaign.task}): depth {campaign.primary_depth} primary / "
            f"{campaign.alternate_depth} alternate, {campaign.instances} instances, {campaign.selection}, "
            f"seed {campaign.seed}, relevance level {campaign.relevance_level}"
            + (f", collection '{campaign.collection}'" if campaign.collection else "")
            + (f", scheme {campaign.judging_scheme.name}" if campaign.scheme else "") + order_summary(campaign))

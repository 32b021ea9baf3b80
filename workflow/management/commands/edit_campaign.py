"""edit_campaign NAME [--name NEW] [pooling settings] [--force]: changes a campaign's settings."""
from core.commands import ServiceCommand
from ir.grades import scheme_chosen
from judging.services import campaign_update
from pooling import services
from pooling.campaign_options import add_order_arguments, order_summary
from pooling.models import Campaign
from pooling.selectors import campaign_named
from workflow.management.commands._undo import report_pools


class Command(ServiceCommand):
    help = ("Changes a campaign's settings; settings not given stay. The pooling settings change freely until the "
            "pools are built, then only with --force, which rebuilds the pools (every judgment kept).")

    def add_arguments(self, parser):
        parser.add_argument("campaign_name", metavar="NAME")
        parser.add_argument("--name", help="a new name")
        parser.add_argument("--primary-depth", type=int)
        parser.add_argument("--alternate-depth", type=int)
        parser.add_argument("--instances", type=int)
        parser.add_argument("--selection", choices=Campaign.Selection.values)
        parser.add_argument("--seed", type=int)
        parser.add_argument("--max-depth", type=int, help="most rows a run may have per topic (only rises once "
                                                          "runs are in)")
        parser.add_argument("--relevance-level", type=int, help="evaluation: the lowest grade MAP', P'@10 and binary "
                                                               "measures count relevant (1-3)")
        parser.add_argument("--candidate-notes", choices=["on", "off"],
                            help="judging: show a candidate's note beside it (docs/pooling.md)")
        add_order_arguments(parser)
        parser.add_argument("--collection", help="only while the campaign has no run")
        parser.add_argument("--scheme", help="the judging scheme (a preset's name or FILE.json; until judging starts)")
        parser.add_argument("--force", action="store_true",
                            help="change pooling settings of built pools: the pools are rebuilt at once")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign_name"])
        campaign, after = campaign_update(
            campaign=campaign, name=o["name"], collection_name=o["collection"], force=o["force"],
            scheme=scheme_chosen(o["scheme"], campaign.task) if o["scheme"] else None, **services.campaign_settings(
                {**o, "candidate_notes": None if o["candidate_notes"] is None else o["candidate_notes"] == "on"}))
        self.stdout.write(
            f"campaign '{campaign.name}' ({campaign.task}): depth {campaign.primary_depth} primary / "
            f"{campaign.alternate_depth} alternate, {campaign.instances} instances, {campaign.selection}, "
            f"seed {campaign.seed}, maximum run depth {campaign.max_depth}, relevance level {campaign.relevance_level}"
            + (", candidate notes shown" if campaign.candidate_notes else "")
            + (f", collection '{campaign.collection}'" if campaign.collection else "")
            + (f", scheme {campaign.judging_scheme.name}" if campaign.scheme else "") + order_summary(campaign))
        report_pools(self, after)

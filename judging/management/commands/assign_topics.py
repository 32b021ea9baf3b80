"""assign_topics --campaign NAME --assessor USER [--kind official|training|dual] [--round R] TOPIC...:
docs/judging.md."""
from django.template.defaultfilters import pluralize

from core.commands import ServiceCommand
from judging import services
from people.selectors import accounts_named
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = "Gives topics of a campaign to an assessor (assigning twice is harmless)."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--assessor", required=True, action="append",
                            help="an existing account; repeat the option for several assessors")
        parser.add_argument("--kind", default="official", help="official (default), training or dual")
        parser.add_argument("--round", type=int, help="training round (default 1)")
        parser.add_argument("topics", nargs="+", metavar="TOPIC")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        result = services.assignments_create(campaign=campaign, assessors=accounts_named(o["assessor"]),
                                             topic_ids=o["topics"], kind=o["kind"], round=o["round"])
        for a in result.created:
            self.stdout.write(f"{a.topic.topic_id}\t{a.assessor.username}\t{a.kind}\tassigned")
        for a in result.existing:
            self.stdout.write(f"{a.topic.topic_id}\t{a.assessor.username}\t{a.kind}\talready assigned")
        self.stdout.write(f"{len(result.created)} assignment{pluralize(len(result.created))} created, "
                          f"{len(result.existing)} already there")

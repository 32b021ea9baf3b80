"""assign_support --campaign C --topic T --assessor U [--task nuggets|citations] [--kind official|dual|training]
[--round N]: docs/nuggets.md, "Support judging"."""
from core.commands import ServiceCommand
from ir.problems import InputError
from nuggets.services import support
from people.selectors import accounts_named
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = "Gives a topic's answers to an assessor for support judging (assigning twice is harmless)."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--topic", required=True)
        parser.add_argument("--assessor", required=True, help="an existing account")
        parser.add_argument("--task", default="nuggets", help="nuggets (default) or citations")
        parser.add_argument("--kind", default="official", help="official (default), dual or training")
        parser.add_argument("--round", type=int, help="training round (default 1)")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        topic = campaign.topics.filter(topic_id=o["topic"]).first()
        if topic is None:
            raise InputError(f"no topic {o['topic']} in campaign {campaign.name}")
        assessor = accounts_named([o["assessor"]])[0]
        made, created = support.support_assign(campaign=campaign, topic=topic, assessor=assessor, task=o["task"],
                                               kind=o["kind"], round=o["round"])
        bank = f"\tbank v{made.bank.number}" if made.bank else ""
        self.stdout.write(f"{topic.topic_id}\t{assessor.username}\t{made.task}\t{made.kind}{bank}\t"
                          f"{'assigned' if created else 'already assigned'}")

"""delete_campaign NAME: deletes a campaign that has no judgment (docs/pooling.md, "Undoing a mistake")."""
from core.commands import ServiceCommand
from judging.services import campaign_delete
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Deletes a campaign with its topics, runs, pools, jobs, assignments and training rounds. A campaign "
            "with any judgment is kept (exit 2): nothing an assessor submitted is ever deleted.")

    def add_arguments(self, parser):
        parser.add_argument("name")

    def handle(self, *args, **o):
        campaign = campaign_named(o["name"])
        c = campaign_delete(campaign=campaign)
        self.stdout.write(f"deleted campaign '{o['name']}': {c.topics} topics, {c.runs} runs ({c.run_rows} rows), "
                          f"{c.pool_items} pool items, {c.jobs} jobs")

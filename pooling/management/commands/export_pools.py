"""export_pools --campaign NAME [-o FILE]: docs/pooling.md."""
from contextlib import closing

from core.commands import ServiceCommand
from ir.formats.pools import write_pool_tsv
from pooling import selectors


class Command(ServiceCommand):
    help = "Writes a campaign's items to judge as TSV: a header line, then one row per item (or instance)."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **o):
        campaign = selectors.campaign_named(o["campaign"])
        # Closed however the writing ends (a reader that goes away midway too), so that the database cursor
        # behind the rows is closed while its connection is still open.
        with closing(selectors.pool_export_rows(campaign=campaign)) as rows:
            next(rows)  # the header; raises InputError before any file is created when there are no pools
            if o["output"]:
                with open(o["output"], "w", encoding="utf-8", newline="\n") as stream:
                    write_pool_tsv(rows, campaign.task, stream)
            else:
                write_pool_tsv(rows, campaign.task, self.stdout)

"""export_pools --campaign NAME [-o FILE]: SPEC 9."""
from pooling import selectors

from ._base import ServiceCommand


class Command(ServiceCommand):
    help = "Writes a campaign's items to judge as TSV: a header line, then one row per item (or instance)."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **o):
        campaign = self.campaign(o["campaign"])
        rows = selectors.pool_export_rows(campaign=campaign)
        header = next(rows)  # raises InputError before any file is created when there are no pools
        if o["output"]:
            with open(o["output"], "w", encoding="utf-8", newline="\n") as stream:
                self._write(stream, header, rows)
        else:
            self._write(self.stdout, header, rows)

    @staticmethod
    def _write(stream, header, rows) -> None:
        stream.write("\t".join(header) + "\n")
        for row in rows:
            stream.write("\t".join(row) + "\n")

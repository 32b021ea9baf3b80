"""ingest_topic_info --campaign NAME FILE: a campaign's topic information (docs/analysis.md)."""
from pathlib import Path

from core.commands import ServiceCommand
from evaluation.topic_info import topic_info_ingest
from ir.formats.topic_info import TOPIC_COLUMN
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Stores a campaign's topic information: a CSV with a Topic column and any others (ARQMath-3's Category, "
            "Difficulty, Dependency, ...), replacing any earlier one; `evaluate --campaign ... --by COLUMN` and the "
            "leaderboard group the topics by its columns.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("path", metavar="FILE")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        path = Path(o["path"])
        stored, warnings = topic_info_ingest(campaign=campaign, data=path.read_bytes(), filename=path.name)
        self.report_warnings(warnings)
        others = [column for column in stored.columns if column != TOPIC_COLUMN]
        self.stdout.write(f"campaign '{campaign.name}': topic information of {len(stored.rows)} topics, columns "
                          f"{', '.join(others) or '(none)'}")

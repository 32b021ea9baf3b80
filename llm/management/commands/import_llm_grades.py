"""import_llm_grades --campaign NAME --model NAME FILE: an LLM's grades made elsewhere (docs/llm.md, "Grades from
elsewhere")."""
from pathlib import Path

from core.commands import ServiceCommand
from llm.imports import llm_grades_import
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Stores a TREC qrels file (topic 0 item grade, each line optionally followed by one probability per grade "
            "of the campaign's scheme, lowest grade first) as the grades of an LLM, replacing that model's grades of "
            "an earlier import. A file with any problem changes nothing; items outside the pools are counted, not "
            "stored.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--model", required=True, help="the model whose grades these are (llm:MODEL elsewhere)")
        parser.add_argument("path", metavar="FILE")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        path = Path(o["path"])
        with path.open("rb") as stream:
            result = llm_grades_import(campaign=campaign, model=o["model"], stream=stream, filename=path.name)
        self.report_warnings(result.warnings())
        self.stdout.write(result.summary())

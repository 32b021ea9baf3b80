"""llm_assign_nuggets --campaign NAME [--topic T ...]: the LLM co-assessor labels every answer's support of its
topic's nuggets with nuggetizer's assigner prompt, kept apart from people's labels (docs/nuggets.md, "The LLM
co-assessor on support")."""
from core.commands import ServiceCommand
from llm.command_options import add_endpoint_arguments, endpoint_from_options
from nuggets.llm_support import assign_summary, nuggets_assign_llm
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Labels each answer of the campaign's topics (all, or those given) against the nuggets of the topic's "
            "frozen bank (frozen now if it has no version) with the campaign's LLM endpoint and nuggetizer's "
            "assigner prompt: support, partial_support or not_support. The labels are the model's: never counted "
            "in the scores or the export; a second run revises what changed.")

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--topic", action="append", default=[], metavar="T", help="a topic id (repeatable)")
        add_endpoint_arguments(parser)

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        settings = endpoint_from_options(campaign=campaign, options=o)
        result = nuggets_assign_llm(campaign=campaign, settings=settings, topic_ids=o["topic"])
        for topic_id, why in result.skipped:
            self.stdout.write(self.style.WARNING(f"warning: topic {topic_id}: {why}, skipped"))
        self.stdout.write(assign_summary(result.as_json()))

"""llm_assign_nuggets --campaign NAME [--topic T ...]: the LLM co-assessor labels every answer's support of its
topic's nuggets with nuggetizer's assigner prompt, kept apart from people's labels (docs/nuggets.md, "The LLM
co-assessor on support")."""
from core.commands import ServiceCommand
from llm import services as llm_services
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
        parser.add_argument("--base-url", help="default: the campaign's LLM endpoint")
        parser.add_argument("--model", help="default: the campaign's LLM endpoint's")
        parser.add_argument("--api-key-env", help="the NAME of the environment variable holding the key")

    def handle(self, *args, **o):
        campaign = campaign_named(o["campaign"])
        settings = llm_services.endpoint_settings(campaign=campaign, overrides={
            "base_url": o["base_url"], "model": o["model"], "api_key_env": o["api_key_env"]})
        result = nuggets_assign_llm(campaign=campaign, settings=settings, topic_ids=o["topic"])
        for topic_id, why in result.skipped:
            self.stdout.write(self.style.WARNING(f"warning: topic {topic_id}: {why}, skipped"))
        self.stdout.write(assign_summary(result.as_json()))

"""draft_nuggets --campaign NAME [--topic T ...]: the LLM co-assessor drafts nuggets with nuggetizer's creator prompt
(docs/nuggets.md, "Drafting with the LLM")."""
from core.commands import ServiceCommand
from llm import services as llm_services
from nuggets.drafting import draft_summary, nuggets_draft
from pooling.selectors import campaign_named


class Command(ServiceCommand):
    help = ("Drafts nuggets for the campaign's topics (all, or those given) from their pooled answers with the "
            "campaign's LLM endpoint and nuggetizer's creator and scorer prompts; the drafts wait on the bank page "
            "for an organizer to accept or reject.")

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
        result = nuggets_draft(campaign=campaign, settings=settings, topic_ids=o["topic"])
        for topic_id in result.skipped:
            self.stdout.write(self.style.WARNING(f"warning: topic {topic_id}: no pooled answer to draft from"))
        self.stdout.write(draft_summary(result.as_json()))
